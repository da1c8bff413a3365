"""graders/grade/formats.py: one report, every format; JSON that is JSON; the submission's words
inert in every output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from graders.conformance.runner import CheckResult
from graders.grade import scoring
from graders.grade.formats import FORMATS, inert_report, render
from spec import load_spec


@pytest.fixture(scope="module")
def report():
    spec = load_spec()
    ok = CheckResult("dot_product", ("VEC-DOT-01",), "passed")
    bad = CheckResult("vector_norm", ("VEC-NORM-01",), "failed", cause="wrong_value")
    bad.set_message("{function}() returned {got}", function="norm", got="\x1b[2J100")
    meta = {"submission": "hw.py", "sha256": "0" * 64, "module": "hw.py", "kind": "python",
            "spec": spec.name, "spec_sha256": "1" * 64, "profile": "dev",
            "grader_version": "1", "isolation": {"mode": "bwrap", "note": ""},
            "sections": {k: dict(v) for k, v in spec.sections.items()}, "notebook": None,
            "import": {"ok": True, "functions": ["dot", "norm"]}, "submission_output": "",
            "restarts": 0, "not_run": [], "flags": [], "execution_time": 1.0}
    return inert_report(scoring.build(spec, [ok, bad], meta=meta))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("lang", ["en", "nl", "ko"])
def test_every_format_renders_the_report(report, fmt, lang):
    out = render(report, fmt, lang)
    assert out and "\x1b" not in out                       # the escape code is inert
    if fmt in ("json", "gradescope"):
        json.loads(out)
    elif fmt == "junit":
        ET.fromstring(out)
    else:
        assert "VEC-NORM-01" in out or "vector_norm" in out
