"""Hostile (grader memory): a reply that names one blob many times.

The reply protocol's node cap (a million parts) and its frame cap (384 MiB) bound what a reply
says, not what it decodes to: bytes values are copied when decoded, and arrays over one blob
alias it (a later np.asarray of the list copies each). dot() forges a reply of one 16 MiB blob
named by 160 bytes values (2.5 GiB decoded in the grader), lookup() one named by 160 arrays.
norm() is correct.

Expected: both replies are refused (16 MiB is more than any result of these calls can take:
the call's bound, graders/conformance/results.py, refuses them before they are read; within
it they would be malformed, a blob may be named once: nothing decoded is larger than the
reply), nothing of the sort is allocated, and grading goes on (norm passes).
"""
import json
import os
import struct
import sys

import numpy as np

_BLOB = 16 << 20


def _forge(value) -> None:
    fd = int(sys.argv[sys.argv.index("--resp-fd") + 1])
    head = json.dumps({"ok": value, "mutated": [], "rngs": [], "blobs": [_BLOB]}).encode()
    os.write(fd, struct.pack(">QI", 4 + len(head) + _BLOB, len(head)) + head)
    chunk = b"\0" * (1 << 20)
    for _ in range(_BLOB >> 20):
        os.write(fd, chunk)
    os._exit(0)


def dot(u, v):
    _forge({"t": "list", "v": [{"t": "bytes", "i": 0}] * 160})


def lookup(table, token_ids):
    _forge({"t": "list", "v": [{"t": "nd", "i": 0, "dtype": "|u1", "shape": [_BLOB]}] * 160})


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
