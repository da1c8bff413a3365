"""Hostile (grader memory): results as large as the contract's bound lets through, and no larger.

A result is read only when it holds at most twice the values the contract gives for the
arguments, and 4096 more (graders/conformance/results.py: SLACK, FLOOR). This submission
answers each call with a float64 array of exactly that many values (wrong, so every check
fails and shrinks): at the spec's sizes embed_backward(ids, grad, 8449, 1024) and
init_table(8449, 768) give 14.5 and 13 million values (116 and 104 MB), the largest results
any check reads.

Expected: the grader's memory stays under 1.5 GB: a failing check keeps no result (its
failure keeps text), a result of the wrong shape is judged before it is converted or copied.
"""
import math

import numpy as np

SLACK, FLOOR = 2, 4096


def _size(x):
    return int(np.size(x))


def _at_bound(want):
    return np.zeros(SLACK * int(want) + FLOOR)


def init_table(num_rows, d_model, rng):
    return _at_bound(num_rows * d_model)


def lookup(table, token_ids):
    return _at_bound(_size(token_ids) * np.shape(table)[-1])


def embed(token_ids, token_table, position_table):
    return _at_bound(_size(token_ids) * np.shape(token_table)[-1])


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    return _at_bound((vocab_size + context_length) * np.shape(grad_out)[-1])


def sinusoidal_encoding(positions, d_model):
    return _at_bound(_size(positions) * d_model)


def rope(x, positions):
    return _at_bound(_size(x))


def dot(u, v):
    return _at_bound(1)


def norm(v):
    return math.sqrt(float(np.dot(v, v)))
