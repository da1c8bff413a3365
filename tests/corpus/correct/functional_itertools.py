"""Correct, functional style: functools.reduce and itertools for the counts and the vector
sums (a float32 Python loop for the dot, math.hypot for the norm), np.float32 draws straight
from rng.standard_normal(size, dtype=np.float32), int32/uint ids accepted, lookup through
np.take_along_axis-free integer indexing that returns a non-contiguous view-like result."""

import functools
import itertools
import math
import operator

import numpy as np


def _size(value):
    if type(value) is bool or not isinstance(value, (int, np.integer)):
        raise TypeError("size must be an int")
    if value <= 0:
        raise ValueError("size must be positive")
    return int(value)


def _product(*sizes):
    return functools.reduce(operator.mul, map(_size, sizes), 1)


def token_embedding_params(vocab_size, d_model):
    return _product(vocab_size, d_model)


def position_embedding_params(context_length, d_model):
    return _product(context_length, d_model)


def embedding_params(vocab_size, context_length, d_model):
    return sum(itertools.starmap(_product, ((vocab_size, d_model), (context_length, d_model))))


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    table = rng.standard_normal((rows, d), dtype=np.float32)
    table *= np.float32(1.0 / math.sqrt(d))
    return table


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("ids must have an integer dtype")
    ids = ids.astype(np.int64, copy=False) if ids.dtype.kind == "u" else ids
    if ids.size and not (0 <= int(ids.min()) and int(ids.max()) < rows):
        raise IndexError("id out of range")
    return ids


def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    # gather into a wider buffer and return a strided slice of it (non-contiguous, same values)
    buf = np.empty(ids.shape + (2 * table.shape[1],), dtype=table.dtype)
    buf[..., ::2] = table[ids]
    return buf[..., ::2]


def _check_sequence(ids, context):
    if ids.ndim == 1:
        return ids.shape[0]
    if ids.ndim == 2:
        return ids.shape[1]
    raise ValueError("ids must be 1-D or 2-D")


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    t = _check_sequence(ids, position_table.shape[0])
    if t > position_table.shape[0]:
        raise ValueError("too long")
    if position_table.shape[1] != token_table.shape[1]:
        raise ValueError("width mismatch")
    return lookup(token_table, ids) + position_table[np.arange(t)]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _check_sequence(ids, context_length)
    if t > context_length:
        raise ValueError("too long")
    if grad_out.ndim != ids.ndim + 1 or tuple(grad_out.shape[:-1]) != ids.shape:
        raise ValueError("grad_out shape")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    batch = ids.reshape(-1, t)
    grads = grad_out.reshape(-1, t, d)
    for b, p in itertools.product(range(batch.shape[0]), range(t)):
        g_tok[batch[b, p]] += grads[b, p]
        g_pos[p] += grads[b, p]
    return g_tok, g_pos


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("length mismatch")
    acc = np.float32(0) if np.asarray(u).dtype == np.float32 else 0.0
    for a, b in zip(u, v):
        acc += a * b
    return float(acc)


def norm(v):
    return math.hypot(*map(float, v)) if len(v) else 0.0


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("length mismatch")
    nu, nv = norm(u), norm(v)
    if not nu or not nv:
        raise ValueError("zero vector")
    return dot(u, v) / (nu * nv)
