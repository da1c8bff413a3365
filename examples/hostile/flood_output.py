"""Hostile: lookup() prints about 10 MB.

The grader must cap the output (1 MiB, first 4 KiB shown), report the lookup check as an error
(output: "lookup() printed more than ..."), and go on with a fresh worker: norm() is correct,
and its check, graded after the lookup check, passes.
"""
import numpy as np


def lookup(table, token_ids):
    for _ in range(100_000):
        print("x" * 100)
    return table[token_ids]


def norm(v):
    return float(np.linalg.norm(v))
