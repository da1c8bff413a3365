"""A compiled fast path for the reference's three hot functions: lookup, embed, embed_backward.

``andrea_ref.embedding`` stays the documented reference (plain NumPy, read in one sitting). This
module computes the same results, bit for bit, with a few small loops compiled by numba
(``pip install 'andrea-conformance[fast]'``); everything else of the contract is re-exported
from the reference, so ``andrea-conform andrea_ref.fast`` checks a whole implementation.

* ``embed``: one pass over the output, ``out[r] = token_table[ids[r]] + position_table[r % T]``:
  each output byte is written once and never read back (the reference's blocks write it with
  ``np.take`` and then read and write it again for the position add, in cache).
* ``embed_backward``: one scan of ``grad_out`` in row order that adds each row to its token
  row and its position row, both gradients in the same pass (the reference's sparse product
  does the same; torch's ``index_add_`` + ``sum`` reads ``grad_out`` twice). Big calls are
  split by output, not by input: every thread owns a disjoint range of token rows (balanced
  by how many rows they receive) and of positions, clears them, scans the ids and adds the
  rows that land in its ranges. No write conflicts, no per-thread copies to reduce, and every
  output row receives its rows in increasing row order, starting at ``+0.0``: the order of
  the reference's product (zeros, then column after column of the one-hot matrix, i.e. row
  after row of ``grad_out``), so the sums are equal bit for bit, signed zeros
  included (``tests/ref/test_fast_path.py``), whatever the number of threads. The token rows
  are random rows of a table bigger than the cache, so the scan asks for the next one's cache
  lines (a prefetch hint) while it adds the current one.

Arguments are checked by :mod:`andrea_runtime.validate`, the reference's own checks, before any
work, so every error is the reference's (type and wording). What the compiled loops do not
cover goes to the reference itself: dtypes other than float32/float64, arrays that are not
C-contiguous, an ``out=`` that overlaps an input, and every call when numba is not installed
(``COMPILED`` is then False and every call, checked as above, goes to the reference).

Threads: big calls are split over every usable core (``os.sched_getaffinity``) in the
reference's per-process pool; the loops release the GIL. numba's own parallel layer is not
used: its default (OpenMP) layer aborts a child forked after it ran ("fork() called from a
process already using GNU OpenMP"), and a grader forks. Compiled code is cached next to this
file (``__pycache__``, git-ignored) or, where that is read-only, in numba's per-user cache.
"""

from __future__ import annotations

import os

import numpy as np

from . import embedding as _ref
from andrea_runtime import validate
from .embedding import (embedding_params, init_table, position_embedding_params,
                        token_embedding_params)
from .positions import rope, sinusoidal_encoding
from .vectors import cosine_similarity, dot, norm

__all__ = [
    "token_embedding_params", "position_embedding_params", "embedding_params",
    "init_table", "lookup", "embed", "embed_backward", "dot", "norm", "cosine_similarity",
    "sinusoidal_encoding", "rope", "COMPILED",
]

try:
    import numba
except ImportError:  # the optional extra is not installed: the reference does the work
    numba = None

#: True when the compiled loops are in use; False means every call runs the plain reference.
COMPILED = numba is not None

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_PARALLEL_MIN_BYTES = 4 << 20   # below this, one thread (handing out work costs more)
_BYTES_PER_THREAD = 2 << 20


def _threads(nbytes: int) -> int:
    """Every usable core for a big call (at least 2 MiB of traffic each); one for a small one."""
    if nbytes < _PARALLEL_MIN_BYTES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, nbytes // _BYTES_PER_THREAD))


def _covered(*arrays) -> bool:
    """The compiled loops take C-contiguous float32/float64 arrays of one dtype."""
    return all(a.dtype == arrays[0].dtype and a.flags.c_contiguous for a in arrays) and \
        arrays[0].dtype in _DTYPES


