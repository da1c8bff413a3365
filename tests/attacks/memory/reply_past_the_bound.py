"""Hostile (grader memory): a worker that does not keep to the bound its request states.

Each request says how large a result may be (``"limit"``: values and reply bytes, from the
contract), and the worker answers a larger result with its size alone. This submission writes
its own reply frame on the reply pipe instead (as a worker changed by native code could): a
header that declares 300 MiB of array bytes, followed by the bytes, for a lookup whose result
is a few hundred bytes.

Expected: the grader reads the 8-byte length, refuses the reply (longer than the call's bound)
without reading the rest, kills the worker, and reports a fault of that check ("the worker sent
a reply of N bytes, more than any result for these arguments can take"); its memory does not
grow by the reply; `norm` passes in a fresh worker.
"""
import json
import math
import os
import struct
import sys

import numpy as np


def _reply_fd():
    return int(sys.argv[sys.argv.index("--resp-fd") + 1])


def lookup(table, token_ids):
    n = 300 << 20
    head = json.dumps({"ok": {"t": "nd", "i": 0, "dtype": "<f8", "shape": [n // 8]},
                       "mutated": [], "rngs": [], "blobs": [n]}).encode()
    fd = _reply_fd()
    os.write(fd, struct.pack(">QI", 4 + len(head) + n, len(head)) + head)
    chunk = bytes(1 << 20)
    try:
        for _ in range(n >> 20):
            os.write(fd, chunk)
    except OSError:
        pass
    os._exit(0)


def norm(v):
    return math.sqrt(float(np.dot(v, v)))
