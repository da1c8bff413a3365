"""Argument checks shared by every implementation of the contract.

Each function either returns the argument as a numpy array or raises the error the spec
prescribes, with a message that names the argument and what was wrong:

* ids that are not integers                         -> TypeError   (EMB-ERR-02)
* ids below 0 or >= the number of rows              -> IndexError  (EMB-ERR-01)
* a sequence longer than the context                -> ValueError  (EMB-ERR-03)
* tables whose d_model differ, shapes that disagree -> ValueError  (EMB-ERR-04, BWD-ERR-01)
* sizes that are not integers / below 1             -> TypeError / ValueError (PAR-ERR-01)

andrea_gpu calls the same checks before it launches a kernel, so both backends fail alike.
"""

from __future__ import annotations

import numbers

import numpy as np


def size(name: str, value) -> int:
    """A positive integer size such as vocab_size or d_model."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


def table(name: str, value) -> np.ndarray:
    """A 2-D floating-point table of shape (rows, d_model)."""
    arr = np.asarray(value)
    if arr.dtype.kind != "f":
        raise TypeError(f"{name} must hold floats, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows, d_model), got shape {arr.shape}")
    return arr


def token_ids(value, num_rows: int, name: str = "token_ids") -> np.ndarray:
    """Integer ids, each in [0, num_rows). Reports the first offending id and where it is."""
    ids = np.asarray(value)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got dtype {ids.dtype}")
    if ids.size:
        lo, hi = ids.min(), ids.max()
        if lo < 0 or hi >= num_rows:
            bad = np.argwhere((ids < 0) | (ids >= num_rows))[0]
            where = tuple(int(i) for i in bad)
            raise IndexError(f"{name}{list(where)} = {int(ids[where])} is out of range "
                             f"[0, {num_rows}) (ids are never wrapped around)")
    return ids


def sequence(ids: np.ndarray, context_length: int, name: str = "token_ids") -> int:
    """Check ids are (T,) or (B, T) with T <= context_length; return T."""
    if ids.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (T,) or (B, T), got shape {ids.shape}")
    t = ids.shape[-1]
    if t > context_length:
        raise ValueError(f"{name} has T = {t} positions, more than the context length "
                         f"{context_length} (rows of the position table)")
    return t


def vector(name: str, value) -> np.ndarray:
    """A 1-D numeric vector."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {arr.shape}")
    return arr


def same_length(u: np.ndarray, v: np.ndarray) -> None:
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same length, got {u.shape[0]} and {v.shape[0]}")


def embed_args(ids, token_table, position_table, out=None):
    """Arguments of embed: (ids, token_table, position_table, T, out), checked.

    `out` is None or a writeable C-contiguous array of the result's shape and dtype.
    """
    token_table = table("token_table", token_table)
    position_table = table("position_table", position_table)
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError(f"token_table has d_model = {token_table.shape[1]} but position_table "
                         f"has d_model = {position_table.shape[1]}")
    if token_table.dtype != position_table.dtype:
        raise TypeError(f"token_table is {token_table.dtype} but position_table is "
                        f"{position_table.dtype}; give both tables one dtype")
    ids = token_ids(ids, token_table.shape[0])
    t = sequence(ids, position_table.shape[0])
    shape = ids.shape + token_table.shape[1:]
    if out is not None and (not isinstance(out, np.ndarray) or out.shape != shape
                            or out.dtype != token_table.dtype or not out.flags.c_contiguous
                            or not out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous {token_table.dtype} array of "
                         f"shape {shape}")
    return ids, token_table, position_table, t, out


def backward_args(ids, grad_out, vocab_size, context_length):
    """Arguments of embed_backward: (ids, grad_out, T, vocab_size, context_length), checked."""
    vocab_size = size("vocab_size", vocab_size)
    context_length = size("context_length", context_length)
    ids = token_ids(ids, vocab_size)
    t = sequence(ids, context_length)
    grad_out = np.asarray(grad_out)
    if grad_out.dtype.kind != "f":
        raise TypeError(f"grad_out must hold floats, got dtype {grad_out.dtype}")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError(f"grad_out must have shape token_ids.shape + (d_model,) = "
                         f"{ids.shape + ('d_model',)}, got {grad_out.shape}")
    return ids, grad_out, t, vocab_size, context_length
