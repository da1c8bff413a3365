"""Correct, minimal style: ids cast to uint64 after the sign check (so negative ids never
wrap), lookup with np.take(..., mode='raise') on a read-only result, the table drawn in a
different order (a row per call to rng), the token gradient via np.bincount on flattened
(id, column) pairs, vectors with np.inner."""

import numpy as np


def _size(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("size must be an integer")
    if value < 1:
        raise ValueError("size must be at least 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return (_size(vocab_size) + _size(context_length)) * _size(d_model)


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    scale = 1.0 / np.sqrt(d)
    return np.array([rng.normal(0.0, scale, d) for _ in range(rows)],
                    dtype=np.float32).reshape(rows, d)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("token ids must be integers")
    if ids.dtype.kind == "i" and ids.size and ids.min() < 0:
        raise IndexError("negative token id")
    ids = ids.astype(np.uint64)
    if ids.size and ids.max() >= rows:
        raise IndexError("token id too large")
    return ids


def lookup(table, token_ids):
    out = np.take(table, _ids(token_ids, table.shape[0]), axis=0, mode="raise")
    out.setflags(write=False)
    return out


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    if ids.shape[-1] > position_table.shape[0]:
        raise ValueError("T exceeds the context")
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model mismatch")
    return token_table[ids] + position_table[: ids.shape[-1]]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    if t > context_length:
        raise ValueError("T exceeds the context")
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out must be ids.shape + (d,)")
    d = grad_out.shape[-1]
    flat = ids.reshape(-1).astype(np.int64)
    cells = (flat[:, None] * d + np.arange(d)[None, :]).reshape(-1)
    g_tok = np.bincount(cells, weights=grad_out.reshape(-1).astype(np.float64),
                        minlength=vocab_size * d).reshape(vocab_size, d).astype(np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0)
    return g_tok, g_pos


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors differ in length")
    return float(np.inner(u, v))


def norm(v):
    return float(np.sqrt(np.inner(v, v)))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors differ in length")
    n = norm(u) * norm(v)
    if n == 0:
        raise ValueError("zero vector")
    return dot(u, v) / n
