"""Hostile (slow but under the limit): every call takes a bit less than the per-call timeout,
so no single call ever times out; without a total budget it would hold a grading slot for a
very long time.

Expected: once the budget is used up the submission is not called again; the checks that did
not get to run are reported as "not run: budget exhausted".
"""
import time

import numpy as np

DELAY = 0.9   # the tests run it with a 1.5 s call timeout and a 4 s budget


def dot(u, v):
    time.sleep(DELAY)
    return float(np.dot(u, v))


def norm(v):
    time.sleep(DELAY)
    return float(np.sqrt(np.dot(v, v)))


def cosine_similarity(u, v):
    time.sleep(DELAY)
    return float(np.dot(u, v) / (np.sqrt(np.dot(u, u)) * np.sqrt(np.dot(v, v))))
