"""Everything a student reads, in Dutch and in Korean, is in that language and free of the
grader's internals.

A handful of submissions (a buggy one per kind of message: a wrong value, a wrong count, a
built-in exception in the student's function, a wrong exception; an import error, a syntax
error, a notebook whose cell raises, a hang, a forbidden import, a kernel that does not
compile) are graded once each on one check, and every student-facing output is read: the
text report, Gradescope's ``output`` and each test's ``name`` and ``output`` (also what the
``json`` format shows), JUnit's messages and texts, and the batch's feedback files (Markdown and
HTML); the teacher's batch summary (summary.txt, summary.html, similarity.html) is read too. Code is left out of the reading (the
smallest input, the reproducer's code, the quoted source line, identifiers, quoted strings and
the course's own section titles); what remains must hold no English word, no exception class
of Python's other than the contract's TypeError, ValueError and IndexError, no class of the
kit's, and no word of the grader's machinery (Hypothesis, worker, sandbox, traceback, paths).

The reader is itself tested: it must flag the English rendering of the same reports.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import xml.etree.ElementTree as ET

import pytest

from graders.grade import formats, messages as M
from graders.grade.batch_reports import feedback_text, similarity_html, write_summary
from graders.grade.report import BatchRow
from graders.grade.class_summary import problem_of
from graders.grade.grading import kernel_support
from tests.corpus import BASE, buggy_cases
from tests.language import page_text, unreadable

from .conftest import HOSTILE, ROOT, grade_path, needs_bwrap
from tests.helpers import fast_limits

def student_texts(report: dict, lang: str) -> dict[str, str]:
    """Every text of the report a student reads, by where it is shown."""
    out = {"text": formats.text(report, lang, width=10_000)}
    gs = json.loads(formats.render(report, "gradescope", lang))
    js = json.loads(formats.render(report, "json", lang))
    for name, data in (("gradescope", gs), ("json", js)):
        out[f"{name} output"] = data["output"]
        for i, test in enumerate(data["tests"]):
            out[f"{name} test {i} name"] = test["name"]
            out[f"{name} test {i} output"] = test["output"]
    out["feedback md"] = feedback_text(report, lang, "md", "hw.py")
    out["feedback html"] = page_text(feedback_text(report, lang, "html", "hw.py"))
    root = ET.fromstring(formats.render(report, "junit", lang).split("\n", 1)[1])
    for i, el in enumerate(root.iter()):
        if el.tag in ("failure", "error", "skipped", "system-out"):
            out[f"junit {el.tag} {i}"] = "\n".join(x for x in (el.get("message"), el.text) if x)
    return out


def _buggy(name):
    return next(b for b in buggy_cases() if b.name == name)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# name -> (how to make the submission in tmp_path, the check it runs, what the report must show)
CASES = {
    "wrong_value": (lambda d: _buggy("backward_assigns").write(d),
                    ["token_gradient_scatter_add"], "failed"),
    "wrong_count": (lambda d: _buggy("counts_output_projection").write(d),
                    ["embedding_layer_params"], "failed"),
    "wrong_exception": (lambda d: _buggy("dot_length_typeerror").write(d),
                        ["vector_errors"], "failed"),
    "not_implemented": (lambda d: _buggy("norm_raises").write(d), ["vector_norm"], "failed"),
    "name_error_in_call": (lambda d: _write(d, "typo.py", BASE.read_text(encoding="utf-8") + (
        "\n\ndef lookup(table, token_ids):\n    return tabel[token_ids]\n")),
        ["lookup_selects_row"], "failed"),
    "module_not_found": (lambda d: _write(d, "missing.py", "import numpy as np\nimport torchh\n"),
                         ["lookup_selects_row"], "import"),
    "syntax_error": (lambda d: _write(d, "syntax.py", BASE.read_text(encoding="utf-8")
                                      + "\ndef broken(:\n    pass\n"),
                     ["lookup_selects_row"], "import"),
    "notebook_cell_raises": (lambda d: ROOT / "tests/corpus/correct/notebook_demo_raises.ipynb",
                             ["lookup_selects_row"], "cells"),
    "timeout": (lambda d: HOSTILE / "infinite_loop.py", ["vector_norm"], "error"),
    "forbidden_import": (lambda d: HOSTILE / "import_reference.py", ["lookup_selects_row"],
                         "import"),
    "kernel_compile_error": (lambda d: _write(d, "kernels.cu", (
        ROOT / "tests/gpu/kernels/submissions/correct_flat_atomics.cu").read_text(
            encoding="utf-8") + "\nthis is not C++;\n"), ["embed_adds_position_rows"], "import"),
}


@pytest.fixture(scope="module")
def reports(spec, tmp_path_factory):
    """Each case graded once (one check each), shared by the languages."""
    cache: dict[str, dict] = {}

    def get(case: str) -> dict:
        if case not in cache:
            make, select, _ = CASES[case]
            if case.startswith("kernel") and not kernel_support()[0]:
                pytest.skip(f"kernel grading is not available here: {kernel_support()[1]}")
            path = make(tmp_path_factory.mktemp(case))
            cache[case] = grade_path(path, spec, select=select,
                                     limits=fast_limits(call_timeout=1.0))
        return cache[case]
    return get


def _shows(report: dict, what: str) -> bool:
    if what == "import":
        return not report["import"]["ok"]
    if what == "cells":
        return bool(report["import"].get("cells"))
    return any(c["status"] == what for c in report["checks"])


@needs_bwrap
@pytest.mark.parametrize("lang", ["nl", "ko"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_students_read_their_own_language(reports, case, lang):
    report = reports(case)
    assert _shows(report, CASES[case][2]), (case, report["import"],
                                            [c["status"] for c in report["checks"]])
    foreign = {where: found for where, text in student_texts(report, lang).items()
               if (found := unreadable(text, lang))}
    assert not foreign, foreign


@needs_bwrap
@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_the_teachers_summary_is_in_the_batch_language(reports, lang, tmp_path):
    rows = []
    for case in ("wrong_value", "wrong_count", "syntax_error", "module_not_found", "timeout",
                 "forbidden_import"):
        rep = reports(case)
        rows.append(BatchRow(f"{case}.py", report=rep, score=rep["score"],
                             max_score=rep["max_score"], problem=problem_of(rep)))
    write_summary(tmp_path, rows, "ANDREA-120M", [("a.py", "b.py", 0.9)], lang)
    texts = {"summary.txt": (tmp_path / "summary.txt").read_text(encoding="utf-8")}
    for name, page in (("summary.html", (tmp_path / "summary.html").read_text(encoding="utf-8")),
                       ("similarity.html", similarity_html([], {}, lang))):
        texts[name] = page_text(page)
    foreign = {where: found for where, text in texts.items()
               if (found := unreadable(text, lang))}
    assert not foreign, foreign


@needs_bwrap
@pytest.mark.parametrize("case", ["wrong_value", "name_error_in_call", "module_not_found",
                                  "notebook_cell_raises"])
def test_the_reader_flags_english(reports, case):
    """The English rendering of the same report is foreign to a Dutch reader: the reader can
    fail (it would catch an untranslated sentence)."""
    report = reports(case)
    english = formats.gradescope(report, "en")
    texts = [english["output"]] + [t["output"] for t in english["tests"]]
    assert any(unreadable(text, "nl") for text in texts)


@needs_bwrap
def test_the_submissions_output_names_its_file_not_the_sandbox(reports):
    """A warning the submission's code printed names its file as the student knows it."""
    rep = reports("wrong_value")
    printed = ("/sandbox/submission/hw.py:21: RuntimeWarning: invalid value encountered in "
               "scalar divide\n")   # (printed in a visible check)
    rep = dataclasses.replace(rep, worker=dataclasses.replace(
        rep.worker, submission_output=printed, visible_output=printed))
    for lang in ("en", "nl", "ko"):
        for out in (formats.gradescope(rep, lang)["output"],
                    formats.text(rep, lang, width=10_000)):
            assert "/sandbox" not in out and "hw.py:21: RuntimeWarning" in out, out


