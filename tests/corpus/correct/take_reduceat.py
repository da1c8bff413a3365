"""Correct, ufunc style: np.take for the lookup, a sort plus np.add.reduceat for the token
gradient, np.add.reduce for the sums, cosine computed in float64 whatever the input dtype."""

import numbers

import numpy as np


def _size(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("sizes must be integers")
    if value < 1:
        raise ValueError("sizes must be at least 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return sum((token_embedding_params(vocab_size, d_model),
                position_embedding_params(context_length, d_model)))


def init_table(num_rows, d_model, rng):
    num_rows, d_model = _size(num_rows), _size(d_model)
    return rng.normal(scale=d_model ** -0.5, size=(num_rows, d_model)).astype(np.float32)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not (np.issubdtype(ids.dtype, np.signedinteger) or np.issubdtype(ids.dtype, np.unsignedinteger)):
        raise TypeError("token ids must be integers")
    bad = (ids < 0) | (ids >= rows)
    if np.any(bad):
        raise IndexError(f"token id {ids[bad].flat[0]} out of range [0, {rows})")
    return ids


def lookup(table, token_ids):
    return np.take(table, _ids(token_ids, table.shape[0]), axis=0)


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    if token_table.shape[-1] != position_table.shape[-1]:
        raise ValueError("d_model mismatch")
    if ids.ndim == 0 or ids.ndim > 2 or ids.shape[-1] > position_table.shape[0]:
        raise ValueError("bad sequence shape")
    t = ids.shape[-1]
    return np.add(np.take(token_table, ids, axis=0), np.take(position_table, np.arange(t), axis=0))


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim == 0 or ids.ndim > 2 or ids.shape[-1] > context_length:
        raise ValueError("bad sequence shape")
    if grad_out.shape != ids.shape + grad_out.shape[ids.ndim:] or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape does not match token_ids")
    d, t = grad_out.shape[-1], ids.shape[-1]
    flat, rows = ids.reshape(-1), grad_out.reshape(-1, d)
    order = np.argsort(flat, kind="stable")
    sorted_ids = flat[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    g_tok[sorted_ids[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = np.add.reduce(grad_out.reshape(-1, t, d), axis=0)
    return g_tok, g_pos


def _pair(u, v):
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if u.shape != v.shape:
        raise ValueError("vectors of different length")
    return u, v


def dot(u, v):
    u, v = _pair(u, v)
    return float(np.add.reduce(u * v))


def norm(v):
    v = np.asarray(v, dtype=np.float64)
    return float(np.sqrt(np.add.reduce(v * v)))


def cosine_similarity(u, v):
    u, v = _pair(u, v)
    nu, nv = norm(u), norm(v)
    if not (nu and nv):
        raise ValueError("the cosine of a zero vector is undefined")
    return dot(u, v) / nu / nv
