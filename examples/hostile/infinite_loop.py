"""Hostile: norm() never returns.

The grader must stop each call at the per-call timeout, kill the worker, report the norm check
as an error ("timeout: norm() did not finish"), stop calling norm after three timeouts, and go
on with a fresh worker: dot() and cosine_similarity() are correct, and the cosine check (graded
after the norm check) must pass.
"""
import numpy as np


def norm(v):
    while True:
        pass


def dot(u, v):
    return float(np.dot(u, v))


def cosine_similarity(u, v):
    return float(np.clip(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)), -1.0, 1.0))
