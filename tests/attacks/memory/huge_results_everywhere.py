"""Hostile (grader memory): every contract function answers every call with the largest result
a reply may carry.

A reply may be up to 384 MiB (`one reply` in docs/grading.md's limits). Every function of the
contract (the counts, init_table, lookup, embed, embed_backward, the vector functions, the
optional encodings) returns the same float64 array of 47 million zeros (376 MB), whatever it
is asked, so that every check of every group reads it, converts it, and fails with it.

Expected: no such reply is read. The contract fixes how many values each function returns for
its arguments (graders/conformance/results.py), the worker answers a larger result with its
size alone, and each check fails with "returned 47000000 values where N were expected"; the
grader's memory stays under 1.5 GB for the whole grade (it held 7.5 GB for three functions
answering so).
"""
import numpy as np

_BIG = None


def _big(*args, **kwargs):
    global _BIG
    if _BIG is None:
        _BIG = np.zeros(47_000_000)
    return _BIG


token_embedding_params = position_embedding_params = embedding_params = _big
init_table = lookup = embed = embed_backward = _big
dot = norm = cosine_similarity = _big
sinusoidal_encoding = rope = _big
