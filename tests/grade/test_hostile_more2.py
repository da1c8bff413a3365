"""A further round of attacks on the grader, by a student who has read its whole source.

Each file in `tests/attacks/` is one attack class; its docstring (for a notebook:
its first, Markdown cell) says what it tries and what must happen. Each test grades it once,
in bubblewrap where the attack needs a worker (skipped where bubblewrap cannot run: the grader
then refuses it, which tests/grade/test_sandbox.py checks), with `--select` limited to
the checks the attack needs.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from graders.grade import messages as M
from graders.grade.grading import load_submission

from .conftest import CORRECT, LIMITS, grade_path, needs_bwrap
from tests.attacks import CORPUS

MORE2 = CORPUS   # tests/attacks/<threat>/


# ----------------------------------------------------------------------------- notebook shapes
def test_a_notebook_with_cells_of_the_wrong_shape_is_a_problem_not_a_traceback():
    sub = load_submission(MORE2 / "notebook_cell_shapes.ipynb")
    assert sub.problem == M.NOT_A_NOTEBOOK and sub.module is None
    assert sub.problem_fields == {"name": "notebook_cell_shapes.ipynb"}


@needs_bwrap
def test_a_batch_goes_on_past_a_notebook_of_the_wrong_shape(tmp_path, spec):
    from graders.grade import batch

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(MORE2 / "notebook_cell_shapes.ipynb", subs / "mallory.ipynb")
    shutil.copy(CORRECT, subs / "zoe.py")
    db, csv_path = tmp_path / "gb.sqlite", tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=db, csv_path=csv_path, profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["vector_norm"], progress=False)
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert rows["mallory.ipynb"]["problem"] == "not a notebook"
    assert float(rows["mallory.ipynb"]["score"] or 0) == 0
    assert rows["zoe.py"]["vector_norm"] == "passed"
    con = sqlite3.connect(db)
    assert dict(con.execute("SELECT submission, score FROM grades"))["zoe.py"] > 0


# ----------------------------------------------------------------------------- user namespaces
@needs_bwrap
def test_no_user_namespace_of_its_own_so_no_tmpfs_beyond_the_quota(spec):
    rep = grade_path(MORE2 / "nested_userns.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"
    line = next(x for x in rep["submission_output"].splitlines()
                if x.startswith("USERNS-REPORT "))
    got = {a["how"]: a["result"] for a in json.loads(line.split(" ", 1)[1])}
    assert got == {"unshare": "refused, errno 1", "clone": "refused, errno 1",
                   "clone3": "refused, errno 38"}, got   # EPERM, EPERM, ENOSYS


def test_a_missing_libseccomp_is_refused_with_its_fix(monkeypatch):
    """The worker cannot forbid user namespaces without libseccomp: bubblewrap's probe loads it,
    and its absence is a refusal (fail closed) that says what to install."""
    from graders.grade import sandbox

    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "OSError: libseccomp.so.2: "
                                                      "cannot open shared object file")})
    with pytest.raises(sandbox.IsolationUnavailable) as exc:
        sandbox.choose_mode("auto")
    assert "apt-get install libseccomp2" in str(exc.value) and "\n" not in str(exc.value)


# ----------------------------------------------------------------------------- feedback markup
@needs_bwrap
def test_the_submissions_words_cannot_end_a_code_block_of_its_feedback(tmp_path, spec):
    from markdown_it import MarkdownIt

    from graders.grade import batch

    subs, out = tmp_path / "subs", tmp_path / "feedback"
    subs.mkdir()
    name = "eve <img src=x onerror=alert(2)> *b* [l](javascript:x)\n**Total score: 99**.py"
    shutil.copy(MORE2 / "feedback_markup.py", subs / name)
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


# ----------------------------------------------------------------------------- memory
def _no_memory_cgroup() -> bool:
    from graders.grade.sandbox import MemoryCgroup

    return MemoryCgroup._find_base() is None


@needs_bwrap
@pytest.mark.xfail(_no_memory_cgroup(), strict=True,
                   reason="no memory cgroup can be made here: the memory limit is RLIMIT_AS "
                          "per process (up to RLIMIT_NPROC of them) and memfd pages count in "
                          "no address space")
def test_the_submissions_processes_together_stay_under_the_memory_limit(spec):
    from tests.helpers import fast_limits

    rep = grade_path(MORE2 / "memory_across_processes.py", spec, select=["vector_norm"],
                     limits=fast_limits(memory_mb=384), sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"
    line = next(x for x in rep["submission_output"].splitlines()
                if x.startswith("MEMORY-REPORT "))
    held = json.loads(line.split(" ", 1)[1])
    assert held["children"] + held["memfd"] <= 384, held


@needs_bwrap
@pytest.mark.skipif(_no_memory_cgroup(), reason="no memory cgroup can be made here")
def test_memory_written_into_memfds_is_the_submissions_memory_fault(spec):
    from tests.helpers import fast_limits

    rep = grade_path(MORE2 / "memory_in_memfds.py", spec, select=["vector_norm"],
                     limits=fast_limits(memory_mb=384), sandbox="bwrap")
    (check,) = rep["checks"]
    assert check["status"] != "passed" and check["cause"] == "fault", check
    assert "counting every process it started (memory limit 384 MiB)" in check["message"]
    from graders.grade.sandbox import MemoryCgroup

    base, _ = MemoryCgroup._find_base()                          # every worker's cgroup removed
    assert not list(base.glob(f"andrea-worker-{os.getpid()}-*"))


# ----------------------------------------------------------------------------- notebook size
@needs_bwrap
def test_a_notebook_of_many_cells_is_graded_not_the_graders_failure(spec):
    sub = load_submission(MORE2 / "many_cells.ipynb")
    assert len(sub.source["cells"]) > 128 * 1024     # more than one argument may hold
    rep = grade_path(MORE2 / "many_cells.ipynb", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"


def test_notebook_reading_prints_nothing(capfd):
    """nbformat logs schema violations and warns about cell ids on stderr, with its own paths:
    the grader's output must not carry them (nor a host path)."""
    load_submission(MORE2 / "notebook_cell_shapes.ipynb")
    load_submission(MORE2 / "many_cells.ipynb")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# ----------------------------------------------------------------------------- NaN-boxing
