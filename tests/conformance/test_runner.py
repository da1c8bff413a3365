"""graders/conformance/runner.py: loading an implementation, the call recorder (private copies
and the one input-change comparison), results as data."""

from __future__ import annotations

import types

import numpy as np
import pytest

from andrea_runtime import snapshot
from graders.conformance.outcome import Cause, Status
from graders.conformance.registry import ConformanceError
from graders.conformance.runner import (CheckResult, ImplementationLoadError, _Recorder,
                                        load_impl, run_checks)


def _impl(**functions):
    return types.SimpleNamespace(**functions)


def test_a_call_gets_private_copies_and_a_change_to_them_is_a_violation():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    before = table.copy()

    def lookup(t, ids):
        out = t[ids].copy()
        t[0, 0] = np.float32(-0.0) if t[0, 0] == 0 else 0   # a change of one bit counts
        return out

    rec = _Recorder(_impl(lookup=lookup))
    with pytest.raises(ConformanceError, match="changed its input in place"):
        rec.lookup(table, np.array([1, 2]))
    assert snapshot.same_bytes(table, before)       # the check's own array is untouched


def test_a_call_that_changes_nothing_answers_and_is_recorded():
    rec = _Recorder(_impl(dot=lambda u, v: float(np.dot(u, v))))
    u = np.ones(3, np.float32)
    assert rec.dot(u, [1.0, 2.0, 3.0]) == 6.0
    name, args, _ = rec.last
    assert name == "dot" and len(args) == 2


def test_without_strict_a_change_is_kept_for_the_purity_check():
    seen: list = []
    rec = _Recorder(_impl(norm=lambda v: v.fill(0) or 0.0), observed=seen, strict=False)
    assert rec.norm(np.ones(4)) == 0.0
    assert len(seen) == 1


def test_load_impl_names_what_it_cannot_load(tmp_path):
    with pytest.raises(ImplementationLoadError, match="nope_not_a_module"):
        load_impl("nope_not_a_module")
    broken = tmp_path / "broken.py"
    broken.write_text("def dot(u, v):\n    return (\n", encoding="utf-8")
    with pytest.raises(ImplementationLoadError, match="broken.py"):
        load_impl(str(broken))


def test_results_are_typed_and_become_plain_data():
    from spec import load_spec

    results = run_checks(load_impl("andrea_ref"), load_spec(), profile="dev",
                         select=["dot_product"])
    assert [r.status for r in results] == [Status.PASSED]
    d = results[0].to_dict()
    assert d["status"] == "passed" and d["cause"] is None and isinstance(d["clauses"], list)
    r = CheckResult("x", ("VEC-DOT-01",), "failed", cause="wrong_value")
    assert r.status is Status.FAILED and r.cause is Cause.WRONG_VALUE