@pytest.mark.parametrize("text", [
    "Fout op regel 3 (NameError): name 'x' is not defined",
    "norm() gaf RaceError: kernel k",
    "Zelf nadoen:\nimport numpy as np\n\nprint(impl.dot(1, 2))\n# or: andrea-conform x.py",
    "de worker sloot zijn pijp",
    "Isolatie: bwrap",
])
def test_the_reader_flags_each_kind_of_leftover(text):
    assert unreadable(text, "nl"), text


def test_the_reader_leaves_code_and_the_contract_alone():
    text = ("Wat er misging: lookup() gaf een fout (IndexError: 'token id out of range'), maar "
            "moet ValueError geven\nKleinste invoer die het laat zien:\n    lookup(table=np.array("
            "[[0.5]], dtype=np.float32), token_ids=np.array([1]))\nCursustekst: “ANDREA-120M "
            "Position Embedding Cost”, clausule EMB-ERR-01: ...\nZelf nadoen:\nimport numpy as np"
            "\nfrom graders.conformance.runner import load_impl\n\nimpl = load_impl('x.py')\n"
            "print(impl.lookup(np.array([[0.5]]), np.array([1])))\n# of: andrea-conform x.py "
            "--spec andrea-120m --select out_of_range_ids")
    assert unreadable(text, "nl") == []


def test_the_template_holds_every_sentence():
    """locale/andrea_grade.pot, the translators' template, lists every msgid (regenerate it
    from i18n.all_msgids() when a sentence is added)."""
    from babel.messages.pofile import read_po

    from graders.grade.i18n import LOCALE_DIR, all_msgids

    with (LOCALE_DIR / "andrea_grade.pot").open("rb") as f:
        template = {m.id[0] if isinstance(m.id, tuple) else m.id   # a plural: its singular
                    for m in read_po(f) if m.id}
    assert [m for m in all_msgids() if m not in template] == []
