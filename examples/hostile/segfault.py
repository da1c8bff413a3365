"""Hostile: cosine_similarity() kills the interpreter with a NULL write through ctypes.

The grader must report the cosine check as an error (crash, SIGSEGV) and keep grading the
rest with a fresh worker: norm() is correct and its check passes.
"""
import ctypes

import numpy as np


def cosine_similarity(u, v):
    ctypes.memset(8, 1, 1)  # write to an unmapped address: SIGSEGV
    return 0.0


def dot(u, v):  # the cosine check needs dot as well
    return float(np.dot(u, v))


def norm(v):
    return float(np.linalg.norm(v))
