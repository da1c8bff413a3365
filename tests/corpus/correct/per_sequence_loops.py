"""Correct, loops per sequence and per position, as a student writes it from the definition:
for each sequence b, for each position t, out[b, t] = token_table[ids[b, t]] + position_table[t]
(one sequence is a batch of one); the backward loops the same way and accumulates."""

import numpy as np


def _positive_int(n):
    if type(n) is bool or not isinstance(n, (int, np.integer)):
        raise TypeError("expected an integer size")
    if n <= 0:
        raise ValueError("size must be >= 1")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    return _positive_int(vocab_size) * _positive_int(d_model)


def position_embedding_params(context_length, d_model):
    return _positive_int(context_length) * _positive_int(d_model)


def embedding_params(vocab_size, context_length, d_model):
    v, t, d = (_positive_int(vocab_size), _positive_int(context_length), _positive_int(d_model))
    return v * d + t * d


def init_table(num_rows, d_model, rng):
    rows, d = _positive_int(num_rows), _positive_int(d_model)
    return rng.normal(0.0, 1.0 / np.sqrt(d), size=(rows, d)).astype(np.float32)


def _check_ids(ids, rows):
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("token ids must be integers")
    for i in ids.reshape(-1):
        if i < 0 or i >= rows:
            raise IndexError(f"token id {i} out of range")
    return ids


def lookup(table, token_ids):
    ids = _check_ids(token_ids, table.shape[0])
    flat = ids.reshape(-1)
    out = np.empty((flat.size,) + table.shape[1:], dtype=table.dtype)
    for k in range(flat.size):
        out[k] = table[flat[k]]
    return out.reshape(ids.shape + table.shape[1:])


def _as_batch(ids, context):
    if ids.ndim == 1:
        return ids[None, :], True
    if ids.ndim != 2:
        raise ValueError("token ids must be (T,) or (B, T)")
    if ids.shape[1] > context:
        raise ValueError("sequence longer than the context")
    return ids, False


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("the tables must have the same d_model")
    ids = _check_ids(token_ids, token_table.shape[0])
    batch, single = _as_batch(ids, position_table.shape[0])
    if batch.shape[1] > position_table.shape[0]:
        raise ValueError("sequence longer than the context")
    B, T = batch.shape
    out = np.empty((B, T, token_table.shape[1]), dtype=token_table.dtype)
    for b in range(B):
        for t in range(T):
            out[b, t] = token_table[batch[b, t]] + position_table[t]
    return out[0] if single else out


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _check_ids(token_ids, vocab_size)
    batch, _ = _as_batch(ids, context_length)
    if batch.shape[1] > context_length:
        raise ValueError("sequence longer than the context")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must be ids.shape + (d_model,)")
    g = grad_out.reshape(batch.shape + grad_out.shape[-1:])
    d = g.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    B, T = batch.shape
    for b in range(B):
        for t in range(T):
            g_tok[batch[b, t]] += g[b, t]
            g_pos[t] += g[b, t]
    return g_tok, g_pos


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors must have the same length")
    return float(np.dot(u, v))


def norm(v):
    return float(np.linalg.norm(v))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors must have the same length")
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector")
    return float(np.dot(u, v) / (nu * nv))
