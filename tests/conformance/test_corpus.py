"""Meta-tests on the shared corpora (tests/corpus): correct submissions in four styles pass
every check, and each buggy submission fails exactly the checks its header names, with the
cause, hint and feedback a student can act on."""

from __future__ import annotations

import re

import numpy as np
import pytest

from graders.conformance.outcome import Cause, Status
from graders.conformance.registry import all_checks
from graders.conformance.runner import load_impl, run_checks
from graders.conformance import hints
from tests.corpus import BASE, buggy_cases, correct_files
from tests.grade.reports import report_of

CASES = {b.name: b for b in buggy_cases()}
# What feedback must never show: Hypothesis's internals and raw generator states.
INTERNALS = re.compile(r"Draw \d|Failing test case|Falsifying|data\(\.\.\.\)|bit_generator|PCG64|"
                       r"'state':")


def test_the_corpora_are_complete():
    assert len(correct_files()) >= 4
    assert len(CASES) >= 20
    known = {c.id for c in all_checks()}
    for case in CASES.values():
        assert case.fails and case.fails <= known, case.name


@pytest.mark.parametrize("path", correct_files(), ids=lambda p: p.stem)
def test_correct_styles_pass_every_check(path, andrea_spec):
    if path.stem == "numba_loops":       # the 'fast' extra (EXTRAS= can leave it out)
        pytest.importorskip("numba")
    results = run_checks(load_impl(path), andrea_spec, profile="dev")
    bad = [f"{r.check_id}: {r.cause}: {r.message}" for r in results
           if r.status not in (Status.PASSED, Status.SKIPPED)]
    assert not bad, "\n".join(bad)
    assert {r.status for r in results if r.status != Status.PASSED} <= {Status.SKIPPED}
    assert all(r.cause == Cause.OPTIONAL_ABSENT for r in results if r.status == Status.SKIPPED)
    # andrea-grade's rubric on the same verdicts: full marks (two styles are also graded
    # through the isolated worker, tests/grade/test_corpus_grade.py)
    report = report_of(andrea_spec, results)
    assert report["score"] == report["max_score"] == 100


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, andrea_spec):
    """Each buggy submission's results on the checks that can see its edit (dev profile)."""
    folder = tmp_path_factory.mktemp("buggy")
    checks = all_checks()
    cache = {}

    def get(name):
        if name not in cache:
            case = CASES[name]
            cache[name] = run_checks(load_impl(case.write(folder)), andrea_spec,
                                     profile="dev", select=case.select(checks))
        return cache[name]

    return get


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_bug_fails_exactly_the_checks_it_breaks(name, verdicts):
    case = CASES[name]
    results = verdicts(name)
    failed = {r.check_id for r in results if r.status != Status.PASSED}
    assert failed == case.fails, (
        f"{name} ({case.bug}): expected {sorted(case.fails)}, got {sorted(failed)}\n"
        + "\n".join(f"  {r.check_id} {r.status} {r.cause}: {r.message}" for r in results
                    if r.check_id in failed ^ case.fails))
    for r in results:
        if r.status == Status.PASSED:
            continue
        assert r.cause != Cause.CHECK_BUG, r
        assert r.message and r.template
        assert r.template.format(**r.fields) == r.message
        for text in (r.message, r.example or "", r.reproducer or ""):
            assert not INTERNALS.search(text), text
        if r.cause != Cause.MISSING_FUNCTION:
            assert r.example and "(" in r.example            # the call, named arguments
            assert r.reproducer and "load_impl" in r.reproducer


def test_the_correct_base_of_the_buggy_files_is_in_the_correct_corpus():
    """The buggy runs skip the checks that call only functions of the base; the base passes
    every check (test_correct_styles_pass_every_check), so those would pass too."""
    assert BASE in correct_files()


