"""Correct, functional ("jax-like") style with NumPy only: no mutation anywhere, arrays built by
np.where / np.einsum / comprehension; the token gradient is an einsum of a one-hot matrix with
grad_out (the backward may do arithmetic); positions via jnp-like broadcasting; vectors with
np.einsum; errors raised from small pure validators."""
from functools import partial, reduce

import numpy as np

_validate_size = lambda n: (_ for _ in ()).throw(TypeError("integer size")) \
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) else \
    ((_ for _ in ()).throw(ValueError("size < 1")) if n < 1 else int(n))


def token_embedding_params(vocab_size, d_model):
    return reduce(lambda a, b: a * b, map(_validate_size, (vocab_size, d_model)))


position_embedding_params = token_embedding_params.__call__


def embedding_params(vocab_size, context_length, d_model):
    v, t, d = map(_validate_size, (vocab_size, context_length, d_model))
    return (v + t) * d


def init_table(num_rows, d_model, rng):
    n, d = map(_validate_size, (num_rows, d_model))
    return np.asarray(rng.standard_normal(size=(n, d)) * d ** -0.5, dtype=np.float32)


def _checked(ids, rows):
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids: integers only")
    if np.any((ids < 0) | (ids >= rows)):
        raise IndexError("ids out of range")
    return ids


def lookup(table, token_ids):
    return table[_checked(token_ids, len(table))]


def _seq_len(ids, ctx):
    if ids.ndim not in (1, 2) or ids.shape[-1] > ctx:
        raise ValueError("ids must be (T,) or (B, T) with T <= context")
    return ids.shape[-1]


def embed(token_ids, token_table, position_table):
    if token_table.shape[-1] != position_table.shape[-1]:
        raise ValueError("d_model")
    ids = _checked(token_ids, len(token_table))
    T = _seq_len(ids, len(position_table))
    return lookup(token_table, ids) + lookup(position_table, np.arange(T))


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _checked(token_ids, vocab_size)
    T = _seq_len(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out shape")
    flat = ids.reshape(-1)
    onehot = (flat[:, None] == np.arange(vocab_size)[None, :]).astype(np.float32)
    g = grad_out.reshape(-1, grad_out.shape[-1])
    gt = np.einsum("nv,nd->vd", onehot, g).astype(np.float32)
    gp_used = grad_out.reshape(-1, T, grad_out.shape[-1]).sum(axis=0)
    gp = np.concatenate([gp_used, np.zeros((context_length - T, grad_out.shape[-1]), gp_used.dtype)])
    return gt, gp.astype(np.float32)


def dot(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("lengths differ")
    return float(np.einsum("i,i->", u, v))


norm = lambda v: float(np.sqrt(np.einsum("i,i->", v, v)))


def cosine_similarity(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("lengths differ")
    nu, nv = norm(u), norm(v)
    if not nu or not nv:
        raise ValueError("zero vector")
    return dot(u, v) / (nu * nv)
