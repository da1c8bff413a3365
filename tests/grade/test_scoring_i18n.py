"""The rubric rule and the message catalogs."""

import re

import pytest

from graders.conformance.runner import CheckResult
from graders.grade import messages as M
from graders.conformance.i18n import _plural_catalog
from graders.conformance.messages import PLURALS
from graders.grade.i18n import LANGUAGES, _catalog, all_msgids, translator
from tests.grade.reports import report_of


def test_partial_credit_per_group(spec):
    results = [
        CheckResult("a", ("EMB-LOOKUP-01",), "passed"),
        CheckResult("b", ("EMB-LOOKUP-02",), "failed", message="x", cause="wrong_value"),
        CheckResult("c", ("EMB-LOOKUP-03",), "error", message="slow", cause="fault",
                    details={"fault": "timeout", "function": "lookup"}),
        CheckResult("d", ("BWD-TOK-01",), "passed"),
        CheckResult("e", ("POS-SIN-01",), "skipped", cause="optional_absent"),
    ]
    rep = report_of(spec, results)
    groups = {g["id"]: g for g in rep["groups"]}
    # 20 points over 3 checks: 6.67 + 6.67 + 6.66 (largest remainder, to the cent)
    assert groups["lookup"]["score"] == 6.67
    assert groups["backward"]["score"] == 20
    assert rep["score"] == 26.67
    assert rep["max_score"] == 40 + 0            # only groups with checks
    assert set(rep["groups_without_checks"]) == {"params", "embed", "init", "vectors"}
    checks = {c["id"]: c for c in rep["checks"]}
    assert [checks[k]["max_score"] for k in "abc"] == [6.67, 6.67, 6.66]
    assert checks["b"]["score"] == 0
    assert checks["c"]["hint"] == M.HINT_TIMEOUT
    assert checks["d"]["visibility"] == "after_due_date"
    assert checks["e"]["visibility"] == "hidden"


def _full_rubric_results(spec, status="passed", cause=None):
    from graders.conformance.registry import all_checks

    return [CheckResult(c.id, c.clauses, status, cause=cause) for c in all_checks()]


def test_points_add_up_exactly(spec):
    """Tests add up to their groups and groups to the total, to the cent, pass or fail."""
    from decimal import Decimal

    results = _full_rubric_results(spec)
    for i in range(0, len(results), 3):   # fail every third check
        results[i].status, results[i].cause = "failed", "wrong_value"
    for rep in (report_of(spec, _full_rubric_results(spec)),
                report_of(spec, results)):
        cents = lambda x: Decimal(str(x))   # noqa: E731 - exact decimal sums
        for g in rep["groups"]:
            mine = [c for c in rep["checks"] if g["id"] in c["groups"]]
            assert sum(cents(c["shares"][g["id"]]) for c in mine) == cents(g["points"])
            assert sum(cents(c["shares"][g["id"]]) for c in mine
                       if c["score"]) == cents(g["score"])
        for c in rep["checks"]:
            assert sum(cents(v) for v in c["shares"].values()) == cents(c["max_score"])
        assert sum(cents(g["score"]) for g in rep["groups"]) == cents(rep["score"])
        assert sum(cents(c["score"]) for c in rep["checks"]) == cents(rep["score"])
        assert sum(cents(g["points"]) for g in rep["groups"]) == cents(rep["max_score"])
    perfect = report_of(spec, _full_rubric_results(spec))
    assert perfect["score"] == perfect["max_score"] == 100


