"""Batch grading: gradebook, skipping, regrading, CSV, histogram, Dask."""
import csv
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from graders.grade import batch

from .conftest import CORRECT, HOSTILE, LIMITS, SANDBOX
from tests.attacks import CORPUS

SELECT = ["token_table_params", "lookup_selects_row", "dot_product"]


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "subs"
    d.mkdir()
    shutil.copy(CORRECT, d / "alice.py")
    shutil.copy(HOSTILE / "partial.py", d / "bob.py")
    shutil.copy(HOSTILE / "syntax_error.py", d / "carol.py")
    (d / "dave").mkdir()
    shutil.copy(CORRECT, d / "dave" / "submission.py")
    return d


def _run(folder, spec, tmp_path, **kw):
    return batch.run_batch(folder, spec, jobs=2, db=tmp_path / "gb.sqlite", profile="dev",
                           limits=LIMITS, select=SELECT, progress=False, sandbox=SANDBOX, **kw)


def test_batch_gradebook_csv_histogram_and_skip(folder, spec, tmp_path):
    out = _run(folder, spec, tmp_path, csv_path=tmp_path / "s.csv",
               histogram=tmp_path / "h.png")
    assert out.startswith("graded 4, skipped 0")
    rows = {r["submission"]: r for r in csv.DictReader(open(tmp_path / "s.csv"))}
    assert float(rows["alice.py"]["score"]) == 45.0       # 10 + 20 + 15: the selected groups
    assert float(rows["dave"]["score"]) == 45.0
    assert float(rows["bob.py"]["lookup"]) == 0 and float(rows["bob.py"]["params"]) == 10
    assert float(rows["carol.py"]["score"]) == 0
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _run(folder, spec, tmp_path).startswith("graded 0, skipped 4")
    (folder / "bob.py").write_text((folder / "bob.py").read_text() + "\n# edited\n")
    assert _run(folder, spec, tmp_path).startswith("graded 1, skipped 3")
    # --regrade grades again what the gradebook already has (two of them: enough to see it,
    # half the cost of the whole folder again)
    for p in ("bob.py", "dave"):
        shutil.rmtree(folder / p) if (folder / p).is_dir() else (folder / p).unlink()
    assert _run(folder, spec, tmp_path, regrade=True).startswith("graded 2, skipped 0")


def test_a_run_with_select_never_stands_for_a_full_grade(tmp_path, spec):
    """A batch run with --select (debugging one check) keeps its rows under its own key: the
    next run without it grades again instead of skipping (the buggy file kept 15 / 15, full
    marks on the one check selected, as its grade; third red-team round)."""
    d = tmp_path / "subs"
    d.mkdir()
    shutil.copy(CORRECT.parent / "buggy_student.py", d / "alice.py")
    kw = dict(jobs=1, db=tmp_path / "gb.sqlite", profile="dev", limits=LIMITS, progress=False,
              sandbox=SANDBOX)
    assert batch.run_batch(d, spec, select=["dot_product"], **kw).startswith("graded 1")
    out = batch.run_batch(d, spec, select=["dot_product", "token_gradient_scatter_add"],
                          csv_path=tmp_path / "s.csv", **kw)
    assert out.startswith("graded 1, skipped 0"), out
    (row,) = csv.DictReader(open(tmp_path / "s.csv"))
    assert row["token_gradient_scatter_add"] == "failed"
    assert float(row["score"]) < float(row["max_score"])
    assert batch.run_batch(d, spec, select=["token_gradient_scatter_add", "dot_product"],
                           **kw).startswith("graded 0, skipped 1")      # the same selection


