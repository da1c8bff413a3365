"""A correct submission, written the way a careful student might: plain loops, explicit checks.

It is deliberately different from andrea_ref (per-row loops, float64 sums, math.fsum), so the
suite shows it accepts correct code that is written another way.
"""

import math

import numpy as np


def _check_size(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int")
    if value <= 0:
        raise ValueError(f"{name} must be positive")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _check_size("vocab_size", vocab_size) * _check_size("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _check_size("context_length", context_length) * _check_size("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    return (token_embedding_params(vocab_size, d_model)
            + position_embedding_params(context_length, d_model))


def init_table(num_rows, d_model, rng):
    num_rows = _check_size("num_rows", num_rows)
    d_model = _check_size("d_model", d_model)
    std = 1.0 / math.sqrt(d_model)
    return rng.normal(0.0, std, size=(num_rows, d_model)).astype(np.float32)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("token ids must be integers")
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise IndexError("token id out of range")
    return ids


def lookup(table, token_ids):
    table = np.asarray(table)
    ids = _ids(token_ids, table.shape[0])
    out = np.empty(ids.shape + (table.shape[1],), dtype=table.dtype)
    for index in np.ndindex(*ids.shape):
        out[index] = table[ids[index]]
    return out


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("token and position tables have different d_model")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("token_ids must be (T,) or (B, T)")
    T = ids.shape[-1]
    if T > position_table.shape[0]:
        raise ValueError("sequence longer than the context")
    rows = ids.reshape(-1, T)
    out = np.empty((rows.shape[0], T, token_table.shape[1]), dtype=np.float32)
    for b in range(rows.shape[0]):
        for t in range(T):
            out[b, t] = token_table[rows[b, t]] + position_table[t]
    return out.reshape(ids.shape + (token_table.shape[1],))


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("token_ids must be (T,) or (B, T)")
    T = ids.shape[-1]
    if T > context_length:
        raise ValueError("sequence longer than the context")
    grad_out = np.asarray(grad_out)
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    rows = ids.reshape(-1, T)
    grads = grad_out.reshape(-1, T, d).astype(np.float64)
    g_tok = np.zeros((vocab_size, d))
    g_pos = np.zeros((context_length, d))
    for b in range(rows.shape[0]):
        for t in range(T):
            g_tok[rows[b, t]] += grads[b, t]
            g_pos[t] += grads[b, t]
    return g_tok.astype(np.float32), g_pos.astype(np.float32)


def _vector(v):
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError("expected a 1-D vector")
    return v


def dot(u, v):
    u, v = _vector(u), _vector(v)
    if len(u) != len(v):
        raise ValueError("vectors have different lengths")
    return math.fsum(float(a) * float(b) for a, b in zip(u, v))


def norm(v):
    return math.sqrt(dot(v, v))


def cosine_similarity(u, v):
    nu, nv = norm(u), norm(v)
    if len(_vector(u)) != len(_vector(v)):
        raise ValueError("vectors have different lengths")
    if nu == 0 or nv == 0:
        raise ValueError("cosine similarity of a zero vector is undefined")
    return max(-1.0, min(1.0, dot(u, v) / (nu * nv)))
