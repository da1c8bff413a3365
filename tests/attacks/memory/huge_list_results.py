"""Hostile (grader memory): results as nested Python lists, which cross as the reply's JSON
header rather than as array bytes.

lookup and embed return a list of 4096 lists of 256 floats (a million Python floats: about
16 MiB of JSON, the header's cap) for every call; read whole, each becomes a million Python
objects in the grader (tens of MB) and an array when a check reads it.

Expected: the contract's bound counts a list's values as an array's, so no such reply is read:
each check fails with "returned N values where M were expected", the grader's memory stays
far below 1.5 GB, and `norm` passes.
"""
import math

import numpy as np

_ROWS = None


def _rows(*args, **kwargs):
    global _ROWS
    if _ROWS is None:
        _ROWS = [[0.5] * 256 for _ in range(4096)]
    return _ROWS


lookup = embed = _rows


def norm(v):
    return math.sqrt(float(np.dot(v, v)))