def test_a_run_with_tiny_limits_never_stands_for_a_full_grade(tmp_path, spec):
    """The gradebook key holds every limit that can change a verdict: a debugging run with a
    tiny --total-timeout (its checks not run) keeps its rows under its own key, and the next
    run with the real limits grades again instead of skipping; what changes no verdict
    (--jobs, the output kept for the report) reuses the rows."""
    import dataclasses

    d = tmp_path / "subs"
    d.mkdir()
    shutil.copy(CORRECT, d / "alice.py")
    kw = dict(db=tmp_path / "gb.sqlite", profile="dev", select=["dot_product", "vector_norm"],
              progress=False, sandbox=SANDBOX)
    tiny = dataclasses.replace(LIMITS, total_timeout=0.01)
    assert batch.run_batch(d, spec, jobs=1, limits=tiny, csv_path=tmp_path / "t.csv",
                           **kw).startswith("graded")
    (row,) = csv.DictReader(open(tmp_path / "t.csv"))
    assert not row["score"] or float(row["score"]) < float(row["max_score"]), row
    out = batch.run_batch(d, spec, jobs=1, limits=LIMITS, csv_path=tmp_path / "s.csv", **kw)
    assert out.startswith("graded 1, skipped 0"), out
    (row,) = csv.DictReader(open(tmp_path / "s.csv"))
    assert float(row["score"]) == float(row["max_score"]), row
    cosmetic = dataclasses.replace(LIMITS, keep_output_bytes=LIMITS.keep_output_bytes + 1)
    assert batch.run_batch(d, spec, jobs=2, limits=cosmetic,
                           **kw).startswith("graded 0, skipped 1")


def test_the_gradebook_key_holds_what_changes_a_verdict(spec):
    """gradebook_key: each verdict-changing limit and the isolation mode change the key; the
    cosmetic limit, 'auto' for 'bwrap' and an int for the same float do not."""
    import dataclasses

    from graders.grade.sandbox import Limits

    base = batch.gradebook_key(spec, "grading", None, Limits(), "auto")
    assert base == batch.gradebook_key(spec, "grading", None, None, "bwrap")
    for f in dataclasses.fields(Limits):
        changed = dataclasses.replace(Limits(), **{f.name: getattr(Limits(), f.name) * 2 + 1})
        key = batch.gradebook_key(spec, "grading", None, changed, "auto")
        assert (key == base) == (f.name in batch.COSMETIC_LIMITS), f.name
    assert batch.gradebook_key(spec, "grading", None,
                               Limits(total_timeout=int(Limits().total_timeout)), "auto") == base
    assert batch.gradebook_key(spec, "grading", None, Limits(), "none") != base
    assert batch.gradebook_key(spec, "grading", None, Limits(), "container") != base
    assert batch.gradebook_key(spec, "dev", None, Limits(), "auto") != base
    assert batch.gradebook_key(spec, "grading", ["dot_product"], Limits(), "auto") != base


