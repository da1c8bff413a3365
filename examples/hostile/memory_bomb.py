"""Hostile: embed_backward() allocates memory without bound.

The address-space limit must stop it: the grader reports the backward check as an error
(resources) instead of running out of memory itself, and grading goes on with a fresh worker:
norm() is correct, and its check, graded after the backward check, passes.
"""
import numpy as np


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


def norm(v):
    return float(np.linalg.norm(v))
