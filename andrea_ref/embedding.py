"""The ANDREA-120M embedding layer in NumPy: parameter counts, init, lookup, combine, backward.

    x[..., t, :] = token_table[ids[..., t]] + position_table[t]

A token id selects a row (no arithmetic), a learned position table adds one row per position,
and the two tables are untied from the output projection. Written to be read in one sitting and
to run at memory-bandwidth speed: every hot path is a whole-array NumPy call, never a Python loop
over tokens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from . import validate


@dataclass(frozen=True)
class EmbeddingConfig:
    vocab_size: int = 8449      # token ids 0..8448
    context_length: int = 1024  # T, rows of the learned position table
    d_model: int = 768

    @property
    def init_std(self) -> float:
        return 1.0 / math.sqrt(self.d_model)


# ------------------------------------------------------------------------- parameter counts
def token_embedding_params(vocab_size: int, d_model: int) -> int:
    """Parameters of the (vocab_size, d_model) token table."""
    return validate.size("vocab_size", vocab_size) * validate.size("d_model", d_model)


def position_embedding_params(context_length: int, d_model: int) -> int:
    """Parameters of the (context_length, d_model) learned position table."""
    return validate.size("context_length", context_length) * validate.size("d_model", d_model)


def embedding_params(vocab_size: int, context_length: int, d_model: int) -> int:
    """Token table plus position table (untied: the output projection is not counted here)."""
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


# ------------------------------------------------------------------------- init
def init_table(num_rows: int, d_model: int, rng: np.random.Generator) -> np.ndarray:
    """A float32 (num_rows, d_model) table drawn from N(0, 1/d_model), i.e. std 1/sqrt(d_model).

    Every draw comes from `rng`, so the same Generator state gives the same table.
    """
    num_rows = validate.size("num_rows", num_rows)
    d_model = validate.size("d_model", d_model)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    out = rng.standard_normal((num_rows, d_model), dtype=np.float32)
    out *= np.float32(1.0 / math.sqrt(d_model))
    return out


# ------------------------------------------------------------------------- forward
def lookup(table: np.ndarray, token_ids) -> np.ndarray:
    """Row `i` of `table` for each id `i`: shape ids.shape + (d_model,), the table's dtype."""
    table = validate.table("table", table)
    ids = validate.token_ids(token_ids, table.shape[0])
    out = np.empty(ids.shape + table.shape[1:], dtype=table.dtype)
    # mode="clip" lets take() write straight into `out`; the ids were range-checked above.
    np.take(table, ids, axis=0, out=out, mode="clip")
    return out


def embed(token_ids, token_table: np.ndarray, position_table: np.ndarray) -> np.ndarray:
    """Token rows plus position rows: (T,) or (B, T) ids -> (..., T, d_model)."""
    token_table = validate.table("token_table", token_table)
    position_table = validate.table("position_table", position_table)
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError(f"token_table has d_model = {token_table.shape[1]} but position_table "
                         f"has d_model = {position_table.shape[1]}")
    ids = validate.token_ids(token_ids, token_table.shape[0])
    t = validate.sequence(ids, position_table.shape[0])
    out = np.empty(ids.shape + token_table.shape[1:],
                   dtype=np.result_type(token_table, position_table))
    np.take(token_table, ids, axis=0, out=out, mode="clip")
    out += position_table[:t]
    return out


# ------------------------------------------------------------------------- backward
def embed_backward(token_ids, grad_out: np.ndarray, vocab_size: int, context_length: int):
    """Gradients of `embed` w.r.t. both tables: (grad_token_table, grad_position_table).

    The token gradient is a scatter-add (repeated ids accumulate; absent ids stay exactly 0);
    the position gradient sums grad_out over the batch and is exactly 0 past T.
    """
    vocab_size = validate.size("vocab_size", vocab_size)
    context_length = validate.size("context_length", context_length)
    ids = validate.token_ids(token_ids, vocab_size)
    t = validate.sequence(ids, context_length)
    grad_out = np.asarray(grad_out)
    if grad_out.dtype.kind != "f":
        raise TypeError(f"grad_out must hold floats, got dtype {grad_out.dtype}")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError(f"grad_out must have shape token_ids.shape + (d_model,) = "
                         f"{ids.shape + ('d_model',)}, got {grad_out.shape}")
    d_model = grad_out.shape[-1]
    rows = grad_out.reshape(-1, d_model)
    flat = ids.reshape(-1)
    n = flat.size

    # Scatter-add as a product with the sparse (vocab_size, n) one-hot matrix: one pass over
    # grad_out in compiled code, duplicates summed, untouched rows exactly zero.
    onehot_t = scipy.sparse.csr_matrix(
        (np.ones(n, dtype=grad_out.dtype), flat, np.arange(n + 1)), shape=(n, vocab_size)).T
    grad_token = np.asarray(onehot_t @ rows, dtype=grad_out.dtype)

    grad_position = np.zeros((context_length, d_model), dtype=grad_out.dtype)
    grad_position[:t] = grad_out if ids.ndim == 1 else grad_out.sum(axis=0)
    return grad_token, grad_position
