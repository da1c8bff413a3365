"""Correct, "let NumPy raise" style: only the checks NumPy does not do itself are written out
(integer dtype, negative ids, the sequence length and d_model in embed, whose broadcasting
would let a 1-row table through, zero vectors); an id >= rows raises IndexError from
np.take's mode="raise", vectors of different lengths ValueError from np.dot, and a grad_out
of the wrong shape ValueError from np.add.at."""

import numpy as np


def _size(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("size must be an int")
    if n < 1:
        raise ValueError("size must be >= 1")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    return (rng.standard_normal((_size(num_rows), _size(d_model)), dtype=np.float32)
            / np.float32(np.sqrt(d_model)))


def _ids(token_ids):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must be integers")
    if (ids < 0).any():
        raise IndexError("negative token id")
    return ids


def lookup(table, token_ids):
    return np.take(table, _ids(token_ids), axis=0, mode="raise")


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    T = ids.shape[-1]
    # broadcasting alone would let a 1-row position table or d_model = 1 through
    if T > position_table.shape[0] or token_table.shape[1] != position_table.shape[1]:
        raise ValueError("sequence longer than the context, or tables of different d_model")
    return np.take(token_table, ids, axis=0, mode="raise") + position_table[:T]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    if (ids >= vocab_size).any():
        raise IndexError("token id >= vocab_size")
    T = ids.shape[-1]
    if T > context_length:
        raise ValueError("T > context_length")
    grad_out = np.asarray(grad_out)
    if grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out must have one axis more than the ids")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(g_tok, ids, grad_out)                      # ValueError if the shapes differ
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:T] = grad_out.reshape(-1, T, d).sum(axis=0)
    return g_tok, g_pos


def dot(u, v):
    return float(np.dot(u, v))                           # ValueError if the lengths differ


def norm(v):
    return float(np.sqrt(np.dot(v, v)))


def cosine_similarity(u, v):
    d = np.dot(u, v)
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("zero vector")
    return float(d / (nu * nv))
