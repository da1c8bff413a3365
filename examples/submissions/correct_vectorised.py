"""A second correct submission, vectorised differently from andrea_ref.

Forward by fancy indexing and broadcasting; backward by sorting the ids and summing each run
of equal ids with np.add.reduceat; vectors in float32 with np.dot.
"""

import numpy as np


def _positive_int(name, value):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{name}: expected int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name}: expected >= 1, got {value}")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _positive_int("vocab_size", vocab_size) * _positive_int("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _positive_int("context_length", context_length) * _positive_int("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    d = _positive_int("d_model", d_model)
    return (_positive_int("vocab_size", vocab_size) + _positive_int("context_length", context_length)) * d


def init_table(num_rows, d_model, rng):
    shape = (_positive_int("num_rows", num_rows), _positive_int("d_model", d_model))
    return (rng.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)


def _checked_ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"ids must be integers, got {ids.dtype}")
    if ((ids < 0) | (ids >= rows)).any():
        raise IndexError(f"ids must lie in [0, {rows})")
    return ids


def lookup(table, token_ids):
    return table[_checked_ids(token_ids, table.shape[0])]


def embed(token_ids, token_table, position_table):
    ids = _checked_ids(token_ids, token_table.shape[0])
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    if ids.ndim not in (1, 2) or ids.shape[-1] > position_table.shape[0]:
        raise ValueError("ids must be (T,) or (B, T) with T <= context length")
    return token_table[ids] + position_table[: ids.shape[-1]]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _checked_ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("ids must be (T,) or (B, T) with T <= context length")
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape does not match the ids")
    d = grad_out.shape[-1]
    flat, rows = ids.ravel(), grad_out.reshape(-1, d)
    order = np.argsort(flat, kind="stable")
    sorted_ids = flat[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    g_tok[sorted_ids[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[: ids.shape[-1]] = grad_out.reshape(-1, ids.shape[-1], d).sum(axis=0)
    return g_tok, g_pos


def _pair(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.ndim != 1 or u.shape != v.shape:
        raise ValueError(f"need two 1-D vectors of one length, got {u.shape} and {v.shape}")
    return u, v


def dot(u, v):
    return float(np.dot(*_pair(u, v)))


def norm(v):
    v = np.asarray(v)
    return float(np.sqrt(np.dot(v, v)))


def cosine_similarity(u, v):
    u, v = _pair(u, v)
    denominator = norm(u) * norm(v)
    if denominator == 0:
        raise ValueError("cosine similarity is undefined for a zero vector")
    return float(np.clip(dot(u, v) / denominator, -1.0, 1.0))
