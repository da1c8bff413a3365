"""andrea-conform --lang: the students' self-check speaks Dutch and Korean as the grader does
(the same catalogs): the per-check report, the notebook notes, the summary line and the
reproducer's closing comment, with Python's exceptions in words."""

from __future__ import annotations

import shutil

import pytest

from graders.conformance import cli
from tests.corpus import HERE as CORPUS, buggy_cases
from tests.language import unreadable


def _conform(capsys, *argv) -> tuple[int, str]:
    code = cli.main([*argv, "--profile", "dev"])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_a_failing_check_is_reported_in_the_students_language(lang, capsys, tmp_path,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("backward_assigns", "norm_raises"):
        next(b for b in buggy_cases() if b.name == name).write(tmp_path)
    code, out = _conform(capsys, "backward_assigns.py", "--lang", lang, "--select", "BWD-TOK-01")
    assert code == 1 and "token_gradient_scatter_add" in out
    code2, out2 = _conform(capsys, "norm_raises.py", "--lang", lang, "--select", "VEC-NORM-01")
    assert code2 == 1 and "NotImplementedError" not in out2     # said in words
    for text in (out, out2):
        assert "# or:" not in text and unreadable(text, lang) == [], text
    english = _conform(capsys, "backward_assigns.py", "--select", "BWD-TOK-01")[1]
    assert unreadable(english, lang)                            # the reader can fail


@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_notebook_notes_are_in_the_students_language(lang, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("notebook_demo_raises.ipynb", "notebook_magics.ipynb"):
        shutil.copy(CORPUS / "correct" / name, tmp_path / name)
        code, out = _conform(capsys, name, "--lang", lang, "--select", "VEC-DOT-01")
        assert code == 0, out
        assert unreadable(out, lang) == [], out
    english = _conform(capsys, "notebook_demo_raises.ipynb", "--select", "VEC-DOT-01")[1]
    assert "Cell 7, line 1 raised NameError" in english          # English keeps the class