# ------------------------------------------------------------------------- compiled loops
def _compile(fn):
    # error_model="numpy": no Python-style checks (division by zero, negative modulo) in the
    # loops; the wrappers never pass T = 0 and every index is checked by validate beforehand.
    try:
        return numba.njit(nogil=True, cache=True, error_model="numpy")(fn)
    except RuntimeError:  # no writable cache location: compile in memory, once per process
        return numba.njit(nogil=True, error_model="numpy")(fn)


def _gather_kernel(table, ids, out, r0, r1):
    """out[r] = table[ids[r]] for r in [r0, r1)."""
    d = table.shape[1]
    for r in range(r0, r1):
        src = table[ids[r]]
        dst = out[r]
        for j in range(d):
            dst[j] = src[j]


def _embed_kernel(tok, pos, ids, t, out, r0, r1):
    """out[r] = tok[ids[r]] + pos[r % t] for r in [r0, r1): each output row written once."""
    d = tok.shape[1]
    p = r0 % t
    for r in range(r0, r1):
        src = tok[ids[r]]
        add = pos[p]
        dst = out[r]
        for j in range(d):
            dst[j] = src[j] + add[j]
        p += 1
        if p == t:
            p = 0


def _backward_kernel(g, ids, t, gtok, gpos, v0, v1, p0, p1):
    """Token rows [v0, v1) and position rows [p0, p1) of the gradients.

    The rows start at +0.0; one scan of grad_out in increasing row order adds each row to its
    token row and to its position row where this call owns them: the order of the reference's
    sparse product (zeros, then row after row), so equal bit for bit, -0.0 + +0.0 = +0.0 too.
    """
    d = g.shape[1]
    for v in range(v0, v1):
        dst = gtok[v]
        for j in range(d):
            dst[j] = 0
    for p in range(p0, p1):
        dst = gpos[p]
        for j in range(d):
            dst[j] = 0
    line = max(1, 64 // gtok.itemsize)  # elements per 64-byte cache line
    n = ids.size
    p = 0
    for r in range(n):
        # The next token row is a random one of a table too big for the cache: ask for it
        # now, so its lines arrive while this row is added (13-21 % off the token part).
        if r + 1 < n and v0 <= ids[r + 1] < v1:
            for j in range(0, d, line):
                _prefetch(gtok, ids[r + 1] * d + j)
        v = ids[r]
        if v0 <= v < v1:
            src = g[r]
            dst = gtok[v]
            for j in range(d):
                dst[j] += src[j]
        if p0 <= p < p1:
            src = g[r]
            dst = gpos[p]
            for j in range(d):
                dst[j] += src[j]
        p += 1
        if p == t:
            p = 0


def _no_prefetch(arr, index):
    """Stands in for _prefetch where the compiler cannot emit it."""


if COMPILED:
    from llvmlite import ir
    from numba.extending import intrinsic

    @intrinsic
    def _prefetch(typingctx, arr, index):
        """A hint (llvm.prefetch: for writing, keep in every cache level) to fetch the cache
        line of arr.flat[index]; it never faults and changes no value."""
        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            fn = builder.module.declare_intrinsic(
                "llvm.prefetch", [i8p], ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
            builder.call(fn, [builder.bitcast(builder.gep(data, [args[1]]), i8p),
                              i32(1), i32(3), i32(1)])
            return context.get_dummy_value()
        return numba.types.void(arr, index), codegen

    def _probe(arr):
        _prefetch(arr, 0)

    _probe = _compile(_probe)
    _prefetch_checked = False

    def _check_prefetch() -> None:
        """Compile the prefetch once before the backward needs it; where this numba/LLVM cannot
        emit it, the backward is compiled without it (same results, a little slower)."""
        global _prefetch, _prefetch_checked
        if not _prefetch_checked:
            try:
                _probe(np.zeros((1, 1), np.float32))
            except Exception:  # noqa: BLE001 - any compiler failure: do without the hint
                _prefetch = _compile(_no_prefetch)
            _prefetch_checked = True

    _gather_kernel = _compile(_gather_kernel)
    _embed_kernel = _compile(_embed_kernel)
    _backward_kernel = _compile(_backward_kernel)


def _row_parts(n: int, k: int) -> list[tuple[int, int]]:
    return [(i * n // k, (i + 1) * n // k) for i in range(k)]


# ------------------------------------------------------------------------- the contract
def lookup(table: np.ndarray, token_ids) -> np.ndarray:
    """Row `i` of `table` for each id `i`: shape ids.shape + (d_model,), the table's dtype."""
    table = validate.table("table", table)
    ids = validate.token_ids(token_ids, table.shape[0])
    if not COMPILED or ids.ndim == 0 or not _covered(table):
        return _ref.lookup(table, ids)
    out = np.empty(ids.shape + table.shape[1:], dtype=table.dtype)
    flat = ids.reshape(-1).astype(np.intp, copy=False)
    out2 = out.reshape(flat.size, table.shape[1])
    _ref._in_parallel(lambda part: _gather_kernel(table, flat, out2, *part),
                      _row_parts(flat.size, min(_threads(out.nbytes), max(flat.size, 1))))
    return out


def embed(token_ids, token_table: np.ndarray, position_table: np.ndarray, *,
          out: np.ndarray | None = None) -> np.ndarray:
    """Token rows plus position rows: (T,) or (B, T) ids -> (..., T, d_model); `out` as the
    reference's (a C-contiguous buffer of the result's shape and dtype to write into)."""
    ids, tok, pos, t, out = validate.embed_args(token_ids, token_table, position_table, out)
    if (not COMPILED or not _covered(tok, pos)
            or (out is not None and any(np.may_share_memory(out, a) for a in (tok, pos, ids)))):
        return _ref.embed(ids, tok, pos, out=out)
    if out is None:
        out = np.empty(ids.shape + tok.shape[1:], dtype=tok.dtype)
    n = ids.size
    if n == 0:
        return out
    flat = ids.reshape(-1).astype(np.intp, copy=False)
    out2 = out.reshape(n, tok.shape[1])
    _ref._in_parallel(lambda part: _embed_kernel(tok, pos, flat, t, out2, *part),
                      _row_parts(n, min(_threads(out.nbytes), n)))
    return out


def embed_backward(token_ids, grad_out: np.ndarray, vocab_size: int, context_length: int):
    """Gradients of `embed` w.r.t. both tables: (grad_token_table, grad_position_table).

    The same sums as the reference's, in the same order: equal bit for bit.
    """
    ids, grad_out, t, vocab_size, context_length = validate.backward_args(
        token_ids, grad_out, vocab_size, context_length)
    if not COMPILED or not _covered(grad_out):
        return _ref.embed_backward(ids, grad_out, vocab_size, context_length)
    d = grad_out.shape[-1]
    n = ids.size
    both = np.empty((vocab_size + context_length, d), dtype=grad_out.dtype)
    gtok, gpos = both[:vocab_size], both[vocab_size:]
    if n == 0:
        both.fill(0)
        return gtok, gpos
    flat = ids.reshape(-1).astype(np.intp, copy=False)
    g = grad_out.reshape(n, d)
    _check_prefetch()
    k = min(_threads(grad_out.nbytes + both.nbytes), vocab_size)
    # Each thread owns a range of token rows and one of positions. Token rows are split so that
    # every thread has about as many rows to clear plus grad_out rows to add (ids may be far
    # from uniform); positions evenly.
    cost = np.cumsum(np.bincount(flat, minlength=vocab_size) + 1)
    cuts = [0] + [int(np.searchsorted(cost, i * cost[-1] // k)) for i in range(1, k)]
    cuts.append(vocab_size)
    pcuts = [i * context_length // k for i in range(k + 1)]
    _ref._in_parallel(
        lambda i: _backward_kernel(g, flat, t, gtok, gpos,
                                   cuts[i], cuts[i + 1], pcuts[i], pcuts[i + 1]),
        list(range(k)))
    return gtok, gpos
