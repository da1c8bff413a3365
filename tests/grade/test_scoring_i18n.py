"""The rubric rule and the message catalogs."""
import re

import pytest

import graders.conformance.hints as hints
from graders.conformance.runner import CheckResult
from graders.grade import messages as M
from graders.grade import scoring
from graders.grade.i18n import LANGUAGES, _catalog, translator


def test_partial_credit_per_group(spec):
    results = [
        CheckResult("a", ("EMB-LOOKUP-01",), "passed"),
        CheckResult("b", ("EMB-LOOKUP-02",), "failed", message="x"),
        CheckResult("c", ("EMB-LOOKUP-03",), "error", message="timeout: slow"),
        CheckResult("d", ("BWD-TOK-01",), "passed"),
        CheckResult("e", ("POS-SIN-01",), "skipped"),
    ]
    rep = scoring.build(spec, results, meta={})
    groups = {g["id"]: g for g in rep["groups"]}
    assert groups["lookup"]["score"] == pytest.approx(20 / 3, abs=1e-4)
    assert groups["backward"]["score"] == 20
    assert rep["score"] == pytest.approx(20 / 3 + 20, abs=1e-4)
    assert rep["max_score"] == 40 + 0            # only groups with checks
    assert set(rep["groups_without_checks"]) == {"params", "embed", "init", "vectors"}
    checks = {c["id"]: c for c in rep["checks"]}
    assert checks["a"]["max_score"] == pytest.approx(20 / 3, abs=1e-4)
    assert checks["b"]["score"] == 0
    assert checks["c"]["hint"] == M.HINT_TIMEOUT
    assert checks["d"]["visibility"] == "after_due_date"
    assert checks["e"]["visibility"] == "hidden"


def _msgids():
    ids = [v for k, v in vars(M).items() if k.isupper() and isinstance(v, str)]
    ids += list(M.GROUP_TITLES)
    ids += [v for k, v in vars(hints).items() if k.isupper() and isinstance(v, str)]
    return ids


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_catalogs_translate_every_message(lang):
    cat = _catalog(lang)
    missing = [m for m in _msgids() if m not in cat]
    assert not missing, f"{lang}: untranslated {missing}"
    for msgid, text in cat.items():
        assert set(re.findall(r"{(\w+)", msgid)) == set(re.findall(r"{(\w+)", text)), msgid


def test_group_titles_in_spec_are_catalogued(spec):
    assert {g["title"] for g in spec.groups.values()} <= set(M.GROUP_TITLES)


def test_translator_formats_and_falls_back():
    assert translator("ko")(M.CHECKS_PASSED, passed=1, total=2) == "검사 2개 중 1개 통과"
    assert translator("nl")("not in the catalog") == "not in the catalog"
    with pytest.raises(ValueError):
        translator("fr")
