"""graders/conformance/results.py: how large a contract function's result may be, judged before
it is read (in process here; the grader's proxy: tests/grade/test_proxy.py and
tests/grade/test_attacks_memory.py), and failures that keep no value alive."""

from __future__ import annotations

import types
import weakref

import numpy as np
import pytest

from andrea_runtime import protocol as P
from graders.conformance import results as R
from graders.conformance.outcome import Cause, Status
from graders.conformance.registry import ConformanceError, all_checks
from graders.conformance.runner import _Recorder, run_check, run_checks
from spec import load_spec


@pytest.mark.parametrize("name", ["andrea-120m", "gpt2-small"])
def test_every_contract_function_has_a_size_rule(name):
    spec = load_spec(name)
    assert {f.name for f in spec.contract.functions} <= set(R.EXPECTED)


def test_the_expected_size_follows_the_arguments():
    table, ids = np.zeros((10, 4), np.float32), np.arange(6).reshape(2, 3)
    assert R.expected_values("lookup", (table, ids), {}) == 24
    assert R.expected_values("lookup", (table,), {"token_ids": ids}) == 24   # by keyword
    assert R.expected_values("embed", (ids, table, table), {}) == 24
    grad = np.zeros((2, 3, 5))
    assert R.expected_values("embed_backward", (ids, grad, 10, 4), {}) == 70
    assert R.expected_values("init_table", (np.int64(8449), 768, None), {}) == 8449 * 768
    assert R.expected_values("sinusoidal_encoding", ([0, 1, 2], 8), {}) == 24
    assert R.expected_values("rope", (np.zeros((3, 8)), [0, 1, 2]), {}) == 24
    assert R.expected_values("norm", (np.ones(3),), {}) == 1
    # arguments that fix no size (an error input, which must raise): no result is expected
    assert R.expected_values("init_table", (3.0, 4, None), {}) == 0
    assert R.expected_values("init_table", (-1, 4, None), {}) == 0
    assert R.expected_values("embed_backward", (ids, grad, "10", 4), {}) == 0
    assert R.allowed_values(0) == R.FLOOR
    # a function the contract does not have: only the reply cap
    assert R.expected_values("no_such_function", (), {}) is None
    assert R.allowed_values(None) is None and R.reply_bytes(None) is None


def test_values_are_counted_as_a_result_is_sized():
    assert P.values_in(np.zeros((3, 4))) == 12
    assert P.values_in(np.zeros(3, dtype="<U100")) == 3 * 400 // 8   # wide elements: bytes / 8
    assert P.values_in((np.zeros(5), np.zeros(7))) == 13             # the tuple and its items
    assert P.values_in([[0.5] * 4] * 3) == 1 + 3 * 5
    assert P.values_in("x" * 80) == 10
    loop: list = []
    loop.append(loop)
    assert P.values_in(loop, stop=1000) == 1001                      # a list that holds itself


def test_a_result_far_larger_than_the_contract_is_refused_before_a_check_reads_it():
    big = np.zeros(1_000_000)
    seen: list = []

    def lookup(table, ids):
        seen.append(1)
        return big

    rec = _Recorder(types.SimpleNamespace(lookup=lookup))
    with pytest.raises(ConformanceError) as info:
        rec.lookup(np.zeros((5, 4)), np.array([1, 2]))
    assert str(info.value) == ("lookup() returned 1000000 values where 8 were expected for these "
                               "arguments: a result this much larger than the contract's is not "
                               "read")
    assert info.value.template == R.MSG_TOO_LARGE and info.value.fields["got"] == 1000000
    # within the bound (a wrong shape of honest size): returned as it is, for the check to judge
    rec = _Recorder(types.SimpleNamespace(lookup=lambda t, i: np.zeros((5, 4))))
    assert rec.lookup(np.zeros((5, 4)), np.array([1, 2])).shape == (5, 4)


def test_the_sentence_has_plural_forms_and_says_what_was_too_large():
    """gettext plural forms, chosen by the values expected (one: "1 was expected"), in every
    language; a reply too long for values within the bound says bytes, not values."""
    from graders.conformance.i18n import translator

    one, eight = R.too_large("norm", 5000, 1), R.too_large("lookup", 5000, 8)
    assert "where 1 was expected" in str(one) and "where 8 were expected" in str(eight)
    assert one.template == eight.template == R.MSG_TOO_LARGE
    nl, ko, en = translator("nl"), translator("ko"), translator("en")
    assert en(one.template, **one.fields) == str(one)
    assert "waar er 1 verwacht werd " in nl(one.template, **one.fields)
    assert "waar er 8 verwacht werden " in nl(eight.template, **eight.fields)
    assert "1개의 값" in ko(one.template, **one.fields)
    b = R.too_many_bytes("norm", 360012, 1, 262240)
    assert str(b) == ("norm() returned a result of 360012 bytes where 1 value was expected for "
                      "these arguments (at most 262240 bytes): a result this much larger than "
                      "the contract's is not read")
    b0 = R.too_many_bytes("lookup", 360012, 0, 262240)
    assert "where 0 values were expected" in str(b0)
    assert "waar 1 waarde verwacht werd" in nl(b.template, **b.fields)
    assert "waar 0 waarden verwacht werden" in nl(b0.template, **b0.fields)
    assert "360012바이트" in ko(b.template, **b.fields)


def test_a_too_large_result_fails_each_check_with_the_sentence_even_where_an_error_is_due(spec):
    big = np.zeros(200_000)
    impl = types.SimpleNamespace(lookup=lambda table, ids: big,
                                 norm=lambda v: float(np.sqrt(np.dot(v, v))))
    got = {r.check_id: r for r in run_checks(impl, spec, profile="dev", select=[
        "lookup_selects_row", "out_of_range_ids", "vector_norm"])}
    for cid in ("lookup_selects_row", "out_of_range_ids"):
        r = got[cid]
        assert r.status == Status.FAILED and r.cause == Cause.WRONG_VALUE, (cid, r.message)
        assert r.template == R.MSG_TOO_LARGE and "returned 200000 values" in r.message
        assert r.example.startswith("lookup(")
    assert got["vector_norm"].status == Status.PASSED


def test_a_failing_check_keeps_none_of_the_results_it_was_given(spec):
    """Hypothesis keeps a failure's exception while it shrinks and reports, and its traceback's
    frames held every result: after the check, nothing may (without a garbage collection)."""
    import gc

    refs: list = []

    def lookup(table, ids):
        out = np.full(ids.shape + table.shape[1:], 7.0, dtype=table.dtype)   # right shape,
        refs.append(weakref.ref(out))                                       # wrong values
        return out

    (check,) = [c for c in all_checks(spec) if c.id == "lookup_selects_row"]
    gc.disable()
    try:
        result = run_check(check, types.SimpleNamespace(lookup=lookup), spec)
        assert result.status == Status.FAILED, result.message
        assert refs and [r for r in refs if r() is not None] == []
    finally:
        gc.enable()
