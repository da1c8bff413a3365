"""Correct, "statistics" style: the table drawn with scipy.stats.norm.rvs(random_state=rng)
(the caller's Generator), float32 scale applied with a Python float (stays float32), ids of
any integer dtype converted to intp with a checked cast, embed through np.add with dtype=,
backward through scipy.sparse.csr_matrix((data, (ids, arange))) products, norm with
np.hypot.reduce, cosine via scipy.spatial.distance.cdist."""

import math

import numpy as np
import scipy.sparse as sp


def _positive_int(value):
    if type(value) is bool or not isinstance(value, (int, np.integer)):
        raise TypeError("expected an int")
    if value < 1:
        raise ValueError("expected >= 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return math.prod(map(_positive_int, (vocab_size, d_model)))


def position_embedding_params(context_length, d_model):
    return math.prod(map(_positive_int, (context_length, d_model)))


def embedding_params(vocab_size, context_length, d_model):
    v, t, d = map(_positive_int, (vocab_size, context_length, d_model))
    return v * d + t * d


def init_table(num_rows, d_model, rng):
    from scipy import stats

    n, d = _positive_int(num_rows), _positive_int(d_model)
    return stats.norm.rvs(loc=0.0, scale=1.0, size=(n, d), random_state=rng).astype(
        np.float32) * (1.0 / math.sqrt(d))


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"ids must be integers, not {ids.dtype}")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= rows):
        raise IndexError("id out of range")
    return ids.astype(np.intp, casting="safe" if ids.dtype.itemsize < 8 else "same_kind")


def lookup(table, token_ids):
    return table[_ids(token_ids, table.shape[0]), :]


def _seq(ids, context):
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    if ids.shape[-1] > context:
        raise ValueError("sequence too long")
    return ids.shape[-1]


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model mismatch")
    ids = _ids(token_ids, token_table.shape[0])
    t = _seq(ids, position_table.shape[0])
    return np.add(token_table[ids], position_table[:t], dtype=np.float32)


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _seq(ids, context_length)
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape")
    d = grad_out.shape[-1]
    g = grad_out.reshape(-1, d)
    n = g.shape[0]
    tok = sp.csr_matrix((np.ones(n, np.float32), (ids.reshape(-1), np.arange(n))),
                        shape=(vocab_size, n))
    pos = sp.csr_matrix((np.ones(n, np.float32), (np.tile(np.arange(t), n // t), np.arange(n))),
                        shape=(context_length, n))
    return (np.asarray(tok @ g, dtype=np.float32), np.asarray(pos @ g, dtype=np.float32))


def dot(u, v):
    u, v = np.asarray(u, float), np.asarray(v, float)
    if u.shape != v.shape:
        raise ValueError("different lengths")
    return float(u @ v)


def norm(v):
    v = np.asarray(v, float)
    return float(np.hypot.reduce(v)) if v.size else 0.0


def cosine_similarity(u, v):
    from scipy.spatial.distance import cdist

    u, v = np.asarray(u, float), np.asarray(v, float)
    if u.shape != v.shape:
        raise ValueError("different lengths")
    if not u.any() or not v.any():
        raise ValueError("zero vector")
    return 1.0 - float(cdist(u[None], v[None], metric="cosine")[0, 0])