def test_a_check_bug_costs_nothing_and_skips_are_not_failures(spec):
    from graders.grade import formats

    results = _full_rubric_results(spec)
    bug = next(r for r in results if r.check_id == "lookup_selects_row")
    bug.status, bug.cause = "error", "check_bug"
    bug.message = "internal error in check lookup_selects_row: KeyError: 'x'"
    for r in results:
        if "POS-SIN-01" in r.clauses:
            r.status, r.cause, r.details = "skipped", "optional_absent", {"function": "rope"}
    rep = report_of(spec, results)
    assert rep["score"] == rep["max_score"] == 100
    gs = formats.gradescope(rep)
    by_name = {t["name"].split(": ")[1].split(" ")[0]: t for t in gs["tests"]}
    assert by_name["lookup_selects_row"]["status"] == "passed"
    assert "bug in the grader" in by_name["lookup_selects_row"]["output"]
    assert M.WHAT_WENT_WRONG not in by_name["lookup_selects_row"]["output"]
    skipped = [t for c, t in zip(rep["checks"], gs["tests"]) if c["status"] == "skipped"]
    assert skipped and all(t["status"] == "passed" for t in skipped)
    assert all(M.WHAT_WENT_WRONG not in t["output"] for t in skipped)
    text = formats.text(rep)
    assert "lookup_selects_row" not in text and M.WHAT_WENT_WRONG not in text


def test_hidden_groups_hide_the_total(spec):
    from graders.grade import formats

    results = _full_rubric_results(spec)
    for r in results:
        if any(c.startswith("BWD-") for c in r.clauses):   # backward: after_due_date
            r.status, r.cause = "failed", "wrong_value"
    rep = report_of(spec, results)
    assert rep["score"] == 80
    out = formats.gradescope(rep)["output"]
    assert "80" not in out and "Total score" not in out and "Backward" not in out
    assert "Token lookup: 20 / 20" in out


def _fields(text: str) -> list[str]:
    """The placeholders of a format string, with conversion and format spec ("got!r", "n:,")."""
    import string

    return sorted(f"{name}!{conv}:{spec}" for _, name, spec, conv in string.Formatter().parse(text)
                  if name is not None)


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_catalogs_translate_every_message(lang):
    cat = _catalog(lang)
    plurals = _plural_catalog(lang)[0]   # msgid/msgid_plural entries, by the singular
    missing = [m for m in all_msgids() if m not in cat and m not in plurals]
    assert not missing, f"{lang}: untranslated {missing}"
    for msgid, text in cat.items():
        assert _fields(msgid) == _fields(text), msgid
    assert set(plurals) == set(PLURALS)
    for msgid, forms in plurals.items():
        assert all(_fields(msgid) == _fields(text) for text in forms), msgid
    # numbers stay numbers: a translated template formats the same values
    t = translator(lang)
    out = t("{name}[{index}]={got!r}, but should be {want!r} (|error| {error:.3g} > allowed "
            "{allowed:.3g}; {bad} of {size} elements off)", name="x", index="0, 1", got=1.5,
            want=2.0, error=0.5, allowed=1e-6, bad=1, size=4)
    assert "1.5" in out and "2.0" in out and "1e-06" in out


def test_every_check_message_is_a_translatable_template():
    """No fail() message is built at run time, so every one is in the catalogs."""
    from graders.conformance import catalog

    assert catalog.unresolved() == []
    assert len(catalog.templates()) > 30
    assert set(catalog.templates()) <= set(all_msgids())


def test_group_titles_in_spec_are_catalogued(spec):
    assert {g["title"] for g in spec.groups.values()} <= set(M.GROUP_TITLES)


def test_translator_formats_and_falls_back():
    assert translator("ko")(M.CHECKS_PASSED, passed=1, total=2) == "검사 2개 중 1개 통과"
    assert translator("nl")("not in the catalog") == "not in the catalog"
    with pytest.raises(ValueError):
        translator("fr")


@pytest.mark.parametrize("name", ["andrea-120m", "gpt2-small"])
def test_every_clause_statement_is_in_every_language(name):
    """Students read the clause statements in nl and ko too; the spec carries them."""
    from spec import load_spec

    for clause in load_spec(name).clauses:
        for lang in ("nl", "ko"):
            text = clause.statement_in(lang)
            assert text and text != clause.statement, (name, clause.id, lang)
            # the same large numbers as the English statement (written the language's way)
            numbers = {re.sub(r"[,.]", "", n) for n in re.findall(r"\d[\d,.]*\d", clause.statement)}
            bare = re.sub(r"(?<=\d)[,.](?=\d)", "", text)
            assert all(n in bare for n in numbers if len(n) >= 3), (clause.id, lang, numbers)
