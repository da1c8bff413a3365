"""Initialisation: INIT-SHAPE-01, INIT-DIST-01, INIT-DIST-02, INIT-RNG-01.

The statistical tests reject a correct implementation with probability below the spec's
`statistics.false_rejection_probability` (1e-9) each:

* mean:  sum(x) / (sigma sqrt(N)) ~ N(0, 1), exact for normal draws;
* scale: sum(x^2) / sigma^2 ~ chi-square(N), exact for normal draws;
* shape: Kolmogorov-Smirnov against N(0, sigma), exact p-value;
* rows:  the mean product of neighbouring rows, standardised, ~ N(0, 1) by the CLT.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, strategies as st
from scipy import stats

from .. import hints
from ..assertions import as_array, assert_dtype, assert_shape, call_repr, fail
from ..registry import check


def _init(impl, rows, d, seed):
    rng = np.random.default_rng(seed)
    call = call_repr("init_table", rows, d, rng)
    return as_array("table", impl.init_table(rows, d, rng), call), call


def _shape_for(d: int, min_samples: int) -> tuple[int, int]:
    return max(1, math.ceil(min_samples / d)), d


def _sizes(spec):
    """(rows, d_model) pairs with enough samples: small d_model, and the spec's own."""
    return st.sampled_from([4, 16, 64, spec.model.d_model])


@check("INIT-SHAPE-01", requires=("init_table",))
def init_shape_and_dtype(impl, spec):
    """init_table(num_rows, d_model, rng) is a float32 (num_rows, d_model) array."""

    @given(rows=st.integers(1, 64), d=st.integers(1, 64), seed=st.integers(0, 2**32 - 1))
    def prop(rows, d, seed):
        table, call = _init(impl, rows, d, seed)
        assert_shape("table", table, (rows, d), call)
        assert_dtype("table", table, np.float32, call)
        if not np.isfinite(table).all():
            fail("table has non-finite entries", call)

    prop()


@check("INIT-DIST-01", requires=("init_table",))
def init_mean_and_std(impl, spec):
    """Entries have mean 0 and std 1/sqrt(d_model) (exact tests at false-rejection 1e-9)."""
    alpha = spec.statistics["false_rejection_probability"]
    z = stats.norm.isf(alpha / 2)

    @given(d=_sizes(spec), seed=st.integers(0, 2**32 - 1))
    def prop(d, seed):
        rows, d = _shape_for(d, spec.statistics["min_samples"])
        table, call = _init(impl, rows, d, seed)
        assert_shape("table", table, (rows, d), call)
        x = table.astype(np.float64).ravel()
        n, sigma = x.size, 1.0 / math.sqrt(d)
        std = math.sqrt(float(np.mean(x * x)))
        mean_z = float(x.sum()) / (sigma * math.sqrt(n))
        if abs(mean_z) > z:
            fail(f"mean={x.mean():.3g}, but should be 0 (z = {mean_z:.1f}, allowed |z| <= {z:.2f}; "
                 f"N={n})", call, hints.INIT_SCALE)
        chi2 = float(np.sum(x * x)) / sigma**2
        lo, hi = stats.chi2.ppf(alpha / 2, n), stats.chi2.isf(alpha / 2, n)
        if not lo <= chi2 <= hi:
            fail(f"std={std:.4g}, but should be 1/sqrt(d_model) = {sigma:.4g} for d_model={d} "
                 f"(allowed {math.sqrt(lo / n) * sigma:.4g}..{math.sqrt(hi / n) * sigma:.4g} "
                 f"at N={n})", call, hints.INIT_SCALE)

    prop()


@check("INIT-DIST-02", requires=("init_table",))
def init_normal_and_independent(impl, spec):
    """Entries pass a Kolmogorov-Smirnov test for N(0, 1/d_model), and rows are uncorrelated."""
    alpha = spec.statistics["false_rejection_probability"]
    z = stats.norm.isf(alpha / 2)
    # KS needs more samples than the moment tests to see a wrong shape with the right std.
    min_samples = max(spec.statistics["min_samples"], 32768)

    @given(d=_sizes(spec), seed=st.integers(0, 2**32 - 1))
    def prop(d, seed):
        rows, d = _shape_for(d, min_samples)
        table, call = _init(impl, rows, d, seed)
        assert_shape("table", table, (rows, d), call)
        sigma = 1.0 / math.sqrt(d)
        x = table.astype(np.float64)
        ks = stats.kstest(x.ravel(), "norm", args=(0.0, sigma))
        if ks.pvalue < alpha:
            fail(f"entries are not normal: Kolmogorov-Smirnov D={ks.statistic:.4f}, "
                 f"p={ks.pvalue:.2g} < {alpha:g} (N={x.size})", call)
        # Products of neighbouring rows: mean 0, variance sigma^4 each, if rows are independent.
        prods = (x[1:] * x[:-1]).ravel()
        r = float(prods.sum()) / (sigma**2 * math.sqrt(prods.size))
        if abs(r) > z:
            fail(f"neighbouring rows are correlated: standardised sum of products {r:.1f}, "
                 f"allowed |z| <= {z:.2f}", call)
        if rows > 1 and np.unique(table, axis=0).shape[0] < rows:
            fail("some rows are identical copies of each other", call)

    prop()


@check("INIT-RNG-01", requires=("init_table",))
def init_reproducible_from_rng(impl, spec):
    """The same Generator state gives the same table; other seeds give other tables."""

    @given(rows=st.integers(1, 32), d=st.integers(1, 32), seed=st.integers(0, 2**32 - 2))
    def prop(rows, d, seed):
        a, call = _init(impl, rows, d, seed)
        np.random.seed(seed + 12345)  # global state must not matter
        b, _ = _init(impl, rows, d, seed)
        if a.shape != b.shape or not np.array_equal(a, b):
            fail("two calls with identical Generators gave different tables", call, hints.INIT_RNG)
        c, _ = _init(impl, rows, d, seed + 1)
        if rows * d >= 4 and np.array_equal(a, c):
            fail("different Generator seeds gave the same table", call, hints.INIT_RNG)

    prop()