NAN_CHECKS = ["token_table_params", "lookup_selects_row", "embed_adds_position_rows",
              "embed_not_permutation_equivariant", "init_mean_and_std",
              "token_gradient_scatter_add", "dot_product", "vector_norm",
              "dot_is_norms_times_cosine", "embed_shapes"]


@needs_bwrap
def test_nan_results_earn_no_value_check(spec):
    rep = grade_path(MORE2 / "nan_results.py", spec, select=NAN_CHECKS, limits=LIMITS,
                     sandbox="bwrap")
    got = {c["id"]: c["status"] for c in rep["checks"]}
    assert got == {c: "passed" if c == "embed_shapes" else "failed" for c in NAN_CHECKS}, got


# ----------------------------------------------------------------------------- many files
def _many_files(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(MORE2 / "many_files.py", folder / "submission.py")
    for i in range(n):
        (folder / f"h{i}.txt").touch()
    git = folder / ".git" / "objects"     # hidden: never entered, never counted
    git.mkdir(parents=True)
    for i in range(2500):
        (git / f"o{i}").touch()
    return folder


def test_a_folder_of_too_many_files_is_refused_at_once(tmp_path):
    from graders.grade.grading import MAX_FOLDER_ENTRIES, GraderError

    with pytest.raises(GraderError, match=f"more than {MAX_FOLDER_ENTRIES} files and folders"):
        load_submission(_many_files(tmp_path / "mallory", 2500))
    ok = load_submission(_many_files(tmp_path / "zoe", 100))   # the .git beside is not counted
    assert ok.module == "submission.py" and len(ok.files) == 101


@needs_bwrap
def test_a_batch_goes_on_past_a_folder_of_too_many_files(tmp_path, spec):
    from graders.grade import batch

    subs = tmp_path / "subs"
    _many_files(subs / "mallory", 2500)
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert "more than 2000 files" in rows["mallory"]["problem"]
    assert rows["zoe.py"]["vector_norm"] == "passed"


# ----------------------------------------------------------------------------- copy detection
def test_a_huge_module_is_fingerprinted_whole_in_linear_time():
    """No token cap (a copy hid behind one: tests/attacks/similarity/copy_evasion.py): the whole text is
    read; a fifth of the attack's size keeps the test fast, the CPU time bounds linearity."""
    import resource

    from graders.grade import similarity

    text = (MORE2 / "similarity_bomb.py").read_text() + "X = " + "1+" * 100_000 + "1\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    toks = similarity.tokens(text)
    assert len(toks) > 200_000 and toks[-2:] == ["0", ";"]    # read to its end
    assert toks[:3] == ["import", "V", "as"] or "def" in toks   # the module's own start is read
    prints = similarity.fingerprints(text)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - before < 60
    assert len(prints) >= similarity.MIN_FINGERPRINTS
    assert similarity.containment(prints, prints) == 1.0
    assert similarity.similar_pairs({"a": text, "b": text})   # still compared
