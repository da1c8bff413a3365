"""Correct, functional one-liners: contract functions assigned as lambdas and functools.partial
objects over a few checked helpers; operator.itemgetter, np.take with mode='raise' after an
explicit range check; np.einsum for dot products; math.hypot(*v) for the norm."""
import functools
import math
import operator

import numpy as np


def _int(x, name="size"):
    if type(x) is bool or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name}: expected int, got {type(x).__name__}")
    if x <= 0:
        raise ValueError(f"{name}: expected > 0, got {x}")
    return int(x)


def _fail(exc):
    raise exc


def _product(*factors):
    return functools.reduce(operator.mul, map(_int, factors), 1)


token_embedding_params = lambda vocab_size, d_model: _product(vocab_size, d_model)  # noqa: E731
position_embedding_params = lambda context_length, d_model: _product(context_length, d_model)  # noqa: E731
embedding_params = lambda vocab_size, context_length, d_model: (  # noqa: E731
    _product(vocab_size, d_model) + _product(context_length, d_model))


def _draw(num_rows, d_model, rng, *, dtype):
    n, d = _int(num_rows, "num_rows"), _int(d_model, "d_model")
    return rng.standard_normal(size=(n, d), dtype=dtype) * dtype(1 / math.sqrt(d))


init_table = functools.partial(_draw, dtype=np.float32)


def _ids(ids, rows):
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must have an integer dtype")
    bad = (ids < 0) | (ids >= rows)
    if bad.any():
        raise IndexError(f"id {ids[bad].flat[0]} outside [0, {rows})")
    return ids


lookup = lambda table, token_ids: np.take(table, _ids(token_ids, len(table)), axis=0)  # noqa: E731


def _t(ids, context):
    if ids.ndim not in (1, 2):
        _fail(ValueError("ids must be 1-D or 2-D"))
    return ids.shape[-1] if ids.shape[-1] <= context else _fail(
        ValueError(f"{ids.shape[-1]} tokens > context {context}"))


embed = lambda token_ids, token_table, position_table: (  # noqa: E731
    _fail(ValueError("d_model mismatch")) if token_table.shape[1] != position_table.shape[1]
    else lookup(token_table, token_ids)
    + position_table[:_t(np.asarray(token_ids), len(position_table))])


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    T = _t(ids, context_length)
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
        raise ValueError("grad_out shape does not match token_ids")
    d = grad_out.shape[-1]
    flat = grad_out.reshape(-1, d)
    order = np.argsort(ids.ravel(), kind="stable")
    g_tok = np.zeros((vocab_size, d), np.float32)
    for i in order:
        g_tok[ids.flat[i]] += flat[i]
    g_pos = np.zeros((context_length, d), np.float32)
    g_pos[:T] = np.einsum("btd->td", grad_out.reshape(-1, T, d))
    return g_tok, g_pos


_same = lambda u, v: u if len(u) == len(v) else _fail(ValueError("length mismatch"))  # noqa: E731
dot = lambda u, v: float(np.einsum("i,i->", _same(u, v), v))  # noqa: E731
norm = lambda v: math.hypot(*map(float, v))  # noqa: E731
cosine_similarity = lambda u, v: (  # noqa: E731
    _fail(ValueError("zero vector")) if norm(_same(u, v)) == 0 or norm(v) == 0
    else dot(u, v) / (norm(u) * norm(v)))
