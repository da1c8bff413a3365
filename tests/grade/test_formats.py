"""graders/grade/formats.py: one report, every format; JSON that is JSON; the submission's words
inert in every output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from graders.conformance.runner import CheckResult
from graders.grade.formats import FORMATS, render
from spec import load_spec
from tests.grade.reports import report_of


@pytest.fixture(scope="module")
def report():
    spec = load_spec()
    ok = CheckResult("dot_product", ("VEC-DOT-01",), "passed")
    bad = CheckResult("vector_norm", ("VEC-NORM-01",), "failed", cause="wrong_value")
    bad.set_message("{function}() returned {got}", function="norm", got="\x1b[2J100")
    return report_of(spec, [ok, bad], name="hw.py",
                     imp={"ok": True, "functions": ["dot", "norm"]})


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