def test_an_interrupted_batch_keeps_what_was_graded(folder, spec, tmp_path, monkeypatch):
    real = batch.record
    calls = []

    def record_then_interrupt(con, report, spec_sha, **key):
        real(con, report, spec_sha, **key)
        calls.append(report["submission"])
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(batch, "record", record_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _run(folder, spec, tmp_path)
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    assert {r[0] for r in con.execute("SELECT submission FROM grades")} == set(calls)
    monkeypatch.setattr(batch, "record", real)
    assert _run(folder, spec, tmp_path).startswith("graded 2, skipped 2")


def test_batch_on_a_local_dask_cluster(folder, spec, tmp_path):
    distributed = pytest.importorskip("distributed")
    for p in ("bob.py", "carol.py", "dave"):
        shutil.rmtree(folder / p) if (folder / p).is_dir() else (folder / p).unlink()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        out = _run(folder, spec, tmp_path, scheduler=cluster.scheduler_address,
                   csv_path=tmp_path / "s.csv")
    assert out.startswith("graded 1, skipped 0")
    rows = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert float(rows[0]["score"]) == 45.0


def test_batch_problems(tmp_path, spec):
    with pytest.raises(batch.BatchError):
        batch.run_batch(tmp_path / "missing", spec, progress=False)


def test_a_pool_process_replays_draws_and_grades_as_a_fresh_process(tmp_path, spec):
    """One pool process grades a correct file, then buggy ones: it replays the inputs kept for
    the first (graders/conformance/replay.py), and every report has the results that grading
    each file alone, without replay, gives."""
    from graders.grade.grading import grade, load_submission
    from graders.grade.sandbox import Limits
    from tests.corpus import buggy_cases

    cases = {c.name: c for c in buggy_cases()}
    files = [CORRECT] + [cases[n].write(tmp_path) for n in
                         ("lookup_clips_ids", "embed_mutates_table", "dot_drops_last_term")]
    files.append(CORRECT)
    select = ["lookup_selects_row", "embed_adds_position_rows", "dot_product",
              "inputs_not_mutated", "token_table_params"]
    subs = [load_submission(f) for f in files]
    payloads = [batch._payload(s, spec, "dev", LIMITS, SANDBOX, select) for s in subs]
    got = []
    batch._run_local(payloads, 1, lambda p, res: got.append(res))
    assert all(r["ok"] for r in got) and len(got) == len(files)
    assert got[0]["replayed"] == 0 and got[-1]["replayed"] > got[1]["replayed"] > 0

    def results(report):
        return [{k: c.get(k) for k in ("id", "status", "cause", "message", "template", "fields",
                                       "details", "example", "reproducer", "hint", "score")}
                for c in report["checks"]]

    for sub, res in zip(subs, got):
        alone = grade(sub, spec, profile="dev", limits=LIMITS, sandbox=SANDBOX, select=select)
        assert results(res["report"]) == results(alone), sub.name
    assert any(c["status"] == "failed" for c in got[2]["report"]["checks"])


def test_a_submission_that_uses_up_its_budget_is_shown_in_the_progress_and_summary(
        tmp_path, spec, capsys):
    from tests.helpers import fast_limits

    d = tmp_path / "subs"
    d.mkdir()
    shutil.copy(CORPUS / "slow_calls.py", d / "slow.py")
    out = batch.run_batch(d, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                          limits=fast_limits(call_timeout=1.5, total_timeout=4.0,
                                             max_timeouts_per_function=3,
                                             exact=("total_timeout",)),
                          select=["dot_product", "vector_norm", "similarity_by_direction"],
                          progress=True, sandbox=SANDBOX)
    shown = capsys.readouterr()
    assert "1 used up their time budget" in out
    line = [x for x in (shown.out + shown.err).splitlines() if x.startswith("slow.py: used up")]
    assert line and "4 s budget" in line[0] and "not run (" in line[0]


# ----------------------------------------------------------------------------- fail closed
def test_a_batch_without_bubblewrap_refuses_up_front(tmp_path, spec, monkeypatch):
    """Not one 'problem' row per student and exit status 0: one refusal, nothing written."""
    from graders.grade import cli, sandbox

    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.py").write_bytes((CORPUS / "hidden_names.py").read_bytes())
    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "bubblewrap (bwrap) is not "
                                                             "installed")})
    with pytest.raises(batch.BatchError, match="refusing to run untrusted code"):
        batch.run_batch(subs, spec, db=tmp_path / "gb.sqlite", progress=False)
    assert not (tmp_path / "gb.sqlite").exists()
    assert cli.main(["batch", str(subs), "--db", str(tmp_path / "gb.sqlite"),
                     "--no-progress"]) == 2


