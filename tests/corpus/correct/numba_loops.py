"""Correct, compiled-loop style: the lookup, embed and backward are explicit loops compiled with
numba's @njit (cache=True, which falls back quietly where the folder is read-only); the
argument checks stay in Python; the table is drawn with Box-Muller from rng.random (every draw
from the caller's generator); vectors in compiled float64 loops. Where numba may not be
imported (it is not on the grader's list of importable packages) the same loops run as plain
Python, as students write the fallback."""

import numpy as np
try:
    from numba import njit
except ImportError:      # where numba may not be imported (the grader's list): plain Python
    def njit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f


def _size(x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError("size must be an integer")
    if x < 1:
        raise ValueError("size must be >= 1")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return (_size(vocab_size) + _size(context_length)) * _size(d_model)


def init_table(num_rows, d_model, rng):
    n, d = _size(num_rows), _size(d_model)
    k = (n * d + 1) // 2
    u1 = 1.0 - rng.random(k)             # (0, 1]
    u2 = rng.random(k)
    r = np.sqrt(-2.0 * np.log(u1))
    z = np.concatenate([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)])[: n * d]
    return (z.reshape(n, d) / np.sqrt(d)).astype(np.float32)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must be integers")
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise IndexError("id out of range")
    return ids.astype(np.int64)          # (np.ascontiguousarray would make 0-d ids 1-d)


@njit(cache=True)
def _gather(table, flat, out):
    for i in range(flat.shape[0]):
        out[i, :] = table[flat[i], :]


@njit(cache=True)
def _scatter(flat, g, t, g_tok, g_pos):
    for i in range(flat.shape[0]):
        g_tok[flat[i], :] += g[i, :]
        g_pos[i % t, :] += g[i, :]


def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    table = np.ascontiguousarray(table)
    out = np.empty((ids.size, table.shape[1]), dtype=table.dtype)
    _gather(table, ids.reshape(-1), out)
    return out.reshape(ids.shape + table.shape[1:])


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2) or ids.shape[-1] > position_table.shape[0]:
        raise ValueError("bad sequence")
    return lookup(token_table, ids) + position_table[: ids.shape[-1]]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("bad sequence")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out shape")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), np.float32)
    g_pos = np.zeros((context_length, d), np.float32)
    _scatter(ids.reshape(-1), np.ascontiguousarray(grad_out.reshape(-1, d), dtype=np.float32),
             ids.shape[-1], g_tok, g_pos)
    return g_tok, g_pos


@njit(cache=True)
def _dot(u, v):
    s = 0.0
    for i in range(u.shape[0]):
        s += u[i] * v[i]
    return s


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("different lengths")
    return _dot(np.asarray(u, np.float64), np.asarray(v, np.float64))


def norm(v):
    w = np.asarray(v, np.float64)
    return float(np.sqrt(_dot(w, w)))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("different lengths")
    a, b = norm(u), norm(v)
    if a == 0 or b == 0:
        raise ValueError("zero vector")
    return dot(u, v) / (a * b)
