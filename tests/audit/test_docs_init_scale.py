"""The init scale a course text states is checked against the spec's init std: a text that
gives any other scale (1/d_model, sqrt(d_model), 0.02) is a mismatch at that line, and the
verdict follows the spec when its std changes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graders.audit.docs import READERS, audit_text
from spec import SPEC_DIR, load_spec

HEAD = {"en": "Trainable floats", "nl": "Trainbare floats", "ko": "학습 가능한 실수"}
SENTENCE = {
    "en": "Every entry starts as a small random float, drawn from a normal distribution {s}.",
    "nl": "Elke entry begint als een kleine willekeurige float, getrokken uit een normale "
          "verdeling {s}.",
    "ko": "모든 항목은 작은 무작위 실수로 시작합니다 (정규 분포 {s}).",
}


def _scale_findings(spec, lang: str, scale: str):
    text = f"Intro line.\n{HEAD[lang]}\n{SENTENCE[lang].format(s=scale)}\n"
    r = audit_text(text, spec, lang)
    return [f for f in r.findings if f.check == "phrase"]


@pytest.fixture(scope="module")
def andrea():
    return load_spec("andrea-120m")


@pytest.fixture(scope="module")
def std002(tmp_path_factory) -> object:
    raw = yaml.safe_load((SPEC_DIR / "andrea-120m.yaml").read_text(encoding="utf-8"))
    raw["model"]["init"]["std"] = 0.02
    path = Path(tmp_path_factory.mktemp("spec")) / "std002.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_spec(path)


@pytest.mark.parametrize("lang, scale, kind", [
    ("en", "scaled by 1/sqrt(d_model)", "ok"),
    ("nl", "geschaald met 1/√d_model", "ok"),
    ("en", "N(0, 1/d_model)", "ok"),                        # a variance, written as one
    ("nl", "met variantie 1/d_model", "ok"),
    ("en", "scaled by 1/d_model", "mismatch"),              # variance and std confused
    ("nl", "geschaald met 1/d_model", "mismatch"),
    ("ko", "1/d_model로 스케일링된", "mismatch"),
    ("en", "scaled by sqrt(d_model)", "mismatch"),
    ("en", "with std 0.02", "mismatch"),
    ("nl", "met standaardafwijking 0,02", "mismatch"),
    ("en", "with a small scale", "unverified"),
])
def test_stated_scale_against_andrea_spec(andrea, lang, scale, kind):
    found = _scale_findings(andrea, lang, scale)
    assert [(f.kind, f.line, f.clause) for f in found] == [(kind, 3, "INIT-DIST-01")], found
    if kind == "mismatch":
        assert "1/sqrt(d_model) = 0.0360844" in found[0].note


@pytest.mark.parametrize("scale, kind", [
    ("with std 0.02", "ok"),
    ("scaled by 1/sqrt(d_model)", "mismatch"),
    ("N(0, 1/d_model)", "mismatch"),
])
def test_verdict_follows_the_spec_std(std002, scale, kind):
    found = _scale_findings(std002, "en", scale)
    assert [f.kind for f in found] == [kind]
    assert found[0].expected == "std = 0.02 = 0.02"


def test_shape_readers_are_a_named_table():
    """Only numbers whose shape gives them away are read by pattern; the rest are claims."""
    names = [r.name for r in READERS]
    assert len(names) == len(set(names)) >= 6
    assert not any("bare" in n or "percent" in n for n in names)


def test_spec_audit_catches_a_stale_init_statement(std002, tmp_path):
    """The spec's std edited to 0.02, the clause statement left at 1/sqrt(d_model)."""
    from graders.audit.spec_audit import audit_spec

    report = audit_spec(std002.path)
    bad = [c for c in report.checks if not c.ok]
    assert [(c.kind, c.subject) for c in bad] == [("statement", "INIT-DIST-01")]
    assert "the spec's init std is 0.02" in bad[0].detail
    assert audit_spec("andrea-120m").ok and audit_spec("gpt2-small").ok


def test_course_text_against_the_real_gpt2_spec(nl_doc):
    """The Dutch course says 1/sqrt(d_model): right for ANDREA, a mismatch for GPT-2 (0.02)."""
    from graders.audit.docs import audit_document

    for name, kind in (("andrea-120m", "ok"), ("gpt2-small", "mismatch")):
        r = audit_document(nl_doc, load_spec(name), "nl")
        init = [f for f in r.findings if f.clause == "INIT-DIST-01"]
        assert [(f.kind, f.line, f.text) for f in init] == [(kind, 11, "1/sqrt(d_model)")], name
