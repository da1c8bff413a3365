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


def real_sizes() -> st.SearchStrategy[bool]:
    """True about once in REAL_SIZE_ODDS draws; shrinks to False (small)."""
    return st.sampled_from([False] * (REAL_SIZE_ODDS - 1) + [True])


def size(real: int, small_max: int, use_real: bool) -> st.SearchStrategy[int]:
    return st.just(real) if use_real else st.integers(1, min(small_max, real))


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

    Wide enough to expose a wrong formula, narrow enough that the textbook
    sqrt(v_0^2 + ... + v_n^2) neither overflows nor underflows in float32: an implementation
    of the course's formula is never rejected for the range of its dtype.
    """
    lo, hi = VECTOR_RANGE
    hi = float(np.float32(hi))  # representable in float32 too
    elements = st.floats(-hi, hi, width=np.finfo(dtype).bits, allow_nan=False,
                         allow_infinity=False).map(lambda x: 0.0 if abs(x) < lo else x)
    return hnp.arrays(dtype=dtype, shape=n, elements=elements)