@pytest.mark.parametrize("name, cause, hint", [
    ("lookup_onehot_product", Cause.WRONG_VALUE, hints.ARITHMETIC_LOOKUP),
    ("norm_raises", Cause.RAISED, hints.RAISED),
    ("out_of_range_valueerror", Cause.WRONG_EXCEPTION, hints.WRAP_AROUND),
    ("negative_ids_wrap", Cause.WRONG_EXCEPTION, hints.WRAP_AROUND),
    ("no_backward", Cause.MISSING_FUNCTION, None),
    ("backward_assigns", Cause.WRONG_VALUE, hints.REPEATED_IDS),
    ("init_variance_for_std", Cause.WRONG_VALUE, hints.INIT_SCALE),
    ("embed_float64", Cause.WRONG_VALUE, hints.DTYPE),
    ("lookup_clips_ids", Cause.WRONG_EXCEPTION, hints.WRAP_AROUND),
    ("integral_float_ids", Cause.WRONG_EXCEPTION, hints.NOT_INTEGER),
    ("init_reseeds", Cause.WRONG_VALUE, hints.INIT_RNG),
    ("embed_mutates_table", Cause.WRONG_VALUE, hints.MUTATION),
    ("positions_not_restarting", Cause.WRONG_VALUE, hints.POSITION_PER_ROW),
    ("init_std_002", Cause.WRONG_VALUE, hints.INIT_SCALE),
    ("ids_modulo", Cause.WRONG_EXCEPTION, hints.WRAP_AROUND),
])
def test_the_cause_and_hint_name_the_real_reason(name, cause, hint, verdicts):
    first = next(r for r in verdicts(name) if r.status != Status.PASSED)
    assert first.cause == cause, first
    assert first.hint == hint, first


def test_the_wrong_scale_is_reported_as_a_scale(verdicts):
    r = next(r for r in verdicts("init_variance_for_std") if r.status != Status.PASSED)
    assert r.message.startswith("std=") and "init_table(num_rows=" in r.example
    assert "np.random.default_rng(" in r.example and "np.random.default_rng(" in r.reproducer


def test_a_raising_function_is_named_with_its_call(verdicts):
    r = next(r for r in verdicts("norm_raises") if r.status != Status.PASSED)
    assert r.message.startswith("norm() raised NotImplementedError")
    assert r.details == {"function": "norm", "exception": "NotImplementedError"}
    assert r.example.startswith("norm(v=")


def test_a_raise_on_some_inputs_is_not_a_mutation(andrea_spec, tmp_path):
    """EMB-PURE-01 judges purity: the off-by-one embed that crashes at T = context loses the
    value checks, not this one (also under the thorough grading profile that finds the crash);
    a function that never returns is still reported as raising, with its own call."""
    case = CASES["position_off_by_one"]
    r = run_checks(load_impl(case.write(tmp_path)), andrea_spec, profile="grading",
                   select=["EMB-PURE-01"])[0]
    assert r.status == Status.PASSED, r.message
    stub = tmp_path / "stub.py"
    stub.write_text(BASE.read_text(encoding="utf-8") + "\n\ndef embed(token_ids, token_table, "
                    "position_table):\n    raise NotImplementedError\n", encoding="utf-8")
    r = run_checks(load_impl(stub), andrea_spec, profile="dev", select=["EMB-PURE-01"])[0]
    assert (r.status, r.cause) == (Status.FAILED, Cause.RAISED)
    assert r.example.startswith("embed(token_ids=")


def test_the_reproducer_makes_the_failing_call(verdicts):
    """The cosine check asks the implementation's own dot and norm after the cosine failed; the
    snippet must still call cosine_similarity, the call the failure shows."""
    r = next(r for r in verdicts("cosine_distance") if r.check_id == "dot_is_norms_times_cosine")
    assert r.example.startswith("cosine_similarity(")
    assert "print(impl.cosine_similarity(" in r.reproducer, r.reproducer


def test_a_real_size_failure_names_the_wrong_id_and_reproduces(verdicts, capsys, tmp_path):
    """A lookup wrong only for large ids (through float16) fails the real-size clause with the
    call of the first wrong id alone, and its reproducer builds the same table (not zeros) and
    runs."""
    r = next(r for r in verdicts("ids_through_float16") if r.check_id == "spec_sizes_accepted")
    assert r.status == Status.FAILED
    assert r.example.startswith("lookup(") and "token_ids=np.array([" in r.example
    wrong_id = int(r.example.split("token_ids=np.array([", 1)[1].split("]", 1)[0])
    assert wrong_id > 2048 and int(np.float16(wrong_id)) != wrong_id
    assert "np.zeros" not in r.reproducer and "default_rng(" in r.reproducer
    path = CASES["ids_through_float16"].write(tmp_path)
    snippet = r.reproducer.replace("load_impl('impl')", f"load_impl({str(path)!r})")
    exec(compile(snippet, "reproducer", "exec"), {})  # noqa: S102 - our own snippet
    assert capsys.readouterr().out.strip()
