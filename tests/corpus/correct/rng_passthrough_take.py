"""Correct, defensive style: rng normalised with np.random.default_rng(rng) (a Generator
passes through unchanged), isinstance asserts, np.take after a range check, the forward's
add done in place on the fresh lookup result (np.add(..., out=)), ids copied with
np.array(..., copy=True) first, float32 cast with astype(copy=False), a module-level
logger, and np.errstate around the division."""
import logging
import numbers

import numpy as np

log = logging.getLogger(__name__)


def _check_size(n, name):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"{name} must be an integer")
    if n < 1:
        raise ValueError(f"{name} must be >= 1")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    return _check_size(vocab_size, "vocab_size") * _check_size(d_model, "d_model")


def position_embedding_params(context_length, d_model):
    return _check_size(context_length, "context_length") * _check_size(d_model, "d_model")


def embedding_params(vocab_size, context_length, d_model):
    v = _check_size(vocab_size, "vocab_size")
    t = _check_size(context_length, "context_length")
    d = _check_size(d_model, "d_model")
    log.debug("V=%d T=%d d=%d", v, t, d)
    return v * d + t * d


def init_table(num_rows, d_model, rng):
    rows = _check_size(num_rows, "num_rows")
    cols = _check_size(d_model, "d_model")
    rng = np.random.default_rng(rng)
    assert isinstance(rng, np.random.Generator)
    table = rng.normal(0.0, cols ** -0.5, size=(rows, cols))
    return table.astype(np.float32, copy=False)


def _validate_ids(token_ids, num_rows):
    ids = np.array(token_ids, copy=True)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"token ids must be integers, not {ids.dtype}")
    if ids.size > 0:
        if ids.min() < 0:
            raise IndexError("negative token id")
        if ids.max() >= num_rows:
            raise IndexError(f"token id {ids.max()} >= {num_rows}")
    return ids


def lookup(table, token_ids):
    ids = _validate_ids(token_ids, table.shape[0])
    return np.take(table, ids, axis=0)


def embed(token_ids, token_table, position_table):
    assert token_table.ndim == 2 and position_table.ndim == 2
    if token_table.shape[-1] != position_table.shape[-1]:
        raise ValueError("token and position tables have different widths")
    ids = _validate_ids(token_ids, token_table.shape[0])
    if ids.ndim == 0 or ids.ndim > 2:
        raise ValueError("token_ids must be (T,) or (B, T)")
    seq_len = ids.shape[-1]
    if seq_len > position_table.shape[0]:
        raise ValueError(f"sequence length {seq_len} exceeds context {position_table.shape[0]}")
    out = np.take(token_table, ids, axis=0)
    np.add(out, position_table[:seq_len], out=out)
    return out


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _validate_ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("token_ids must be (T,) or (B, T)")
    seq_len = ids.shape[-1]
    if seq_len > context_length:
        raise ValueError("sequence longer than the context")
    if grad_out.shape != ids.shape + grad_out.shape[-1:] or grad_out.ndim != ids.ndim + 1:
        raise ValueError(f"grad_out shape {grad_out.shape} != ids shape {ids.shape} + (d,)")
    d = grad_out.shape[-1]
    grad_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(grad_tok, ids, grad_out)
    grad_pos = np.zeros((context_length, d), dtype=np.float32)
    grad_pos[:seq_len] = grad_out if ids.ndim == 1 else grad_out.sum(axis=0)
    return grad_tok, grad_pos


def dot(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError(f"cannot take the dot product of shapes {u.shape} and {v.shape}")
    return float(np.vdot(u, v))


def norm(v):
    return float(np.linalg.norm(v))


def cosine_similarity(u, v):
    d = dot(u, v)
    nu, nv = norm(u), norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector has no direction")
    with np.errstate(divide="raise", invalid="raise"):
        return float(d / (nu * nv))