def test_why_a_submission_was_not_graded_is_for_the_teacher_only(tmp_path, spec):
    """"not graded: <reason>" carries the grader's own English words (a refusal, a file
    name): the teacher's summary and CSV show it; the student's feedback file says, in their
    language, only that the autograder could not grade it."""
    from graders.grade import messages as M
    from graders.grade.i18n import Translator

    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "leak.py").symlink_to(CORRECT)
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, db=tmp_path / "gb.sqlite", profile="dev", limits=LIMITS,
                    select=["dot_product"], progress=False, sandbox="none", lang="nl",
                    csv_path=out / "s.csv", feedback_dir=out / "fb", report_dir=out / "rep")
    (row,) = csv.DictReader(open(out / "s.csv", encoding="utf-8"))
    assert row["problem"].startswith("not graded: ") and "symbolic link" in row["problem"]
    summary = (out / "rep" / "summary.txt").read_text(encoding="utf-8")
    assert "niet beoordeeld: " in summary and "symbolic link" in summary    # the teacher's
    (fb,) = (out / "fb").iterdir()
    text = fb.read_text(encoding="utf-8")
    assert Translator("nl")(M.AUTOGRADER_FAILED).split(";")[0] in text.replace("\\", "")
    assert "symbolic link" not in text and "not graded" not in text and "beoordeeld:" not in text


# ----------------------------------------------------------------------------- one row each
def _feedback(out, files, name):
    return (out / files[name]).read_text(encoding="utf-8")


def test_identical_files_get_a_row_and_a_report_of_their_own(tmp_path, spec):
    """One file (its norm is wrong, so its feedback has a reproducer) handed in as alice.py,
    Alice.py (the name differs in case only) and bob.py: three gradebook rows, each report and
    feedback file naming its own file only; a re-run skips all three; bob's edit regrades bob
    alone and leaves the others' reports as they were; --regrade grades all three again. The
    copies are flagged to staff (similar_to), as before."""
    from graders.grade.batch_reports import feedback_files
    from graders.grade.report import BatchRow

    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    out.mkdir()
    names = ("alice.py", "Alice.py", "bob.py")
    for name in names:
        shutil.copy(CORPUS / "shared_row_names.py", subs / name)

    def run(**kw):
        return batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                               limits=LIMITS, sandbox=SANDBOX, select=["vector_norm"],
                               progress=False, feedback_dir=out / "fb", report_dir=out,
                               csv_path=out / "s.csv", **kw)

    def reports():
        con = sqlite3.connect(tmp_path / "gb.sqlite")
        try:
            return {n: (sha, json.loads(r)) for n, sha, r in
                    con.execute("SELECT submission, sha256, report FROM grades")}
        finally:
            con.close()

    def each_names_itself():
        rows = list(csv.DictReader(open(out / "s.csv", encoding="utf-8")))
        assert sorted(r["submission"] for r in rows) == sorted(names)
        files = {r["submission"]: r["feedback"] for r in rows}
        assert len(set(f.lower() for f in files.values())) == 3
        for me in names:
            text = _feedback(out / "fb", files, me)
            assert f"load_impl('{me}')" in text and f"andrea-conform {me} " in text, text
            assert not [o for o in names if o != me and o in text], (me, text)
            assert "similar_to" in next(r["flags"] for r in rows if r["submission"] == me)
        page = (out / "summary.html").read_text(encoding="utf-8")
        assert all(f"fb/{f}" in page for f in files.values())    # each row links its own
        return files

    assert run().startswith("graded 3, skipped 0")
    first = reports()
    assert sorted(first) == sorted(names) and len({sha for sha, _ in first.values()}) == 1
    for me, (_, report) in first.items():
        assert report["submission"] == me
        assert all(me in c["reproducer"] for c in report["checks"] if c["reproducer"])
    files = each_names_itself()
    assert feedback_files([BatchRow(n) for n in names]) == files
    assert run().startswith("graded 0, skipped 3")           # resume: --db reused

    (subs / "bob.py").write_text((subs / "bob.py").read_text() + "\n# edited\n")
    assert run().startswith("graded 1, skipped 2")
    second = reports()
    assert second["bob.py"][0] != first["bob.py"][0]
    assert {n: second[n] for n in ("alice.py", "Alice.py")} == \
        {n: first[n] for n in ("alice.py", "Alice.py")}
    each_names_itself()
    assert run(regrade=True).startswith("graded 3, skipped 0")
    each_names_itself()


