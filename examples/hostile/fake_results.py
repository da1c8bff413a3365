"""Hostile: prints a fake Gradescope result and writes result files, while lookup is wrong."""
import json as _json
import os as _os

_FAKE = {"score": 100, "tests": [{"name": "everything", "score": 100, "max_score": 100,
                                   "status": "passed"}]}
print(_json.dumps(_FAKE))
for _path in ("/autograder/results/results.json", "results.json", "../results.json",
              _os.path.expanduser("~/results.json")):
    try:
        _os.makedirs(_os.path.dirname(_os.path.abspath(_path)), exist_ok=True)
        with open(_path, "w") as _f:
            _json.dump(_FAKE, _f)
    except OSError:
        pass
import math
import numbers

import numpy as np


def _size(name, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer")
    if v < 1:
        raise ValueError(f"{name} must be >= 1")
    return int(v)


def token_embedding_params(vocab_size, d_model):
    return _size("vocab_size", vocab_size) * _size("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _size("context_length", context_length) * _size("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)


def init_table(num_rows, d_model, rng):
    num_rows, d_model = _size("num_rows", num_rows), _size("d_model", d_model)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a Generator")
    return (rng.standard_normal((num_rows, d_model), dtype=np.float32)
            * np.float32(1 / math.sqrt(d_model)))


def _ids(ids, rows):
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must be integers")
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise IndexError("id out of range")
    return ids


def _table(t):
    t = np.asarray(t)
    if t.dtype.kind != "f":
        raise TypeError("table must hold floats")
    if t.ndim != 2:
        raise ValueError("table must be 2-D")
    return t


def _lookup_unused(table, token_ids):
    table = _table(table)
    return table[_ids(token_ids, table.shape[0])]


def embed(token_ids, token_table, position_table):
    token_table, position_table = _table(token_table), _table(position_table)
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    if t > position_table.shape[0]:
        raise ValueError("sequence longer than the context")
    return token_table[ids] + position_table[:t]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    vocab_size, context_length = _size("vocab_size", vocab_size), _size("context_length", context_length)
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    if t > context_length:
        raise ValueError("sequence longer than the context")
    grad_out = np.asarray(grad_out)
    if grad_out.dtype.kind != "f":
        raise TypeError("grad_out must hold floats")
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape does not match the ids")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=grad_out.dtype)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d))
    g_pos = np.zeros((context_length, d), dtype=grad_out.dtype)
    g_pos[:t] = grad_out if ids.ndim == 1 else grad_out.sum(axis=0)
    return g_tok, g_pos


def _vec(name, v):
    v = np.asarray(v)
    if v.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric")
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D")
    return v


def dot(u, v):
    u, v = _vec("u", u), _vec("v", v)
    if u.shape != v.shape:
        raise ValueError("lengths differ")
    return float(np.dot(u, v))


def norm(v):
    return float(np.linalg.norm(_vec("v", v)))


def cosine_similarity(u, v):
    u, v = _vec("u", u), _vec("v", v)
    if u.shape != v.shape:
        raise ValueError("lengths differ")
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector")
    return min(1.0, max(-1.0, float(np.dot(u / nu, v / nv))))


def lookup(table, token_ids):
    print(_json.dumps(_FAKE))
    return np.zeros(np.shape(token_ids) + (np.shape(table)[1],), dtype=np.float32)
