"""Meta-tests of the assertion helpers and the tolerance model: they catch what they must and
never reject a correct answer computed in another order or precision."""

from __future__ import annotations

import numpy as np
import pytest

from graders.conformance.assertions import (assert_bitwise_equal, assert_close_scaled,
                                            assert_equal, assert_raises, call_repr)
from graders.conformance.registry import ConformanceError, SelectionError, all_checks, select
from graders.conformance.runner import PASSED, run_checks
from spec import load_spec


def test_bitwise_equal_sees_negative_zero_and_nan_payloads():
    a = np.array([0.0, 1.0], np.float32)
    with pytest.raises(ConformanceError, match=r"out\[0\]=.*-0\.0.*but should be.*0\.0"):
        assert_bitwise_equal("out", np.array([-0.0, 1.0], np.float32), a, "f()")
    nan1 = np.array([np.nan], np.float32)
    nan2 = nan1.view(np.uint32).copy()
    nan2 += 1
    with pytest.raises(ConformanceError):
        assert_bitwise_equal("out", nan2.view(np.float32), nan1, "f()")
    assert_bitwise_equal("out", nan1.copy(), nan1, "f()")


def test_messages_name_shape_dtype_and_call():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ConformanceError) as info:
        assert_bitwise_equal("out", x, np.zeros((3, 5), np.float32), "lookup(table, ids)")
    assert str(info.value) == "out.shape=(3, 4), but should be (3, 5)"
    assert info.value.call == "lookup(table, ids)"
    assert info.value.template == "{name}.shape={got}, but should be {want}"
    assert info.value.fields == {"name": "out", "got": (3, 4), "want": (3, 5)}
    with pytest.raises(ConformanceError, match=r"out.dtype=float64, but should be float32"):
        assert_bitwise_equal("out", x.astype(np.float64), x, "f()")


def test_equal_reports_first_mismatch_and_count():
    with pytest.raises(ConformanceError, match=r"x\[1\]=.*3.*but should be exactly.*2.*1 of 3"):
        assert_equal("x", np.array([1.0, 3.0, 5.0]), np.array([1.0, 2.0, 5.0]), "g()")


def test_raises_distinguishes_wrong_type_and_no_error():
    def wraps(ids):
        return ids[-1]

    with pytest.raises(ConformanceError, match="returned normally, but should raise IndexError"):
        assert_raises(IndexError, wraps, [1, 2], call="wraps([1, 2])")

    def wrong(_):
        raise ValueError("nope")

    with pytest.raises(ConformanceError, match=r"raised ValueError\('nope'\), but should raise IndexError") as info:
        assert_raises(IndexError, wrong, 1, call="wrong(1)")
    assert info.value.cause == "wrong_exception"
    assert isinstance(assert_raises(LookupError, lambda: [][1], call="x"), IndexError)


def test_call_repr_inlines_small_arrays_only():
    s = call_repr("lookup", np.zeros((100, 4), np.float32), np.arange(3), k=2)
    assert s == ("lookup(table=<float32 array of shape (100, 4)>, "
                 "token_ids=np.array([0, 1, 2], dtype=np.int64), k=2)")


def test_scaled_tolerance_rejects_a_dropped_term_but_not_roundoff():
    rng = np.random.default_rng(0)
    u, v = rng.standard_normal(768).astype(np.float32), rng.standard_normal(768).astype(np.float32)
    exact = float(np.dot(u.astype(np.float64), v.astype(np.float64)))
    scale = 768 * np.linalg.norm(u.astype(np.float64)) * np.linalg.norm(v.astype(np.float64))
    tol = load_spec().tolerance(np.float32)["per_term"]
    acc = np.float32(0)
    for a, b in zip(u, v):               # the worst order: one float32 running sum
        acc = np.float32(acc + a * b)
    assert_close_scaled("dot", float(acc), exact, scale, tol, "dot")
    assert_close_scaled("dot", float(np.dot(u[::-1], v[::-1])), exact, scale, tol, "dot")
    with pytest.raises(ConformanceError, match="allowed"):
        assert_close_scaled("dot", exact - float(u[-1]) * float(v[-1]) + 0.5, exact, scale, tol, "dot")


