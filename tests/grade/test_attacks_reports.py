"""Words of the submission that attack what the grader writes (tests/attacks/reports/):
feedback files, summaries, the gradebook, names that look alike, hidden verdicts that show,
and report lists that grow without bound.

Each file of `tests/attacks/reports/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import json
import shutil

import pytest

from tests.attacks import CORPUS

from .attacking import ROOT, vm_hwm_mib
from .conftest import LIMITS, grade_path, needs_bwrap


@needs_bwrap
def test_the_submissions_words_cannot_end_a_code_block_of_its_feedback(tmp_path, spec):
    from markdown_it import MarkdownIt

    from graders.grade import batch

    subs, out = tmp_path / "subs", tmp_path / "feedback"
    subs.mkdir()
    name = "eve <img src=x onerror=alert(2)> *b* [l](javascript:x)\n**Total score: 99**.py"
    shutil.copy(CORPUS / "feedback_markup.py", subs / name)
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["vector_norm", "dot_product"],
                    progress=False, feedback_dir=out)
    (md_file,) = out.glob("*.md")
    md = md_file.read_text(encoding="utf-8")
    assert "Total score: 100 / 100" in md            # quoted, as the student's own words
    tokens = MarkdownIt("commonmark").parse(md)
    kinds = [t.type for t in tokens]
    assert "html_block" not in kinds and kinds.count("heading_open") == 3   # name + 2 checks
    inline = [t for t in tokens if t.type == "inline"]
    assert not any(c.type in ("html_inline", "image", "link_open")
                   for t in inline for c in t.children or [])
    strong = [t for t in inline if any(c.type == "strong_open" for c in t.children or [])]
    assert [t.content for t in strong] == ["**Total score: 0 / 15**"]   # the kit's, only
    code = [t.content for t in tokens if t.type == "fence"]
    assert len(code) == 2 and "**Total score: 100 / 100**\n" in code[1]   # norm: quoted
    page = MarkdownIt("commonmark").render(md)
    assert "<img" not in page and "<h1>" in page and "Nothing went wrong</h1>" not in page
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["vector_norm", "dot_product"],
                    progress=False, feedback_dir=tmp_path / "html", feedback_format="html")
    (page,) = (tmp_path / "html").glob("*.html")
    assert "<img" not in page.read_text(encoding="utf-8")


def _strict_json(text: str):
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _no_raw_controls(text: str, where: str) -> None:
    bad = [c for c in text if c in "\x1b\x9b\u202e" or 0xD800 <= ord(c) <= 0xDFFF]
    assert not bad, (where, bad[:5])


@needs_bwrap
def test_one_students_words_neither_stop_a_batch_nor_reach_any_output_raw(tmp_path, spec):
    import csv
    import shutil
    import sqlite3
    import xml.etree.ElementTree as ET

    from graders.grade import batch, formats
    from graders.grade.report import Report

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CORPUS / "report_poison.py", subs / "eve\x1b[31m.py")
    shutil.copy(ROOT / "examples" / "submissions" / "correct_student.py", subs / "zoe.py")
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev", limits=LIMITS,
                    sandbox="bwrap", select=["vector_norm", "dot_product", "lookup_selects_row"],
                    progress=False, feedback_dir=out / "fb", report_dir=out / "rep",
                    csv_path=out / "scores.csv")
    fb = sorted(p.name for p in (out / "fb").iterdir())
    assert len(fb) == 2 and any(n.startswith("zoe") for n in fb), fb
    for p in [*(out / "fb").iterdir(), *(out / "rep").glob("*.txt"), *(out / "rep").glob("*.html"),
              out / "scores.csv"]:
        _no_raw_controls(p.read_text(encoding="utf-8"), p.name)
    for p in (out / "rep").glob("*.html"):   # no element of the submission's
        assert "<img" not in p.read_text(encoding="utf-8") or p.name == "summary.html"
    rows = list(csv.DictReader(open(out / "scores.csv", encoding="utf-8")))
    assert {r["submission"] for r in rows} == {"eve\\x1b[31m.py", "zoe.py"}
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    for (text,) in con.execute("SELECT report FROM grades"):
        rep = _strict_json(text)
        _no_raw_controls(text, "gradebook")
        for fmt in formats.FORMATS:
            rendered = formats.render(Report.from_dict(rep), fmt)
            _no_raw_controls(rendered, fmt)
            if fmt in ("json", "gradescope"):
                _strict_json(rendered)
            if fmt == "junit":
                ET.fromstring(rendered)
    eve = next(_strict_json(t) for (t,) in con.execute("SELECT report FROM grades")
               if "eve" in _strict_json(t)["submission"])
    said = json.dumps(eve)
    assert "\\\\x1b[2J" in said and "\\\\ud800" in said, said[:400]   # shown, as escapes
    assert next(r for r in rows if r["submission"] == "zoe.py")["score"] != ""


def test_a_report_is_strict_json_whatever_it_holds():
    from graders.grade import formats

    rep = {"x": [float("nan"), float("inf"), -float("inf"), 1.5], "\x1b": "a\ud800b",
           "t": (1, 2), 3: "k"}
    text = formats.dumps(rep)
    assert _strict_json(text) == {"x": ["nan", "inf", "-inf", 1.5], "\\x1b": "a\\ud800b",
                                  "t": [1, 2], "3": "k"}
    from graders.conformance.i18n import Translator

    assert Translator("en")("{got:.3f} and {x:,}", got="nan", x=1000) == "nan and 1,000"


def test_nothing_visible_depends_on_a_hidden_result(tmp_path, spec):
    """Two submissions that differ only in an after-the-due-date function: the Gradescope
    summary and the visible tests are the same text."""
    from graders.grade import formats

    from .conftest import SANDBOX

    correct = (ROOT / "examples" / "submissions" / "correct_student.py").read_text()
    bad = tmp_path / "bad.py"
    bad.write_text(correct + "\n" + (CORPUS / "hidden_only_failure.py").read_text())
    select = ["vector_norm", "dot_product", "gradient_shapes", "BWD-TOK-01"]
    shown = []
    for path in (ROOT / "examples" / "submissions" / "correct_student.py", bad):
        rep = grade_path(path, spec, select=select, limits=LIMITS, sandbox=SANDBOX)
        gs = formats.gradescope(rep)
        shown.append((gs["output"].replace(rep["submission"], "X"),
                      [x for x in gs["tests"] if x["visibility"] == "visible"]))
        if path == bad:
            assert any(x["status"] == "failed" for x in gs["tests"]
                       if x["visibility"] == "after_due_date"), gs["tests"]
    assert shown[0] == shown[1], shown
    assert "Nothing went wrong" in shown[0][0] and "HIDDEN-INPUT" not in shown[1][0]
    assert "HIDDEN-INPUT" in rep["submission_output"]    # the staff still see it


def test_names_that_look_alike_never_share_a_feedback_file_or_a_row(tmp_path, spec):
    import csv
    import shutil

    from graders.grade import batch
    from graders.grade.batch_reports import safe_name

    from .conftest import SANDBOX

    subs = tmp_path / "subs"
    subs.mkdir()
    correct = ROOT / "examples" / "submissions" / "correct_student.py"
    shutil.copy(correct, subs / "bob.py")
    for alias in (" bob.py", "\u200bbob.py", "Bob.py"):   # ("bob.py " is no .py file)
        shutil.copy(CORPUS / "name_collision.py", subs / alias)
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox=SANDBOX, select=["vector_norm"], progress=False,
                    feedback_dir=out / "fb", report_dir=out / "rep", csv_path=out / "s.csv")
    rows = list(csv.DictReader(open(out / "s.csv", encoding="utf-8")))
    names = [r["submission"] for r in rows]
    assert sorted(names) == sorted(["bob.py", "\\x20bob.py", "\\u200bbob.py", "Bob.py"]), names
    files = {r["submission"]: r["feedback"] for r in rows}
    assert files["bob.py"] == "bob.py.md"
    assert len({f.lower() for f in files.values()}) == 4
    assert sorted(p.name for p in (out / "fb").iterdir()) == sorted(files.values())
    for r in rows:
        text = (out / "fb" / r["feedback"]).read_text(encoding="utf-8")
        assert text.splitlines()[0].replace("\\\\", "\\") == "# " + r["submission"], text[:80]
    by = {r["submission"]: r for r in rows}
    assert by["bob.py"]["vector_norm"] == "passed"
    assert all(by[n]["vector_norm"] == "failed" for n in names if n != "bob.py")
    assert safe_name("bob.py") == "bob.py" and "~" in safe_name("Bob.py")
    from graders.grade.grading import printable_name

    # a name is one line of any report (a line break could forge a row of summary.txt)
    assert printable_name("eve.py\nbob.py: 100 / 100") == "eve.py\\x0abob.py: 100 / 100"


@needs_bwrap
def test_names_equal_once_normalised_never_read_the_same(tmp_path, spec):
    """normalised_names.py as "café.py" (NFD) and "ｃａｆé.py" beside a classmate's "café.py"
    (NFC): every row read "café.py" (or a look-alike); now each with escapes."""
    import csv

    from graders.grade import batch

    from .conftest import SANDBOX

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(ROOT / "examples" / "submissions" / "correct_student.py", subs / "caf\u00e9.py")
    shutil.copy(ROOT / "examples" / "submissions" / "correct_student.py", subs / "zo\u00eb.py")
    for alias in ("cafe\u0301.py", "\uff43\uff41\uff46\u00e9.py"):
        shutil.copy(CORPUS / "normalised_names.py", subs / alias)
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox=SANDBOX, select=["vector_norm"], progress=False,
                    feedback_dir=out / "fb", report_dir=out / "rep", csv_path=out / "s.csv")
    rows = {r["submission"]: r for r in csv.DictReader(open(out / "s.csv", encoding="utf-8"))}
    assert sorted(rows) == sorted(["caf\\u00e9.py", "cafe\\u0301.py",
                                   "\\uff43\\uff41\\uff46\\u00e9.py", "zo\u00eb.py"]), rows
    assert rows["caf\\u00e9.py"]["vector_norm"] == "passed"
    assert rows["zo\u00eb.py"]["vector_norm"] == "passed"
    assert rows["cafe\\u0301.py"]["vector_norm"] == "failed"
    assert len({r["feedback"] for r in rows.values()}) == 4
    for name, r in rows.items():
        text = (out / "fb" / r["feedback"]).read_text(encoding="utf-8")
        assert text.splitlines()[0].replace("\\\\", "\\") == "# " + name, text[:80]
    summary = (out / "rep" / "summary.txt").read_text(encoding="utf-8")
    assert "caf\u00e9.py" not in summary and "cafe\u0301.py" not in summary


@needs_bwrap
def test_a_report_lists_are_bounded_and_every_output_is_small(tmp_path):
    """Two notebooks: 300,000 magic lines (whose worker may well be too slow to import
    them: that is the sandbox's business), and 300 cells that raise (norm passes)."""
    import nbformat

    seed = (CORPUS / "report_bloat.py").read_text()
    magic, raising = nbformat.v4.new_notebook(), nbformat.v4.new_notebook()
    magic.cells = [nbformat.v4.new_code_cell(seed),
                   nbformat.v4.new_code_cell("%a\n" * 300_000)]   # (the attack: 1.25 million)
    raising.cells = [nbformat.v4.new_code_cell(seed)] + [
        nbformat.v4.new_code_cell(f"raise ValueError({i})") for i in range(300)]
    paths = [tmp_path / "magic.ipynb", tmp_path / "raising.ipynb"]
    for path, nb in zip(paths, (magic, raising)):
        path.write_text(json.dumps(nb))   # each cell's source one string (nbformat splits it)
        assert path.stat().st_size < 5 << 20
    hwm, out = vm_hwm_mib(
        "import json\n"
        "from graders.grade import formats\n"
        "from graders.grade.grading import grade, load_submission\n"
        "from spec import load_spec\n"
        "from tests.helpers import fast_limits\n"
        f"for path in {[str(p) for p in paths]!r}:\n"
        "    rep = grade(load_submission(path), load_spec(), profile='dev',\n"
        "                limits=fast_limits(), select=['vector_norm'])\n"
        "    sizes = {f: len(formats.render(rep, f).encode()) for f in formats.FORMATS}\n"
        "    sizes['gradebook'] = len(formats.dumps(rep))\n"
        "    print('OUT', json.dumps({'sizes': sizes, 'status': rep['checks'][0]['status'],\n"
        "          'dropped': len(rep['notebook']['dropped']),\n"
        "          'total': rep['notebook']['dropped_total'],\n"
        "          'cells': len(rep['import'].get('cells', []))}))\n")
    got = [json.loads(x.split(" ", 1)[1]) for x in out.splitlines() if x.startswith("OUT ")]
    assert got[0]["dropped"] <= 100 and got[0]["total"] == 300_000, got[0]
    assert got[1]["status"] == "passed", got[1]
    assert 0 < got[1]["cells"] <= 50, got[1]   # the first 50 (worker and proxy)
    for g in got:
        assert all(n < 5_000_000 for n in g["sizes"].values()), g["sizes"]
    assert hwm < 1536, hwm


@needs_bwrap
def test_a_folder_named_like_a_report_file_never_gets_the_class_summary(tmp_path, spec):
    """report_file_names.py as student folders `summary` and `similarity`, one folder for
    feedback and reports (html): each got the class's page as its feedback file."""
    import csv

    from graders.grade import batch

    subs, out = tmp_path / "subs", tmp_path / "out"
    for who in ("summary", "similarity"):
        (subs / who).mkdir(parents=True)
        shutil.copy(CORPUS / "report_file_names.py", subs / who / "embedding.py")
    shutil.copy(ROOT / "examples" / "submissions" / "correct_student.py", subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["vector_norm"], progress=False,
                    csv_path=csv_path, feedback_dir=out, report_dir=out, feedback_format="html")
    files = {r["submission"]: r["feedback"]
             for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert len(set(files.values())) == 3
    for who in ("summary", "similarity"):
        assert files[who] not in ("summary.html", "similarity.html"), files
        page = (out / files[who]).read_text(encoding="utf-8")
        assert "zoe.py" not in page and "batch summary" not in page   # its own feedback
    assert "zoe.py" in (out / "summary.html").read_text(encoding="utf-8")


@needs_bwrap
def test_a_students_feedback_never_names_another_student(tmp_path, spec):
    """shared_row_names.py as alice.py and bob.py: alice's feedback said load_impl('bob.py')."""
    from graders.grade import batch

    subs, out = tmp_path / "subs", tmp_path / "feedback"
    subs.mkdir()
    for who in ("alice", "bob"):
        shutil.copy(CORPUS / "shared_row_names.py", subs / f"{who}.py")
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["vector_norm"], progress=False,
                    feedback_dir=out)
    for me, other in (("alice", "bob"), ("bob", "alice")):
        text = (out / f"{me}.py.md").read_text(encoding="utf-8")
        assert "load_impl" in text                      # the failing check's reproducer
        assert f"{other}.py" not in text, (me, text)


def test_a_file_handed_in_by_a_whole_class_keeps_every_output_small(tmp_path, spec):
    """similar_crowd.py: one correct file handed in by 300 students: every row named its 299 others (a 6.1 MB
    CSV, a 9.5 MB summary.html); now its 10 most similar and a count of the rest."""
    import csv

    from graders.conformance.registry import all_checks
    from graders.conformance.runner import CheckResult
    from graders.grade.batch import MAX_SIMILAR_FLAGS, _flag, write_csv
    from graders.grade.batch_reports import similarity_html, write_summary
    from graders.grade.class_summary import problem_of
    from graders.grade.report import BatchRow
    from graders.grade.similarity import similar_pairs

    from .reports import report_of

    text = (ROOT / "tests" / "corpus" / "correct" / "numpy_naive.py").read_text()
    names = [f"student_with_a_fairly_long_name_{i:04d}_hw.py" for i in range(300)]
    sources = {n: [(n, text)] for n in names}
    pairs = similar_pairs(sources)
    assert len(pairs) == 300 * 299 // 2           # identical files: every pair flagged
    rep = report_of(spec, [CheckResult(c.id, c.clauses, "passed") for c in all_checks(spec)],
                    name="hw.py")
    rows = [BatchRow(n, report=rep, score=rep["score"], max_score=rep["max_score"],
                     problem=problem_of(rep)) for n in names]
    _flag(rows, pairs)
    for r in rows:
        kinds = [f.kind for f in r.flag_list]
        assert kinds == ["similar_to"] * MAX_SIMILAR_FLAGS + ["similar_to_more"], kinds
        assert r.flag_list[-1].data["count"] == 299 - MAX_SIMILAR_FLAGS
    out = tmp_path / "report"
    write_csv(tmp_path / "scores.csv", rows, list(spec.groups), feedback="md")
    write_summary(out, rows, spec.title, pairs, "nl")
    (out / "similarity.html").write_text(similarity_html(pairs, sources, "nl"),
                                         encoding="utf-8")
    for f in [tmp_path / "scores.csv", *out.iterdir()]:
        assert f.stat().st_size < 5_000_000, (f.name, f.stat().st_size)
    row = next(csv.DictReader((tmp_path / "scores.csv").open(encoding="utf-8")))
    assert row["flags"].endswith(f"similar_to_more {299 - MAX_SIMILAR_FLAGS}"), row["flags"]
    assert "en nog 289 die erop lijken" in (out / "summary.html").read_text(encoding="utf-8")
