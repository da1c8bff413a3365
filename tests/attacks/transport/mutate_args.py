"""Hostile (argument mutation): every function zeroes or scribbles on its arguments in place
and then returns what would be right for the zeroed inputs (dot/norm/cosine return 0.0),
hoping the grader computes its expectations from the mutated arrays afterwards.

Expected: the grader's own arrays never change and its expectations come from its copies, so
the values for zeroed inputs fail; the mutation is charged once, under EMB-PURE-01 ("changed
its input in place").
"""
import numpy as np


def dot(u, v):
    u[...] = 0
    v[...] = 0
    return 0.0


def norm(v):
    v[...] = 0
    return 0.0


def cosine_similarity(u, v):
    u[...] = 0
    return 0.0


def lookup(table, token_ids):
    out = np.asarray(table)[np.asarray(token_ids)].copy()
    table[...] = 0
    return out


def embed(token_ids, token_table, position_table):
    ids = np.asarray(token_ids)
    out = token_table[ids] + position_table[: ids.shape[-1]]
    if isinstance(token_ids, np.ndarray) and token_ids.size:
        token_ids.flat[0] = 0
    return out.astype(token_table.dtype)


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    grad_out[...] = 0
    d = grad_out.shape[-1]
    return (np.zeros((vocab_size, d), grad_out.dtype), np.zeros((context_length, d), grad_out.dtype))
