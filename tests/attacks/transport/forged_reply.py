"""Hostile (forged protocol replies): writes its own frames to the reply pipe: an array of
dtype |S0 (zero bytes per item) that claims 10^10 x 10^10 items, and an object array, then
exits so that its real reply never comes.

Expected: each call is reported as a malformed reply (an error of that check), nothing is
allocated for the claimed shape, and grading goes on (`norm` passes).
"""
import json
import os
import struct
import sys

import numpy as np


def _reply_fd():
    return int(sys.argv[sys.argv.index("--resp-fd") + 1])


def _forge(header):
    head = json.dumps(dict(header, blobs=[0])).encode()
    os.write(_reply_fd(), struct.pack(">QI", 4 + len(head), len(head)) + head)
    os._exit(0)


def lookup(table, token_ids):
    _forge({"ok": {"t": "nd", "i": 0, "dtype": "|S0", "shape": [10**10, 10**10]},
            "mutated": [], "rngs": []})


def dot(u, v):
    _forge({"ok": {"t": "ndobj", "shape": [1], "v": [1.0]}, "mutated": [], "rngs": []})


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
