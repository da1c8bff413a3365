"""Hypothesis strategies derived from a spec.

Sizes are mostly small (fast, and Hypothesis shrinks them further), sometimes the spec's real
sizes (ids up to V-1 = 8448, T up to the context of 1024, d_model 768); the edge ids 0 and V-1
are always reachable. Every draw is labelled, so a failing example reads
``Draw 1 (vocab_size): 3``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ID_DTYPES = (np.int64, np.int32)
REAL_SIZE_ODDS = 8  # about one example in this many uses the spec's real sizes


def dim(real: int, small_max: int) -> st.SearchStrategy[int]:
    """A size: the spec's real one about once in REAL_SIZE_ODDS draws, else 1..small_max.

    Each dimension decides on its own, so ids up to V-1 usually come with a small d_model and a
    full (V, d_model) table is rare: examples stay cheap, and shrinking goes to small sizes.
    """
    flag = st.sampled_from([False] * (REAL_SIZE_ODDS - 1) + [True])
    return flag.flatmap(lambda real_size: st.just(real) if real_size
                        else st.integers(1, min(small_max, real)))


def sequence_sizes(data, spec, *, d_small: int, batched: bool | None = None):
    """(vocab_size, context_length, d_model, ids shape (T,) or (B, T)), labelled draws.

    B is kept small when a row is large, so a real-size draw stays a few megabytes.
    """
    m = spec.model
    vocab = data.draw(dim(m.vocab_size, 64), label="vocab_size")
    context = data.draw(dim(m.context_length, 16), label="context_length")
    d = data.draw(dim(m.d_model, d_small), label="d_model")
    t = data.draw(st.integers(1, context), label="T")
    if batched is None:
        batched = data.draw(st.booleans(), label="batched")
    b_max = 4 if t * d <= 4096 else 2
    shape = (data.draw(st.integers(1, b_max), label="B"), t) if batched else (t,)
    return vocab, context, d, shape


def ids(num_rows: int, shape) -> st.SearchStrategy[np.ndarray]:
    """Integer ids in [0, num_rows), edges 0 and num_rows-1 always reachable."""
    elements = st.one_of(st.just(0), st.just(num_rows - 1), st.integers(0, num_rows - 1))
    return hnp.arrays(dtype=st.sampled_from(ID_DTYPES), shape=shape, elements=elements)


def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, 2**32 - 1)


def table(seed: int, rows: int, d_model: int, dtype=np.float32) -> np.ndarray:
    """A random (rows, d_model) table with distinct rows, built from `seed` (fast at real sizes)."""
    return np.random.default_rng(seed).standard_normal((rows, d_model), dtype=np.float32).astype(
        dtype, copy=False)


SPECIAL_VALUES = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38], dtype=np.float32)


def with_special_values(t: np.ndarray, seed: int) -> np.ndarray:
    """Sprinkle NaN, -0.0, +-inf and subnormals over `t`: a lookup must copy them bit for bit."""
    rng = np.random.default_rng(seed)
    flat = t.reshape(-1)
    k = min(flat.size, len(SPECIAL_VALUES))
    flat[rng.choice(flat.size, size=k, replace=False)] = SPECIAL_VALUES[:k].astype(t.dtype)
    return t


VECTOR_RANGE = (1e-15, 1e15)


def vectors(n: int, dtype) -> st.SearchStrategy[np.ndarray]:
    """Vectors whose entries are 0 or of magnitude 1e-15..1e15, in float32 or float64.

    Built from a seed and a spread (decades of magnitude: 0, 3 or 15) rather than element by
    element, so a failure shrinks in a few steps to a short vector of ordinary numbers. The
    range is wide enough to expose a wrong formula and narrow enough that the textbook
    sqrt(v_0^2 + ... + v_n^2) neither overflows nor underflows in float32.
    """
    return st.tuples(seeds(), st.sampled_from([0, 3, 15]), st.booleans()).map(
        lambda t: _vector(n, dtype, *t))


def _vector(n: int, dtype, seed: int, spread: int, zeros: bool) -> np.ndarray:
    lo, hi = VECTOR_RANGE
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) * 10.0 ** (spread * rng.uniform(-1.0, 1.0, n))
    v = np.sign(v) * np.clip(np.abs(v), lo, hi)
    if zeros:
        v[rng.random(n) < 0.25] = 0.0
    return v.astype(dtype)
