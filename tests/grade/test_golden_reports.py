"""Nothing a user reads of a report changes unnoticed: every output of the varied reports of
golden_cases.py (every format and language, feedback files, the batch's gradebook row, CSV,
summary.txt, summary.html, similarity.html) equals the file under tests/grade/golden/ that
make_golden.py wrote. A change meant to change them is made by running
``python -m tests.grade.make_golden`` and reviewing the diff."""

from __future__ import annotations

import difflib

import pytest

from tests.grade.golden_cases import outputs
from tests.grade.make_golden import GOLDEN


@pytest.fixture(scope="module")
def rendered(spec, tmp_path_factory):
    return outputs(spec, tmp_path_factory.mktemp("golden"))


def test_the_outputs_are_the_golden_files(rendered):
    stored = {p.name for p in GOLDEN.iterdir()}
    assert stored == set(rendered), (
        f"missing from golden/: {sorted(set(rendered) - stored)}; "
        f"no longer rendered: {sorted(stored - set(rendered))} "
        "(python -m tests.grade.make_golden writes them)")
    changed = [n for n in sorted(rendered)
               if (GOLDEN / n).read_text(encoding="utf-8") != rendered[n]]
    if changed:
        first = changed[0]
        diff = "".join(list(difflib.unified_diff(
            (GOLDEN / first).read_text(encoding="utf-8").splitlines(True),
            rendered[first].splitlines(True), f"golden/{first}", "now"))[:80])
        pytest.fail(f"{len(changed)} output(s) differ from tests/grade/golden/: "
                    f"{', '.join(changed[:12])}\n{diff}")


def test_the_cases_cover_what_the_outputs_must_show(rendered):
    """The golden set is varied: each kind of report is there and says its part."""
    en = {n: t for n, t in rendered.items() if ".en." in n}
    assert "SyntaxError at line 8" in en["syntax_error.text.en.txt"]
    assert "a.py, b.py" in en["no_module.feedback.en.md"]
    assert "cell 4, line 3" in en["notebook.gradescope.en.json"].lower()
    assert "%matplotlib inline" in en["notebook.feedback.en.md"]
    assert "andrea_lookup" in en["kernel.text.en.txt"]
    assert "#pragma is not allowed" in en["kernel_refused.gradescope.en.json"]
    assert "budget exhausted" in en["budget.text.en.txt"]
    assert "reference_copy" in en["flagged.gradescope.en.json"]
    assert "hidden print" not in en["hidden.gradescope.en.json"]
    assert "hidden print" in en["hidden.junit.en.xml"]
    assert "\x1b" not in "".join(rendered.values())
    assert "similar_to" in rendered["batch.scores.csv"]
