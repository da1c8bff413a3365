"""A missing function costs only its own group's points (docs/grading.md: "a partial submission
gets the points of the groups it implements").

The partial submissions are generated from a correct one (tests/corpus/correct/numpy_naive.py)
by leaving out one contract function at a time. Only the checks that call the function left
out (and, for a vector function, the vector checks, which also consult dot and norm) are run:
every other check calls only functions of the correct base and passes as it does for it
(tests/conformance/test_corpus.py runs the base through every check)."""

from __future__ import annotations

import pytest

from graders.conformance.outcome import Cause, Status
from graders.conformance.registry import all_checks
from graders.conformance.runner import CheckResult, load_impl, run_checks
from spec import load_spec
from tests.corpus import BASE, VECTOR_FUNCTIONS
from tests.grade.reports import report_of

SPEC = load_spec("andrea-120m")
REQUIRED = [f.name for f in SPEC.contract.functions if not f.optional]


def home_groups(spec) -> dict[str, set[str]]:
    """Each contract function's own rubric groups: those of the checks that call it alone."""
    groups = {c.id: c.group for c in spec.clauses}
    home: dict[str, set[str]] = {}
    for chk in all_checks(spec):
        if len(chk.requires) == 1 and not chk.if_present:
            home.setdefault(chk.requires[0], set()).update(groups[cl] for cl in chk.clauses)
    return home


def test_every_check_charges_a_missing_function_only_to_its_own_group():
    """The registry's rule, for every check of a group with points: the functions it requires
    are of its own group, and another group's functions are judged only when present
    (``if_present``), so that group alone pays for their absence."""
    home = home_groups(SPEC)
    groups = {c.id: c.group for c in SPEC.clauses}
    assert set(REQUIRED) <= set(home), set(REQUIRED) - set(home)
    for chk in all_checks(SPEC):
        gs = {groups[cl] for cl in chk.clauses}
        if not any(SPEC.groups[g].get("points") for g in gs):
            continue                        # a group worth nothing (the spec's arithmetic)
        for fn in chk.requires:
            own = bool(home.get(fn, set()) & gs)
            assert own != (fn in chk.if_present), (
                f"check {chk.id} ({sorted(gs)}) calls {fn} (of {sorted(home.get(fn, ()))}): "
                + ("list it in if_present" if not own else "it is the check's own function"))


def _without(fn: str, folder) -> object:
    path = folder / f"without_{fn}.py"
    path.write_text(BASE.read_text(encoding="utf-8") + f"\n\ndel {fn}\n", encoding="utf-8")
    return load_impl(path)


def _score(fn: str, folder) -> tuple[dict, list[CheckResult]]:
    checks = all_checks(SPEC)
    seen = {c.id for c in checks if fn in c.requires
            or (fn in VECTOR_FUNCTIONS and set(c.requires) & VECTOR_FUNCTIONS)}
    ran = {r.check_id: r for r in run_checks(_without(fn, folder), SPEC, profile="dev",
                                             select=sorted(seen))}
    results = [ran.get(c.id) or CheckResult(c.id, c.clauses, Status.PASSED) for c in checks]
    return report_of(SPEC, results), list(ran.values())


@pytest.mark.parametrize("fn", REQUIRED)
def test_a_function_left_out_costs_only_its_own_group(fn, tmp_path):
    report, ran = _score(fn, tmp_path)
    own = home_groups(SPEC)[fn]
    for g in report["groups"]:
        if g["id"] in own:
            assert g["score"] < g["points"], (fn, g)
        else:
            assert g["score"] == g["points"], (fn, g, [
                (r.check_id, r.status, r.message) for r in ran if r.status != Status.PASSED])
    for r in ran:
        if r.status == Status.FAILED:
            assert r.cause == Cause.MISSING_FUNCTION and r.details["function"] == fn, r
        elif r.status == Status.SKIPPED:     # only another group's function was missing
            assert r.cause == Cause.MISSING_ELSEWHERE and r.details["function"] == fn, r


def test_the_issues_figures(tmp_path):
    """Without embed_backward: 80 (the backward group's 20 points, nothing of embed's); a
    correct lookup without embed keeps the lookup group whole."""
    report, ran = _score("embed_backward", tmp_path)
    assert report["score"] == 80
    failed = {r.check_id for r in ran if r.status != Status.PASSED}
    assert {"sequence_longer_than_context", "inputs_not_mutated"}.isdisjoint(failed)
    report, _ = _score("embed", tmp_path)
    lookup = next(g for g in report["groups"] if g["id"] == "lookup")
    assert lookup["score"] == lookup["points"] == 20


def test_another_groups_function_is_still_judged_when_it_is_there(tmp_path):
    """if_present is not a loophole: a lookup group check still fails a wrong embed, and the
    purity check a lookup that changes its argument."""
    path = tmp_path / "embed_wraps.py"
    path.write_text(BASE.read_text(encoding="utf-8") + (
        "\n\n_embed = embed\n\ndef embed(token_ids, token_table, position_table):\n"
        "    ids = np.asarray(token_ids) % token_table.shape[0]\n"
        "    return _embed(ids, token_table, position_table)\n"
        "\n_lookup = lookup\n\ndef lookup(table, token_ids):\n"
        "    out = _lookup(table, token_ids)\n    table[...] = 0\n    return out\n"),
        encoding="utf-8")
    got = {r.check_id: r for r in run_checks(load_impl(path), SPEC, profile="dev",
                                             select=["out_of_range_ids", "inputs_not_mutated"])}
    assert got["out_of_range_ids"].status == Status.FAILED
    assert "embed(" in got["out_of_range_ids"].example
    assert got["inputs_not_mutated"].status == Status.FAILED
