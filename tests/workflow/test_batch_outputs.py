"""What a batch hands back: per-check CSV columns, problems, content hashes, flags, feedback
files in the batch's language, the summary report and the similarity report. One batch run,
shared by every assertion."""
import csv
import shutil
from pathlib import Path

import pytest

from graders.grade import cli

from tests.helpers import TEST_SANDBOX

from .disguise import disguise, reference_as_one_module

ROOT = Path(__file__).resolve().parents[2]
SUBS = ROOT / "examples" / "submissions"
CORPUS = Path(__file__).parent / "corpus"
SELECT = ["lookup_selects_row", "token_gradient_scatter_add", "dot_product"]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    d = tmp_path_factory.mktemp("batch")
    subs = d / "subs"
    subs.mkdir()
    shutil.copy(SUBS / "correct_student.py", subs / "alice.py")
    shutil.copy(SUBS / "correct_student.py", subs / "alice_resubmitted.py")   # same content
    shutil.copy(SUBS / "buggy_student.py", subs / "bob.py")
    (subs / "frank.py").write_text(disguise((SUBS / "buggy_student.py").read_text(), "f"))
    (subs / "carol.py").write_text("def lookup(table, ids)\n    return table[ids]\n")
    (subs / "erin.ipynb").write_text("{ not json")
    (subs / "mallory.py").write_text(disguise(reference_as_one_module(), "m"))
    shutil.copy(CORPUS / "correct_addat.py", subs / "gina.py")
    shutil.copy(CORPUS / "correct_bincount.py", subs / "hank.py")
    out = d / "out"
    out.mkdir()
    argv = ["batch", str(subs), "--jobs", "2", "--profile", "dev", "--no-progress",
            "--db", str(d / "gb.sqlite"), "--csv", str(out / "scores.csv"),
            "--feedback-dir", str(out / "feedback"), "--report-dir", str(out / "report"),
            "--lang", "nl", "--sandbox", TEST_SANDBOX,
            *[x for s in SELECT for x in ("--select", s)]]
    assert cli.main(argv) == 0
    rows = {r["submission"]: r for r in csv.DictReader(open(out / "scores.csv"))}
    return out, rows


def test_csv_has_a_column_per_check_a_problem_column_and_content_hashes(batch):
    _, rows = batch
    assert set(SELECT) <= set(next(iter(rows.values())))
    assert rows["bob.py"]["token_gradient_scatter_add"] == "failed"
    assert rows["bob.py"]["lookup_selects_row"] == rows["alice.py"]["dot_product"] == "passed"
    assert rows["carol.py"]["problem"] == "syntax error"
    assert rows["erin.ipynb"]["problem"] == "not a notebook"
    assert rows["carol.py"]["lookup_selects_row"] == "not_run"
    assert rows["alice.py"]["problem"] == rows["bob.py"]["problem"] == ""
    assert rows["alice.py"]["sha256"] == rows["alice_resubmitted.py"]["sha256"]
    assert rows["alice.py"]["sha256"] != rows["bob.py"]["sha256"]


def test_flags_inform_and_do_not_change_scores(batch):
    _, rows = batch
    assert rows["mallory.py"]["flags"].startswith("reference_copy ")
    assert "similar_to frank.py" in rows["bob.py"]["flags"]
    assert "similar_to bob.py" in rows["frank.py"]["flags"]
    assert rows["bob.py"]["score"] == rows["frank.py"]["score"]      # same code, same score
    for independent in ("gina.py", "hank.py", "carol.py"):
        assert rows[independent]["flags"] == "", independent
    assert float(rows["gina.py"]["score"]) == float(rows["gina.py"]["max_score"])


def test_feedback_files_in_the_batch_language_without_flags(batch):
    out, rows = batch
    files = {p.name: p.read_text(encoding="utf-8") for p in (out / "feedback").iterdir()}
    assert set(files) == {f"{name}.md" for name in rows}
    assert "Totaalscore" in files["bob.py.md"] and "Herhaalde ids" in files["bob.py.md"]
    assert "Fout op regel 1 (syntaxfout): hier hoort een ':'" in files["carol.py.md"]
    for text in files.values():
        assert "reference_copy" not in text and "similar_to" not in text
        assert "/tmp/" not in text                                  # no grader internals


def test_summary_and_similarity_reports(batch):
    out, _ = batch
    rep = out / "report"
    assert (rep / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (rep / "summary.html").read_text(encoding="utf-8")
    assert "<svg" in page and "<pre>" not in page      # the histogram drawn in the page
    text = (rep / "summary.txt").read_text(encoding="utf-8")
    # in the batch's language (--lang nl); check ids stay as the CSV has them
    hist = text.split("histogram van de scores", 1)[1].split("\n\n", 1)[0].splitlines()
    assert hist[-1].split()[1:3] == ["(vol)", "4"]        # alice twice, gina, hank: full only
    assert "syntaxfout" in text.split("problemen", 1)[1]
    failed = "controles die het vaakst mislukten:"
    assert "token_gradient_scatter_add" in text.split(failed, 1)[1]
    assert "Controles die het vaakst mislukten" in page and 'lang="nl"' in page
    worst = text.split(failed, 1)[1].splitlines()[2].split()
    assert worst[0] == "token_gradient_scatter_add" and int(worst[1]) >= 2   # bob and frank
    sim = (rep / "similarity.html").read_text(encoding="utf-8")
    assert "bob.py ↔ frank.py" in sim
    # every student's row links to their feedback file; every link leads somewhere
    from tests.html_pages import link_problems, parse

    for name in ("summary.html", "similarity.html"):
        assert link_problems(rep / name) == [], name
    links = parse(rep / "summary.html").links
    assert {f"../feedback/{n}.md" for n in ("alice.py", "bob.py", "carol.py")} <= set(links)
    assert any(x.startswith("similarity.html#pair-") for x in links)
    assert 'id="ref-1-a-f1"' in sim                  # mallory's fragments of the reference


def test_batch_usage_errors(tmp_path, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.py").write_text("x = 1\n")
    assert cli.main(["batch", str(tmp_path / "s"), "--csv", str(tmp_path / "no" / "x.csv")]) == 2
    assert cli.main(["batch", str(tmp_path / "s"), "--similarity-threshold", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--csv" in err[0] and "--similarity-threshold" in err[1]


def test_html_feedback_is_escaped_and_translated(batch):
    import json
    import sqlite3

    from graders.grade.batch_reports import feedback_text
    from graders.grade.report import Report

    out, _ = batch
    con = sqlite3.connect(out.parent / "gb.sqlite")
    report = next(json.loads(r[0]) for r in con.execute("SELECT report FROM grades")
                  if any(c["status"] == "failed" for c in json.loads(r[0])["checks"]))
    failed = next(c for c in report["checks"] if c["status"] == "failed")
    failed["example"] = "<script>alert(1)</script>"     # text that came from the submission
    page = feedback_text(Report.from_dict(report), "ko", "html", "<b>eve</b>.py")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;eve&lt;/b&gt;.py" in page and "총점" in page