def test_select_refuses_patterns_that_match_nothing():
    with pytest.raises(SelectionError, match=r"--select EMB-NOPE-\* matches no check"):
        select(all_checks(), ["EMB-NOPE-*"])
    assert {c.id for c in select(all_checks(), ["bwd-tok-*"])} == {
        "token_gradient_scatter_add", "token_gradient_zero_rows"}


def test_sequential_float32_implementations_are_accepted(tmp_path):
    """Running float32 sums (the least accurate correct order) pass the reduction checks."""
    path = tmp_path / "sequential.py"
    path.write_text('''
import numpy as np
from andrea_ref import *
def dot(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("length mismatch")
    acc = u.dtype.type(0)
    for a, b in zip(u, v):
        acc = u.dtype.type(acc + a * b)
    return float(acc)
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    import andrea_ref
    ids = np.asarray(token_ids)
    g_tok, g_pos = andrea_ref.embed_backward(token_ids, grad_out, vocab_size, context_length)
    g_tok[:] = 0
    flat, rows = ids.reshape(-1), np.asarray(grad_out).reshape(-1, grad_out.shape[-1])
    for i in range(flat.size):
        g_tok[flat[i]] += rows[i]     # float32, in order of appearance
    return g_tok, g_pos
''')
    from graders.conformance.runner import load_impl
    results = run_checks(load_impl(path), load_spec(), profile="ci",
                         select=["VEC-DOT-01", "BWD-TOK-01"])
    assert [r.status for r in results] == [PASSED] * len(results), [r.message for r in results]


def test_a_hint_given_as_a_function_is_worked_out_only_when_the_check_fails():
    calls = []

    def diagnose():
        calls.append(1)
        return "the diagnosis"

    x = np.arange(4.0)
    assert_equal("x", x, x.copy(), "f()", hint=diagnose)
    assert_close_scaled("x", x, x.copy(), np.ones(4), 1e-6, "f()", hint=diagnose)
    assert calls == []  # passing: the diagnosis is never paid for
    with pytest.raises(ConformanceError) as info:
        assert_equal("x", x + 1, x, "f()", hint=diagnose)
    assert info.value.hint == "the diagnosis" and calls == [1]
    with pytest.raises(ConformanceError) as info:  # a diagnosis that finds nothing: no hint
        assert_bitwise_equal("x", np.float32([1.0]), np.float32([2.0]), "f()", hint=lambda: None)
    assert info.value.hint is None


@pytest.mark.parametrize("got, want, reshaped", [
    ((4, 1), (2, 2, 1), True),        # (B*T, d) for (B, T, d): flattened, values in order
    ((3, 5), (1, 3, 5), True),        # squeezed batch of one
    ((), (1, 1), True),               # everything squeezed
    ((6, 4), (2, 3, 4), True),
    ((3, 2, 4), (2, 3, 4), False),    # axes swapped: the values are out of order
    ((4, 6), (2, 3, 4), False),       # not a merge of neighbouring axes
    ((2, 3, 4), (6, 4), False),       # split, not merged
    ((5, 4), (2, 3, 4), False),       # another size
])
def test_in_shape_only_undoes_a_squeeze_or_a_flatten(got, want, reshaped):
    from graders.conformance.assertions import in_shape

    a = np.arange(int(np.prod(got)), dtype=np.float32).reshape(got)
    out = in_shape(a, want)
    assert (out.shape == tuple(want)) == reshaped
    assert np.array_equal(out.reshape(-1), a.reshape(-1))


def test_a_list_result_is_its_values_except_where_the_type_is_the_clause():
    from graders.conformance.assertions import as_array

    got = as_array("out", [[1.5, -0.0], [2.0, 3.0]], "f()")
    assert got.dtype == np.float64 and got.shape == (2, 2) and np.signbit(got[0, 1])
    with pytest.raises(ConformanceError, match="out is a list, but should be a numpy.ndarray"):
        as_array("out", [[1.5, -0.0]], "f()", exact_type=True)
    for bad in ([[1.0], [2.0, 3.0]], ["a", "b"], [object()], {"a": 1}):
        with pytest.raises(ConformanceError, match="should be a numpy.ndarray"):
            as_array("out", bad, "f()")
