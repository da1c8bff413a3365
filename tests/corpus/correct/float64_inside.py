"""Correct, "float64 inside" style: every computation in float64 and the result cast to the
input's dtype at the end (the float32 sum of embed, computed in float64 then rounded once more,
is still the float32 sum); the lookup selects rows of the table itself; the token gradient is a
per-column np.bincount with weights (float64) cast to float32; the position gradient np.add.at
on position indices."""
import numpy as np


def _size(x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError("size must be int")
    if x < 1:
        raise ValueError("size must be >= 1")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)


def init_table(num_rows, d_model, rng):
    n, d = _size(num_rows), _size(d_model)
    w = rng.normal(loc=0.0, scale=1.0 / np.sqrt(np.float64(d)), size=(n, d))
    return w.astype(np.float32)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("ids must be integers")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= rows):
        raise IndexError("id out of range")
    return ids.astype(np.int64)


def lookup(table, token_ids):
    return np.take(table, _ids(token_ids, table.shape[0]), axis=0)


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model mismatch")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("bad ids rank")
    T = ids.shape[-1]
    if T > position_table.shape[0]:
        raise ValueError("sequence too long")
    out = token_table.astype(np.float64)[ids] + position_table.astype(np.float64)[:T]
    return out.astype(np.result_type(token_table, position_table))


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("bad ids rank")
    T = ids.shape[-1]
    if T > context_length:
        raise ValueError("sequence too long")
    if grad_out.shape != ids.shape + grad_out.shape[-1:] or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape")
    d = grad_out.shape[-1]
    flat = ids.reshape(-1)
    g = grad_out.reshape(-1, d).astype(np.float64)
    gt = np.stack([np.bincount(flat, weights=g[:, j], minlength=vocab_size) for j in range(d)], axis=1) \
        if d else np.zeros((vocab_size, 0))
    gp = np.zeros((context_length, d), np.float64)
    pos = np.broadcast_to(np.arange(T), ids.shape).reshape(-1)
    np.add.at(gp, pos, g)
    return gt.astype(np.float32), gp.astype(np.float32)


def dot(u, v):
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.shape != v.shape:
        raise ValueError("shapes differ")
    return float(u @ v)


def norm(v):
    v = np.asarray(v, dtype=np.float64)
    return float(np.sqrt(v @ v))


def cosine_similarity(u, v):
    d = dot(u, v)
    a, b = norm(u), norm(v)
    if a == 0 or b == 0:
        raise ValueError("zero vector")
    return d / (a * b)
