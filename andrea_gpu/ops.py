"""Host code of andrea_gpu: argument checks, buffers and kernel launches, for any backend.

An ``Engine`` binds a backend (cuda or the CPU executor) to andrea_gpu's kernel sources: the
full kernel set of ``kernels/embedding.cu`` and ``kernels/cosine.cu`` (float32 and float64
variants, deterministic backward). A student's kernel submission is hosted by
``andrea_gpu.host`` instead (the contract's entry points only, no reference in reach).

Every public method raises the reference's errors before any launch (``andrea_runtime.validate``),
so both implementations fail alike; ids that slip past (never, in practice) are caught on the
device, which reports the first bad flat index instead of reading out of bounds.
"""

from __future__ import annotations

import numpy as np

from andrea_runtime import validate

INT32_MAX = np.iinfo(np.int32).max


def _int32(name: str, value: int) -> np.int32:
    if value > INT32_MAX:
        raise ValueError(f"{name} = {value} does not fit the kernels' int32 arguments "
                         f"(at most {INT32_MAX})")
    return np.int32(value)


class Engine:
    """Launches one kernel source on one backend.

    andrea_gpu's own kernels (every dtype path, the deterministic sorted backward; a student's
    kernel submission goes through andrea_gpu.host instead). shapes: callable (kind, n) ->
    (grid, block) overriding the backend's launch shapes.
    """

    def __init__(self, backend, embedding_source: str, name: str = "embedding.cu", *,
                 cosine_source: str | None = None, deterministic: bool = True, shapes=None):
        self.be = backend
        self.shapes = shapes or backend.shape
        self.deterministic = deterministic
        self.mod = backend.module(embedding_source, name)
        self.cos_mod = backend.module(cosine_source, "cosine.cu") if cosine_source else None

    # --------------------------------------------------------------------- helpers
    def _launch(self, name: str, kind: str, n: int, args, *, mod=None, deterministic=True,
                width: int | None = None):
        """Launch `name` over `n` work items; `width` (items per row) lets a backend fit the
        block to the row (andrea_gpu's own shapes only)."""
        kernel = (mod or self.mod).get_function(name)
        if width is not None and self.shapes == self.be.shape:
            grid, block = self.be.shape(kind, n, width)
        else:
            grid, block = self.shapes(kind, n)
        self.be.launch(kernel, grid, block, args, deterministic=deterministic)

    def _bad_flag(self):
        return self.be.xp.full(1, INT32_MAX, dtype=np.int32)

    def _check_bad(self, bad, ids: np.ndarray, num_rows: int, name: str = "token_ids"):
        first = int(self.be.asnumpy(bad)[0])
        if first != INT32_MAX:
            where = [int(i) for i in np.unravel_index(first, ids.shape)] if ids.ndim else []
            raise IndexError(f"{name}{where} = {int(ids.reshape(-1)[first])} is out of range "
                             f"[0, {num_rows}) (reported by the device; ids are never wrapped "
                             f"around)")

    def _ids(self, ids: np.ndarray):
        _int32("the number of ids", ids.size)
        return self.be.asarray(ids.reshape(-1).astype(np.int32))

    # --------------------------------------------------------------------- lookup
    def lookup(self, table, token_ids) -> np.ndarray:
        """Row i of `table` for each id i, bit for bit: shape ids.shape + (d_model,)."""
        table = validate.table("table", table)
        ids = validate.token_ids(token_ids, table.shape[0])
        rows, d = table.shape
        out_shape = ids.shape + (d,)
        if ids.size == 0 or d == 0:
            return np.empty(out_shape, dtype=table.dtype)
        n = ids.size
        num_rows = _int32("the number of table rows", rows)
        # A bit-exact gather of 32-bit words, for any dtype (rows padded to 4 bytes).
        row_bytes = d * table.dtype.itemsize
        words = -(-row_bytes // 4)
        raw = np.zeros((rows, words * 4), dtype=np.uint8)
        raw[:, :row_bytes] = np.ascontiguousarray(table).view(np.uint8).reshape(rows, row_bytes)
        tab = self.be.asarray(raw.view(np.uint32))
        out = self.be.xp.empty((n, words), dtype=np.uint32)
        bad = self._bad_flag()
        self._launch("andrea_gather_words", "rows", n,
                     (tab, self._ids(ids), out, np.int32(n), _int32("row width", words),
                      num_rows, bad), width=words // 4 if words % 4 == 0 else words)
        self._check_bad(bad, ids, rows)
        got = self.be.asnumpy(out).view(np.uint8)[:, :row_bytes]
        return np.ascontiguousarray(got).view(table.dtype).reshape(out_shape)

    # --------------------------------------------------------------------- forward
    def embed(self, token_ids, token_table, position_table) -> np.ndarray:
        """token_table[ids[..., t]] + position_table[t]: (T,) or (B, T) ids -> (..., T, d)."""
        token_table = validate.table("token_table", token_table)
        position_table = validate.table("position_table", position_table)
        if token_table.shape[1] != position_table.shape[1]:
            raise ValueError(f"token_table has d_model = {token_table.shape[1]} but "
                             f"position_table has d_model = {position_table.shape[1]}")
        if token_table.dtype != position_table.dtype:  # as andrea_ref: no silent promotion
            raise TypeError(f"token_table is {token_table.dtype} but position_table is "
                            f"{position_table.dtype}; give both tables one dtype")
        ids = validate.token_ids(token_ids, token_table.shape[0])
        t = validate.sequence(ids, position_table.shape[0])
        dtype = token_table.dtype
        d = token_table.shape[1]
        out_shape = ids.shape + (d,)
        if ids.size == 0 or d == 0:
            return np.empty(out_shape, dtype=dtype)
        if dtype in (np.float32, np.float16):
            kernel, work = "andrea_embed_forward", np.float32
        elif dtype == np.float64:
            kernel, work = "andrea_embed_forward_f64", np.float64
        else:
            raise TypeError(f"andrea_gpu computes the embedding in float16, float32 or "
                            f"float64, not in {dtype}")
        # float16 + float16 computed in float32 and rounded once is numpy's float16 sum.
        tok = self.be.asarray(token_table.astype(work, copy=False))
        pos = self.be.asarray(position_table[:t].astype(work, copy=False))
        out, bad = self.forward_device(kernel, self._ids(ids), tok, pos, t)
        self._check_bad(bad, ids, token_table.shape[0])
        return self.be.asnumpy(out).astype(dtype, copy=False).reshape(out_shape)

    def forward_device(self, kernel: str, ids, tok, pos, t: int):
        """Launch the forward on backend arrays (flat int32 ids, tables); (out, bad flag).

        The device half of ``embed``, also what benchmarks/bench_gpu.py times.
        """
        n, d = int(ids.shape[0]), int(tok.shape[1])
        out = self.be.xp.empty((n, d), dtype=tok.dtype)
        bad = self._bad_flag()
        vec = 16 // tok.dtype.itemsize  # elements per 16-byte vector
        self._launch(kernel, "rows", n,
                     (ids, tok, pos, out, np.int32(n), np.int32(t), _int32("d_model", d),
                      _int32("the number of token_table rows", tok.shape[0]), bad),
                     width=d // vec if d % vec == 0 else d)
        return out, bad

    # --------------------------------------------------------------------- backward
    def embed_backward(self, token_ids, grad_out, vocab_size, context_length,
                       deterministic: bool | None = None):
        """(grad_token_table, grad_position_table) of `embed`.

        deterministic (default: the engine's, True for andrea_gpu): sorted ids and a segmented
        sum, bit-identical from run to run; False: atomicAdd scatter.
        """
        ids, grad_out, t, vocab_size, context_length = validate.backward_args(
            token_ids, grad_out, vocab_size, context_length)
        dtype = grad_out.dtype
        d = grad_out.shape[-1]
        work = np.float32 if dtype in (np.float16, np.float32) else np.float64
        det = self.deterministic if deterministic is None else bool(deterministic)
        if ids.size and d:
            g = self.be.asarray(grad_out.astype(work, copy=False).reshape(ids.size, d))
            grad_token, grad_pos, bad = self.backward_device(self._ids(ids), g, vocab_size,
                                                             context_length, t, det)
            self._check_bad(bad, ids, vocab_size)
        else:
            grad_token = self.be.xp.zeros((vocab_size, d), dtype=work)
            grad_pos = self.be.xp.zeros((context_length, d), dtype=work)
        return (self.be.asnumpy(grad_token).astype(dtype, copy=False),
                self.be.asnumpy(grad_pos).astype(dtype, copy=False))

    def backward_device(self, ids, g, vocab_size: int, context_length: int, t: int,
                        deterministic: bool):
        """The device half of ``embed_backward``: flat int32 ids (n,), grad rows (n, d) ->
        (grad_token, grad_position, bad flag), backend arrays. Also what the benchmark times."""
        xp = self.be.xp
        n, d = int(ids.shape[0]), int(g.shape[1])
        suffix = "" if g.dtype == np.float32 else "_f64"
        grad_token = xp.zeros((vocab_size, d), dtype=g.dtype)
        grad_pos = xp.zeros((context_length, d), dtype=g.dtype)
        d32, v32 = _int32("d_model", d), _int32("vocab_size", vocab_size)
        bad = self._bad_flag()
        if deterministic:
            # Sort by (id, flat index): unique keys, so any sort gives the same order.
            flat = ids.astype(np.int64)
            order = xp.argsort(flat * n + xp.arange(n, dtype=np.int64)).astype(np.int32)
            sorted_ids = flat[order]
            starts = xp.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1
            seg = xp.concatenate([xp.zeros(1, dtype=np.int64), starts,
                                  xp.full(1, n, dtype=np.int64)]).astype(np.int32)
            nseg = int(seg.shape[0]) - 1
            self._launch(f"andrea_embed_backward_token_sorted{suffix}", "rows", nseg,
                         (order, seg, np.int32(nseg), ids, g, grad_token, d32, v32, bad))
        else:
            self._launch(f"andrea_embed_backward_token{suffix}", "rows", n,
                         (ids, g, grad_token, np.int32(n), d32, v32, bad), deterministic=False)
        self._launch(f"andrea_embed_backward_position{suffix}", "flat",
                     t * d, (g, grad_pos, np.int32(n // t), np.int32(t), d32))
        return grad_token, grad_pos, bad

    # --------------------------------------------------------------------- cosine
    def _cos_kernels(self, dtype):
        if self.cos_mod is None:
            raise RuntimeError("this engine has no cosine kernels")
        return ("andrea_row_norms", "andrea_cosine_scores") if dtype == np.float32 else (
            "andrea_row_norms_f64", "andrea_cosine_scores_f64")

    def _scores(self, queries: np.ndarray, table: np.ndarray):
        """Device array of cos(queries[i], table[r]), shape (Q, V), float64."""
        norms_k, scores_k = self._cos_kernels(queries.dtype)
        xp = self.be.xp
        q, tab = self.be.asarray(queries), self.be.asarray(table)
        nq, rows, d = queries.shape[0], table.shape[0], table.shape[1]
        _int32("query rows * table rows", nq * rows)
        qn, tn = xp.empty(nq, dtype=np.float64), xp.empty(rows, dtype=np.float64)
        self._launch(norms_k, "reduce", nq, (q, qn, np.int32(nq), np.int32(d)), mod=self.cos_mod)
        self._launch(norms_k, "reduce", rows, (tab, tn, np.int32(rows), np.int32(d)),
                     mod=self.cos_mod)
        for name, norms in (("query", qn), ("table", tn)):
            zero = np.flatnonzero(self.be.asnumpy(norms) == 0)
            if zero.size:
                raise ValueError(f"the cosine is undefined for a zero vector ({name} row "
                                 f"{int(zero[0])} is all zeros)")
        scores = xp.empty((nq, rows), dtype=np.float64)
        self._launch(scores_k, "reduce", nq * rows,
                     (q, qn, tab, tn, scores, np.int32(nq), np.int32(rows), np.int32(d)),
                     mod=self.cos_mod)
        return scores

    def cosine_similarity(self, u, v) -> float:
        """cos(theta) = u . v / (|u| |v|) in [-1, 1], on the device; ValueError for a zero vector."""
        u, v = validate.vector("u", u), validate.vector("v", v)
        validate.same_length(u, v)
        for name, x in (("u", u), ("v", v)):  # the reference's error, before any launch
            if not np.any(x):
                raise ValueError(f"cosine_similarity is undefined for a zero vector ({name} is "
                                 f"all zeros)")
        scores = self._scores(u.astype(np.float64)[None, :], v.astype(np.float64)[None, :])
        return float(self.be.asnumpy(scores)[0, 0])

    def nearest_tokens(self, query, table, k: int = 10):
        """The k rows of `table` most cosine-similar to each query row, best first.

        query: (d,) or (Q, d); table: (V, d) floats. Returns (indices, scores): int64 and
        float64 arrays of shape (k,) or (Q, k); equal scores are ordered by smaller index.
        Zero rows (query or table) and non-finite values are a ValueError.
        """
        table = validate.table("table", table)
        q = np.asarray(query)
        if q.dtype.kind not in "iuf":
            raise TypeError(f"query must be numeric, got dtype {q.dtype}")
        if q.ndim not in (1, 2):
            raise ValueError(f"query must have shape (d_model,) or (Q, d_model), got {q.shape}")
        if q.shape[-1] != table.shape[1]:
            raise ValueError(f"query has d_model = {q.shape[-1]} but table has d_model = "
                             f"{table.shape[1]}")
        k = validate.size("k", k)
        rows = table.shape[0]
        if k > rows:
            raise ValueError(f"k = {k} is more than the {rows} rows of the table")
        for name, x in (("query", q), ("table", table)):
            if not np.all(np.isfinite(x)):
                raise ValueError(f"{name} must be finite (it holds nan or inf)")
        q2 = q.reshape(-1, q.shape[-1])
        if q2.shape[0] == 0 or table.shape[1] == 0:
            raise ValueError(f"query and table must be non-empty, got shapes {q.shape} and "
                             f"{table.shape}")
        work = np.float32 if (q2.dtype == np.float32 and table.dtype == np.float32) \
            else np.float64
        scores = self._scores(q2.astype(work), table.astype(work, copy=False))
        nq = q2.shape[0]
        xp = self.be.xp
        idx = xp.empty((nq, k), dtype=np.int32)
        val = xp.empty((nq, k), dtype=np.float64)
        self._launch("andrea_topk", "reduce", nq,
                     (scores, np.int32(nq), np.int32(rows), np.int32(k), idx, val),
                     mod=self.cos_mod)
        idx = self.be.asnumpy(idx).astype(np.int64)
        val = self.be.asnumpy(val)
        return (idx[0], val[0]) if q.ndim == 1 else (idx, val)
