"""Correct, pure Python loops over lists: every sum a running float64 sum in order, the naive
cosine dot / (norm * norm) in float64 (it gives 1.0000000000000002 for parallel vectors)."""

import math

import numpy as np


def _size(value):
    if type(value) is bool or not isinstance(value, (int, np.integer)):
        raise TypeError("sizes must be integers")
    if value < 1:
        raise ValueError("sizes must be at least 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    num_rows, d_model = _size(num_rows), _size(d_model)
    table = np.empty((num_rows, d_model), dtype=np.float32)
    scale = 1.0 / math.sqrt(d_model)
    for r in range(num_rows):
        table[r] = rng.normal(0.0, scale, size=d_model)
    return table


def _check_ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("token ids must be integers")
    for i in ids.reshape(-1).tolist():
        if i < 0 or i >= rows:
            raise IndexError(f"token id {i} is not a row of the table")
    return ids


def lookup(table, token_ids):
    ids = _check_ids(token_ids, len(table))
    out = np.empty(ids.shape + (table.shape[1],), dtype=table.dtype)
    flat_out = out.reshape(-1, table.shape[1])
    for k, i in enumerate(ids.reshape(-1).tolist()):
        flat_out[k] = table[i]
    return out


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("token and position tables have different d_model")
    ids = _check_ids(token_ids, len(token_table))
    if ids.ndim not in (1, 2) or ids.shape[-1] > len(position_table):
        raise ValueError("the sequence does not fit the position table")
    x = lookup(token_table, ids)
    for t in range(ids.shape[-1]):
        x[..., t, :] += position_table[t]
    return x


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _check_ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("the sequence does not fit the context")
    if tuple(grad_out.shape[:-1]) != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out does not match the ids")
    d = grad_out.shape[-1]
    g_tok = [[0.0] * d for _ in range(vocab_size)]
    g_pos = [[0.0] * d for _ in range(context_length)]
    t_len = ids.shape[-1]
    for k, (i, row) in enumerate(zip(ids.reshape(-1).tolist(), grad_out.reshape(-1, d).tolist())):
        t = k % t_len
        for j in range(d):
            g_tok[i][j] += row[j]
            g_pos[t][j] += row[j]
    return np.array(g_tok, dtype=np.float32), np.array(g_pos, dtype=np.float32)


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    total = 0.0
    for a, b in zip(u, v):
        total += float(a) * float(b)
    return total


def norm(v):
    return math.sqrt(dot(v, v))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("the cosine of a zero vector is undefined")
    return dot(u, v) / (nu * nv)
