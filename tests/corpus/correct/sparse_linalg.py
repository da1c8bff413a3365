"""Correct, SciPy style: a scipy.sparse one-hot matrix transposed for the token gradient (the
backward may do arithmetic, the lookup may not), np.linalg.norm for the norm and the cosine,
lookups returned as read-only views, init drawn column-major with rng.normal(0, std, size)
then cast (a different but valid use of the same rng), ids accepted as lists or tuples."""

import numbers

import numpy as np
import scipy.sparse as sp


def _size(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"size must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"size must be >= 1, got {value}")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    v, t, d = _size(vocab_size), _size(context_length), _size(d_model)
    return v * d + t * d


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    # drawn as (d, rows) and transposed: Fortran-ordered, same distribution
    return np.asarray(rng.normal(0.0, 1.0 / np.sqrt(d), (d, rows)).astype(np.float32).T)


def _ids(token_ids, rows):
    if isinstance(token_ids, (list, tuple)):
        token_ids = np.array(token_ids)
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu" or ids.dtype == np.bool_:
        raise TypeError("token ids must be integers")
    if np.any(ids < 0) or np.any(ids >= rows):
        raise IndexError(f"token id out of range for {rows} rows")
    return ids


def lookup(table, token_ids):
    out = table[_ids(token_ids, table.shape[0])]
    out.flags.writeable = False
    return out


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    if t > position_table.shape[0]:
        raise ValueError("sequence is longer than the context")
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("tables have different d_model")
    out = np.asfortranarray(lookup(token_table, ids) + position_table[:t])
    return out


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    if t > context_length:
        raise ValueError("sequence is longer than the context")
    grad_out = np.asarray(grad_out)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must be token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    flat = ids.reshape(-1)
    n = flat.size
    onehot = sp.csr_matrix((np.ones(n, dtype=np.float32), (np.arange(n), flat)),
                           shape=(n, vocab_size))
    g_tok = np.asarray((onehot.T @ grad_out.reshape(n, d)), dtype=np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0, dtype=np.float32)
    return g_tok, g_pos


def dot(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("vectors must have the same length")
    return float(u @ v)


def norm(v):
    return float(np.linalg.norm(v))


def cosine_similarity(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("vectors must have the same length")
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("cosine of a zero vector")
    return float(u @ v / nu / nv)
