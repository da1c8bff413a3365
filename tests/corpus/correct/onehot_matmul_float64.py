"""Correct, linear-algebra style: lookup by np.take(mode="raise") after an explicit range
check (np.take would wrap negative ids), embed computed in float64 and cast once (one float32
addition rounded once is the float32 sum), backward as a one-hot matrix product
(one_hot.T @ grad in float64), position gradient with np.einsum, vectors via np.vdot and
math.sqrt, the cosine of unit vectors."""

import math

import numpy as np


def _n(x):
    if type(x) is bool or not isinstance(x, (int, np.integer)):
        raise TypeError(f"expected an integer size, got {x!r}")
    if int(x) < 1:
        raise ValueError(f"expected a positive size, got {x!r}")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _n(vocab_size) * _n(d_model)


def position_embedding_params(context_length, d_model):
    return _n(context_length) * _n(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    n, d = _n(num_rows), _n(d_model)
    child = np.random.default_rng(rng.integers(0, 2**63))   # drawn from rng: reproducible
    return (child.standard_normal((d, n)).T * d ** -0.5).astype(np.float32, order="C")


def _checked(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must have an integer dtype")
    if ids.size and not (0 <= ids.min() and ids.max() < rows):
        raise IndexError("id out of range")
    return ids


def lookup(table, token_ids):
    return np.take(table, _checked(token_ids, len(table)), axis=0, mode="raise")


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs")
    ids = _checked(token_ids, len(token_table))
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be 1-D or 2-D")
    T = ids.shape[-1]
    if T > len(position_table):
        raise ValueError("T > context")
    x = token_table.astype(np.float64)[ids] + position_table[:T].astype(np.float64)
    return x.astype(np.float32)


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _checked(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be 1-D or 2-D")
    T = ids.shape[-1]
    if T > context_length:
        raise ValueError("T > context")
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out must be ids.shape + (d,)")
    d = grad_out.shape[-1]
    g = grad_out.reshape(-1, d).astype(np.float64)
    one_hot = np.zeros((ids.size, vocab_size))
    one_hot[np.arange(ids.size), ids.reshape(-1)] = 1.0
    g_tok = (one_hot.T @ g).astype(np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:T] = np.einsum("btd->td", grad_out.reshape(-1, T, d).astype(np.float64))
    return g_tok, g_pos


def dot(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("shapes differ")
    return float(np.vdot(u.astype(np.float64), v.astype(np.float64)))


def norm(v):
    return math.sqrt(dot(v, v))


def cosine_similarity(u, v):
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    if u.shape != v.shape:
        raise ValueError("shapes differ")
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("zero vector")
    return dot(u / nu, v / nv)
