"""The runner's typed outcome: every way a check can end maps to one status and one cause, and
nothing the implementation does is ever taken for a bug of the check."""

from __future__ import annotations

import types

import numpy as np
import pytest

from graders.conformance.faults import CallTimeout
from graders.conformance.outcome import Cause, Status
from graders.conformance.registry import Check, all_checks
from graders.conformance.runner import run_check, run_checks
from graders.conformance.profiles import use_profile


def _check(func, requires=()):
    return Check(id="probe", clauses=("EMB-LOOKUP-01",), func=func, requires=requires)


def _impl(**functions):
    return types.SimpleNamespace(**functions)


def test_a_bug_in_the_check_is_the_checks_fault(andrea_spec):
    def broken(impl, spec):
        impl.lookup(np.zeros((2, 2), np.float32), np.array([0]))
        {}["missing"]

    r = run_check(_check(broken, ("lookup",)), _impl(lookup=lambda t, i: t[i]), andrea_spec)
    assert (r.status, r.cause) == (Status.ERROR, Cause.CHECK_BUG)
    assert "KeyError" in r.message and r.reproducer is None


def test_an_exception_of_the_implementation_is_raised_not_a_check_bug(andrea_spec):
    def lookup(table, ids):
        raise KeyError("oops")

    def calls(impl, spec):
        impl.lookup(np.zeros((2, 2), np.float32), np.array([0]))

    r = run_check(_check(calls, ("lookup",)), _impl(lookup=lookup), andrea_spec)
    assert (r.status, r.cause) == (Status.FAILED, Cause.RAISED)
    assert r.details == {"function": "lookup", "exception": "KeyError"}
    assert r.example.startswith("lookup(table=") and "load_impl" in r.reproducer


def test_an_assert_inside_the_implementation_is_raised(andrea_spec):
    def lookup(table, ids):
        assert False, "not written yet"

    r = run_checks(_impl(lookup=lookup), andrea_spec, profile="dev", select=["EMB-LOOKUP-01"])[0]
    assert (r.status, r.cause) == (Status.FAILED, Cause.RAISED)


@pytest.mark.parametrize("value", [np.array(["a", "b"]), np.array([1 + 2j]), "text", None,
                                   np.array([object()], dtype=object)])
def test_a_strange_result_is_a_wrong_value(value, andrea_spec):
    """Whatever comes back, the check reports it as the implementation's wrong value."""
    for sel in ("EMB-LOOKUP-01", "EMB-LOOKUP-02", "EMB-PERM-01", "INIT-DIST-01", "VEC-COS-01",
                "PAR-TOKEN-01", "BWD-TOK-01"):
        impl = _impl(lookup=lambda *a: value, init_table=lambda *a: value,
                     cosine_similarity=lambda *a: value, token_embedding_params=lambda *a: value,
                     embed_backward=lambda *a: value)
        r = run_checks(impl, andrea_spec, profile="dev", select=[sel])[0]
        assert r.status == Status.FAILED and r.cause == Cause.WRONG_VALUE, (sel, r)


def test_a_wrong_exception_and_a_missing_one(andrea_spec):
    def lookup(table, ids):
        if np.asarray(ids).dtype.kind != "i" or (ids < 0).any() or (ids >= len(table)).any():
            raise ValueError("bad id")
        return table[ids]

    impl = _impl(lookup=lookup, embed=lambda ids, t, p: t[ids] + p[: ids.shape[-1]])
    r = run_checks(impl, andrea_spec, profile="dev", select=["EMB-ERR-01"])[0]
    assert (r.status, r.cause) == (Status.FAILED, Cause.WRONG_EXCEPTION)


def test_a_fault_stops_the_check_with_its_kind(andrea_spec):
    def lookup(table, ids):
        raise CallTimeout("lookup() did not finish", function="lookup")

    r = run_checks(_impl(lookup=lookup), andrea_spec, profile="dev", select=["EMB-LOOKUP-01"])[0]
    assert (r.status, r.cause) == (Status.ERROR, Cause.FAULT)
    assert r.details == {"fault": "timeout", "function": "lookup"}
    assert r.example.startswith("lookup(table=")            # the call that faulted


def test_missing_and_optional_functions(andrea_spec):
    results = run_checks(_impl(), andrea_spec, profile="dev", select=["EMB-LOOKUP-01", "POS-*"])
    causes = {r.check_id: (r.status, r.cause) for r in results}
    assert causes["lookup_selects_row"] == (Status.FAILED, Cause.MISSING_FUNCTION)
    assert {v for k, v in causes.items() if k != "lookup_selects_row"} == {
        (Status.SKIPPED, Cause.OPTIONAL_ABSENT)}


def test_a_nondeterministic_implementation_fails_never_breaks_the_check(andrea_spec):
    calls = iter(range(10**6))

    def lookup(table, ids):
        out = table[ids]
        return out if next(calls) % 3 else out + 1      # wrong one call in three

    with use_profile("dev"):
        r = run_check(next(c for c in all_checks() if c.id == "lookup_selects_row"),
                      _impl(lookup=lookup), andrea_spec)
    assert r.status == Status.FAILED and r.cause == Cause.WRONG_VALUE


def test_results_serialise_with_plain_values(andrea_spec):
    import json

    r = run_checks(_impl(), andrea_spec, profile="dev", select=["EMB-LOOKUP-01"])[0]
    d = json.loads(json.dumps(r.to_dict()))
    assert d["status"] == "failed" and d["cause"] == "missing_function"
    assert d["template"] == "function {function} is missing" and d["fields"] == {"function": "lookup"}
