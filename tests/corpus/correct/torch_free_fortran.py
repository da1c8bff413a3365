"""Correct, "defensive" style: int32 ids everywhere (ids converted with astype(np.intp) after
validation), Fortran-ordered outputs, the token gradient via np.add.at on a float64 buffer cast
at the end, the sequence check written as slicing, math.sqrt(sum(x*x)) for the norm, the
cosine clipped into [-1, 1], errors raised as custom subclasses."""

import math

import numpy as np


class SizeError(ValueError):
    pass


class IdRangeError(IndexError, KeyError):
    pass


class IdTypeError(TypeError):
    pass


def _size(value):
    if isinstance(value, (bool, np.bool_)):
        raise IdTypeError("size is a bool")
    if not isinstance(value, (int, np.integer)):
        raise IdTypeError("size is not an integer")
    if int(value) < 1:
        raise SizeError("size below 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return int(np.prod([_size(vocab_size), _size(d_model)], dtype=np.int64))


def position_embedding_params(context_length, d_model):
    return int(np.prod([_size(context_length), _size(d_model)], dtype=np.int64))


def embedding_params(vocab_size, context_length, d_model):
    d = _size(d_model)
    return (_size(vocab_size) + _size(context_length)) * d


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    out = np.empty((rows, d), dtype=np.float32, order="F")
    out[...] = rng.normal(loc=0.0, scale=math.sqrt(1.0 / d), size=(rows, d))
    return out


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise IdTypeError(f"ids of dtype {ids.dtype}")
    if ((ids < 0) | (ids >= rows)).any():
        raise IdRangeError("id outside the table")
    return ids.astype(np.intp)


def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    return np.asfortranarray(table[ids])


def _t(ids, context):
    if ids.ndim not in (1, 2):
        raise SizeError("ids must be (T,) or (B, T)")
    if len(range(context)[: ids.shape[-1]]) < ids.shape[-1]:
        raise SizeError("longer than the context")
    return ids.shape[-1]


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    t = _t(ids, position_table.shape[0])
    if token_table.shape[1] != position_table.shape[1]:
        raise SizeError("d_model mismatch")
    out = np.empty(ids.shape + (token_table.shape[1],), dtype=token_table.dtype, order="F")
    np.add(token_table[ids], position_table[:t], out=out)
    return out


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _t(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise SizeError("grad_out shape mismatch")
    d = grad_out.shape[-1]
    acc = np.zeros((vocab_size, d), dtype=np.float64)
    np.add.at(acc, ids.ravel(), grad_out.reshape(-1, d).astype(np.float64))
    g_pos = np.zeros((context_length, d), dtype=np.float64)
    g_pos[:t] = grad_out.reshape(-1, t, d).astype(np.float64).sum(axis=0)
    return acc.astype(np.float32), g_pos.astype(np.float32)


def dot(u, v):
    if len(u) != len(v):
        raise SizeError("lengths differ")
    return sum(float(a) * float(b) for a, b in zip(u, v))


def norm(v):
    return math.sqrt(sum(float(x) * float(x) for x in v))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise SizeError("lengths differ")
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise SizeError("zero vector")
    return max(-1.0, min(1.0, dot(u, v) / (nu * nv)))
