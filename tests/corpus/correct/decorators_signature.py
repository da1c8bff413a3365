"""Correct, decorator style: a @validated decorator reads each function's signature with
inspect.signature and checks the arguments by name (sizes, ids) before the call,
functools.wraps keeps the names; functools.singledispatch for the vector functions (lists,
tuples and arrays); typing.overload stubs for lookup; math.fsum for the sums."""
from __future__ import annotations

import functools
import inspect
import math
from typing import Sequence, Union, overload

import numpy as np

SIZE_ARGS = {"vocab_size", "context_length", "d_model", "num_rows"}


def _check_size(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")


def validated(fn):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            if name in SIZE_ARGS:
                _check_size(name, value)
        return fn(*bound.args, **bound.kwargs)

    return wrapper


@validated
def token_embedding_params(vocab_size, d_model):
    return int(vocab_size) * int(d_model)


@validated
def position_embedding_params(context_length, d_model):
    return int(context_length) * int(d_model)


@validated
def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


@validated
def init_table(num_rows, d_model, rng):
    z = rng.standard_normal((int(num_rows), int(d_model)), dtype=np.float32)
    z *= np.float32(1.0 / math.sqrt(d_model))
    return z


def _ids(token_ids, rows: int) -> np.ndarray:
    ids = np.asarray(token_ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("ids must be integer")
    if ids.size and not (0 <= ids.min() and ids.max() < rows):
        raise IndexError("id out of range")
    return ids


@overload
def lookup(table: np.ndarray, token_ids: int) -> np.ndarray: ...
@overload
def lookup(table: np.ndarray, token_ids: Sequence[int]) -> np.ndarray: ...
def lookup(table, token_ids):
    return table[_ids(token_ids, table.shape[0])]


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be 1-D or 2-D")
    (T,) = ids.shape[-1:]
    if T > position_table.shape[0]:
        raise ValueError("too long")
    return lookup(token_table, ids) + lookup(position_table, np.arange(T))


@validated
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("bad ids shape")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("bad grad_out shape")
    ids2 = ids.reshape(-1, ids.shape[-1])
    g2 = grad_out.reshape(ids2.shape + grad_out.shape[-1:])
    B, T = ids2.shape
    d = g2.shape[-1]
    gt = np.zeros((vocab_size, d), np.float32)
    gp = np.zeros((context_length, d), np.float32)
    for b in range(B):
        for t in range(T):
            gt[ids2[b, t]] += g2[b, t]
            gp[t] += g2[b, t]
    return gt, gp


Vector = Union[np.ndarray, Sequence[float]]


@functools.singledispatch
def dot(u, v) -> float:
    raise TypeError(f"unsupported vector type {type(u).__name__}")


@dot.register(list)
@dot.register(tuple)
def _(u, v) -> float:
    if len(u) != len(v):
        raise ValueError("length mismatch")
    return math.fsum(a * b for a, b in zip(u, v))


@dot.register(np.ndarray)
def _(u, v) -> float:
    v = np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("length mismatch")
    return math.fsum((u.astype(np.float64) * v.astype(np.float64)).tolist())


def norm(v: Vector) -> float:
    return math.sqrt(dot(v, v))


def cosine_similarity(u: Vector, v: Vector) -> float:
    uv = dot(u, v)
    nu, nv = norm(u), norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector")
    return uv / (nu * nv)
