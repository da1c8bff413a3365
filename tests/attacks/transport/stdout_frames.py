"""Hostile (fake protocol on stdout and stderr): writes, on its standard output and error
and straight to file descriptors 1 and 2, byte strings shaped like the grader's frames (a
length prefix and a JSON header claiming {"ok": ...} results and full marks), at import and in
every call.

Expected: standard output is not the channel: the bytes are at most shown (bounded, inert) as
what the submission printed; the checks are judged on the real replies (dot passes, norm
fails: it returns 0.0).
"""
import json
import os
import struct
import sys

import numpy as np

_FAKE = json.dumps({"ok": 1.0, "score": 100, "max_score": 100, "mutated": [], "rngs": []}).encode()
_FRAME = struct.pack("<Q", len(_FAKE)) + _FAKE


def _spray():
    for fd in (1, 2):
        try:
            os.write(fd, _FRAME * 4)
        except OSError:
            pass
    sys.stdout.buffer.write(_FRAME)
    sys.stdout.flush()


_spray()


def dot(u, v):
    _spray()
    if len(u) != len(v):
        raise ValueError("lengths differ")
    return float(np.dot(u, v))


def norm(v):
    _spray()
    return 0.0
