"""The init checks' quantiles and KS p-value (scipy.special) agree with scipy.stats.

The checks avoid importing scipy.stats (about a second per grading process); these asserts keep the
replacements honest: the same critical values, the same KS statistic, and a KS p-value that is never
below the exact one (so the 1e-9 false-rejection bound still holds) and equal to it in the tail."""

import numpy as np
import pytest
from scipy import stats

from graders.conformance.checks import init as I

ALPHA = 5e-10


@pytest.mark.parametrize("n", [1, 2, 7, 100, 8192, 32768, 200_000])
def test_quantiles_equal_scipy_stats(n):
    assert I._t_isf(ALPHA, n) == pytest.approx(stats.t.isf(ALPHA, n), rel=1e-12)
    lo, hi = I._chi2_bounds(ALPHA, n)
    assert lo == pytest.approx(stats.chi2.ppf(ALPHA, n), rel=1e-12)
    assert hi == pytest.approx(stats.chi2.isf(ALPHA, n), rel=1e-12)
    assert I._norm_isf(ALPHA) == pytest.approx(stats.norm.isf(ALPHA), rel=1e-12)


@pytest.mark.parametrize("kind", ["normal", "uniform", "t3", "shifted"])
@pytest.mark.parametrize("n", [20, 1000, 32768])
def test_ks_matches_kstest(kind, n):
    rng = np.random.default_rng(n)
    x = {"normal": lambda: rng.standard_normal(n), "uniform": lambda: rng.uniform(-1, 1, n),
         "t3": lambda: rng.standard_t(3, n), "shifted": lambda: rng.standard_normal(n) + 0.3}[kind]()
    u = (x - x.mean()) / x.std()
    d, p = I._ks_normal(u)
    ref = stats.kstest(u, "norm")
    assert d == pytest.approx(float(ref.statistic), rel=1e-12, abs=1e-15)
    assert p >= float(ref.pvalue) * (1 - 1e-9)          # never stricter than the exact test
    if ref.pvalue < 1e-3:                                 # the tail where verdicts are made
        assert p == pytest.approx(float(ref.pvalue), rel=1e-6)
    if kind in ("uniform", "t3") and n == 32768:
        assert p < ALPHA                                  # the shapes the check must reject


def test_init_checks_do_not_import_scipy_stats():
    import subprocess
    import sys
    code = ("import sys, graders.conformance.checks.init; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("n", [32768, 33024, 20000])  # the last is not in the known table
def test_ks_critical_value_splits_accept_and_reject(n):
    crit = I._ks_critical(n, 1e-9)
    assert I._ks_pvalue(n, crit * (1 + 1e-6)) < 1e-9 <= I._ks_pvalue(n, crit * (1 - 1e-6))


def test_known_ks_critical_values_are_scipys_and_cover_the_shipped_specs():
    from scipy import special

    from spec import SPEC_DIR, load_spec

    for (n, alpha), crit in I._KS_CRITICAL_KNOWN.items():
        assert crit == float(special.smirnovi(n, alpha / 2)), (n, alpha)
    for path in sorted(SPEC_DIR.glob("*.yaml")):
        spec, name = load_spec(path), path.stem
        alpha = spec.statistics["false_rejection_probability"]
        missing = {n for n in I.ks_sample_sizes(spec) if (n, alpha) not in I._KS_CRITICAL_KNOWN}
        assert not missing, (f"spec {name}: add smirnovi(n, {alpha:g} / 2) for n in "
                             f"{sorted(missing)} to init._KS_CRITICAL_KNOWN")