def test_a_copy_is_graded_as_itself_not_relabelled(tmp_path, spec):
    """Why identical bytes are graded once per name, not once and relabelled: the file's name
    reaches its own code (``__file__``, tracebacks), which can write it in a form no relabelling
    finds (here reversed, in its import output, which the report keeps). Each row's report
    holds its own name only."""
    subs = tmp_path / "subs"
    subs.mkdir()
    text = ('import os as _os\nprint("I am", _os.path.basename(__file__)[::-1])\n'
            + CORRECT.read_text(encoding="utf-8"))
    for name in ("alice.py", "bob.py"):
        (subs / name).write_text(text, encoding="utf-8")
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox=SANDBOX, select=["dot_product"], progress=False)
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    rows = dict(con.execute("SELECT submission, report FROM grades"))
    con.close()
    assert "yp.ecila" in rows["alice.py"] and "yp.bob" not in rows["alice.py"]
    assert "yp.bob" in rows["bob.py"] and "ecila" not in rows["bob.py"]


def test_names_that_differ_by_an_escape_are_two_students(tmp_path, spec):
    """A name that is not UTF-8 (al\\xffice.py, shown with the escape) and one with that escape
    written out (a backslash): two rows, two feedback files, each report its own name."""
    subs, out = tmp_path / "subs", tmp_path / "fb"
    subs.mkdir()
    raw = Path(os.fsdecode(os.fsencode(subs) + b"/al\xffice.py"))
    try:
        shutil.copy(CORRECT, raw)
    except (OSError, UnicodeError):
        pytest.skip("this file system keeps no name that is not UTF-8")
    shutil.copy(CORRECT, subs / "al\\xffice.py")
    assert batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                           limits=LIMITS, sandbox=SANDBOX, select=["dot_product"],
                           progress=False, feedback_dir=out).startswith("graded 2")
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    rows = {n: json.loads(r)["submission"] for n, r in
            con.execute("SELECT submission, report FROM grades")}
    con.close()
    assert len(rows) == 2 and all(n == r for n, r in rows.items()), rows
    assert len(list(out.iterdir())) == 2


def test_a_gradebook_keyed_by_content_alone_is_upgraded(tmp_path):
    """A gradebook of the earlier schema (one row per content, named after the copy graded
    last) keeps its rows, each under its own name: that name is skipped on a re-run, another
    name of the same bytes is graded as itself."""
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript(batch.SCHEMA.replace("PRIMARY KEY (sha256, submission, spec_sha256)",
                                           "PRIMARY KEY (sha256, spec_sha256)"))
    con.execute("INSERT INTO grades VALUES ('d1','s','bob.py',1,2,'{}','{}','t',0.5)")
    con.commit()
    con.close()
    for _ in range(2):     # the upgrade, then a gradebook that needs none
        con = batch.open_gradebook(db)
        assert batch.graded(con, "d1", "s", "bob.py")
        assert not batch.graded(con, "d1", "s", "alice.py")
        keys = [r[1] for r in sorted(con.execute("PRAGMA table_info(grades)"),
                                     key=lambda r: r[5]) if r[5]]
        assert keys == ["sha256", "submission", "spec_sha256"]
        assert {t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
                } == {"grades", "problems"}
        con.close()


def test_a_gradebook_that_cannot_be_upgraded_is_left_as_it_was(tmp_path):
    """An old table without a column the upgrade copies: one line naming the gradebook, and
    the upgrade undone whole (no half-renamed table)."""
    db = tmp_path / "odd.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE grades (sha256 TEXT, spec_sha256 TEXT, submission TEXT, "
                "PRIMARY KEY (sha256, spec_sha256))")
    con.execute("INSERT INTO grades VALUES ('d1', 's', 'bob.py')")
    con.commit()
    con.close()
    with pytest.raises(batch.BatchError, match="odd.sqlite: cannot open the gradebook"):
        batch.open_gradebook(db)
    con = sqlite3.connect(db)
    assert {t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            } == {"grades", "problems"}
    assert con.execute("SELECT * FROM grades").fetchall() == [("d1", "s", "bob.py")]
    con.close()
