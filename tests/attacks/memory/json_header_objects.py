"""Hostile (grader memory): a first reply whose JSON header is 16 MiB of small objects.

A reply's header is JSON of at most 16 MiB, and its values' parts are counted (a million)
only once it is decoded: JSON decodes to about 30 times its size in Python objects. At import,
before any call has a bound on its reply, this module writes the worker's first reply itself
on the reply pipe: a header of 2.3 million `{"":0}` objects. The grader decoded it to 476 MiB
of its own memory before judging any of it (a third of the 1.5 GB the grader may use, from
one reply).

Expected: the header's objects and arrays are counted before it is decoded (at most 262,144):
the reply is refused as unreadable, the grader's memory does not grow by the header's
objects, and grading goes on (the submission's import failed, every check says so).
"""
import json
import os
import struct
import sys

_ITEM = '{"":0}'


def _forge() -> None:
    fd = int(sys.argv[sys.argv.index("--resp-fd") + 1])
    n = ((16 << 20) - 64) // (len(_ITEM) + 1)
    head = ('{"ok": {"t": "list", "v": [' + ",".join([_ITEM] * n) + ']}, "blobs": []}').encode()
    os.write(fd, struct.pack(">QI", 4 + len(head), len(head)))
    view = memoryview(head)
    while view:
        view = view[os.write(fd, view[:1 << 20]):]
    os._exit(0)


if "--resp-fd" in sys.argv:
    _forge()


def norm(v):
    return sum(x * x for x in v) ** 0.5
