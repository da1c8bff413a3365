"""A submission with one classic bug: in embed_backward, ``grad[ids] += rows`` with NumPy fancy
indexing adds each repeated id only once (the last write wins), so repeated tokens lose
gradient. Everything else is correct. The suite should fail BWD-TOK-01 and say why.
"""

import numpy as np


def _size(name, n):
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"{name} must be an integer")
    if n < 1:
        raise ValueError(f"{name} must be >= 1")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    return _size("vocab_size", vocab_size) * _size("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _size("context_length", context_length) * _size("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)


def init_table(num_rows, d_model, rng):
    scale = np.float32(1 / np.sqrt(_size("d_model", d_model)))
    return rng.standard_normal((_size("num_rows", num_rows), d_model), dtype=np.float32) * scale


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("token ids must be integers")
    if ids.size and not (0 <= ids.min() and ids.max() < rows):
        raise IndexError("token id out of range")
    return ids


def lookup(table, token_ids):
    return np.take(table, _ids(token_ids, len(table)), axis=0)


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, len(token_table))
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model mismatch")
    if ids.ndim not in (1, 2) or ids.shape[-1] > len(position_table):
        raise ValueError("ids must be (T,) or (B, T) with T <= context")
    return np.take(token_table, ids, axis=0) + position_table[: ids.shape[-1]]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("ids must be (T,) or (B, T) with T <= context")
    if grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out does not match ids")
    d = grad_out.shape[-1]
    grad_token = np.zeros((vocab_size, d), dtype=np.float32)
    grad_token[ids.reshape(-1)] += grad_out.reshape(-1, d)  # BUG: repeated ids counted once
    grad_position = np.zeros((context_length, d), dtype=np.float32)
    grad_position[: ids.shape[-1]] = grad_out.reshape(-1, ids.shape[-1], d).sum(axis=0)
    return grad_token, grad_position


def _pair(u, v):
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if u.ndim != 1 or u.shape != v.shape:
        raise ValueError("u and v must be 1-D vectors of the same length")
    return u, v


def dot(u, v):
    u, v = _pair(u, v)
    return float(u @ v)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def cosine_similarity(u, v):
    u, v = _pair(u, v)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("cosine similarity of a zero vector is undefined")
    return float(np.clip(u @ v / (nu * nv), -1, 1))
