"""Notebooks that attack the notebook reader and the cell loop (tests/attacks/notebooks/):
cells of the wrong shape, many cells, a long indented line that a regular expression would
backtrack on, and the time such a reading takes in the report.

Each file of `tests/attacks/notebooks/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from graders.grade import messages as M
from graders.grade.grading import load_submission
from tests.attacks import CORPUS

from .conftest import CORRECT, LIMITS, grade_path, needs_bwrap


def test_a_notebook_with_cells_of_the_wrong_shape_is_a_problem_not_a_traceback():
    sub = load_submission(CORPUS / "notebook_cell_shapes.ipynb")
    assert sub.problem == M.NOT_A_NOTEBOOK and sub.module is None
    assert sub.problem_fields == {"name": "notebook_cell_shapes.ipynb"}


@needs_bwrap
def test_a_batch_goes_on_past_a_notebook_of_the_wrong_shape(tmp_path, spec):
    from graders.grade import batch

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CORPUS / "notebook_cell_shapes.ipynb", subs / "mallory.ipynb")
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


@needs_bwrap
def test_a_notebook_of_many_cells_is_graded_not_the_graders_failure(spec):
    sub = load_submission(CORPUS / "many_cells.ipynb")
    assert len(sub.source["cells"]) > 128 * 1024     # more than one argument may hold
    rep = grade_path(CORPUS / "many_cells.ipynb", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"


def test_notebook_reading_prints_nothing(capfd):
    """nbformat logs schema violations and warns about cell ids on stderr, with its own paths:
    the grader's output must not carry them (nor a host path)."""
    load_submission(CORPUS / "notebook_cell_shapes.ipynb")
    load_submission(CORPUS / "many_cells.ipynb")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def _backtracking_notebook(tmp_path: Path, n: int) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    seed = (CORPUS / "notebook_backtracking.py").read_text()
    nb.cells = [nbformat.v4.new_code_cell(seed),
                nbformat.v4.new_code_cell(" " * n + "x" * n)]
    path = tmp_path / "hw.ipynb"
    path.write_text(nbformat.writes(nb))
    return path


def test_a_long_indented_notebook_line_is_read_in_linear_time(tmp_path):
    import resource

    from graders.conformance.sources import _ipython_kind, read_source

    path = _backtracking_notebook(tmp_path, 600_000)   # ten times the attack's line
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    src = read_source(path)
    assert _ipython_kind(" " * 600_000 + "x = get_ipython  ()") == "get_ipython"
    used = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
    assert src.notebook and used < 20, used   # quadratic: days for this line


@needs_bwrap
def test_the_reported_time_counts_the_reading(tmp_path, monkeypatch, capsys):
    """execution_time is from the command's start to its report: reading the submission
    counts (a notebook that took 195 s to read was reported as graded in 19 s)."""
    from graders.grade import cli, grading

    path = _backtracking_notebook(tmp_path, 1000)
    real = grading.load_submission

    def slow(p):
        import time

        time.sleep(2.0)
        return real(p)

    monkeypatch.setattr(grading, "load_submission", slow)
    out = tmp_path / "r.json"
    assert cli.main([str(path), "--profile", "dev", "--select", "vector_norm",
                     "--format", "json", "--output", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["execution_time"] >= 2.0, rep["execution_time"]


def test_a_line_of_many_triple_quotes_is_read_in_linear_time(tmp_path):
    """triple_quote_prompts.py: a cell of `>>> x = ` and 500 KB of triple quotes took about 9 s
    of the grader's CPU to read (47 s for 1 MB, most of it the kernel's page faults for the
    slices; the 5 MB notebook held the grader > 15 min): IPython's prompt stripper, which the
    reader used where IPython is installed, slices the line before every quote. The reader
    now uses andrea_runtime/ipython_input.py's copy, linear, everywhere."""
    import importlib.util
    import time

    import nbformat

    from graders.conformance.sources import read_source

    attack = CORPUS / "triple_quote_prompts.py"
    spec_ = importlib.util.spec_from_file_location("triple_quote_prompts", attack)
    mod = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(mod)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(attack.read_text()),
                nbformat.v4.new_code_cell(mod.long_line(500_000))]
    path = tmp_path / "hw.ipynb"
    path.write_text(nbformat.writes(nb))
    before = time.process_time()    # user and system: the slices cost page faults
    src = read_source(path)
    used = time.process_time() - before
    assert src.notebook and used < 3, used   # linear: ~0.3 s; quadratic: ~9 s, 20 min at 5 MB


@needs_bwrap
def test_a_line_separator_in_a_comment_or_string_is_part_of_its_line(spec):
    """unicode_line_separator.ipynb: U+2028 in a comment and a string of the cell that defines
    norm(); Python runs the cell, the reader split it there (SyntaxError, norm missing)."""
    from andrea_runtime.cells import run_cells
    from graders.conformance.sources import read_source

    path = CORPUS / "unicode_line_separator.ipynb"
    src = read_source(path)
    namespace: dict = {}
    assert run_cells(src.text, "hw.ipynb", src.cell_ranges(), namespace) == []   # the kit
    assert callable(namespace.get("norm"))
    rep = grade_path(path, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    assert rep["import"]["ok"] and not rep["import"].get("cells"), rep["import"]
    assert rep["checks"][0]["status"] == "passed"


@needs_bwrap
def test_a_notebook_reads_the_files_beside_it_as_in_jupyter(tmp_path, spec):
    """An honest folder hand-in: hw.ipynb reads scale.txt beside it (Jupyter's working folder
    is the notebook's), then defines the functions in the same cell."""
    import nbformat

    d = tmp_path / "hw"
    d.mkdir()
    (d / "scale.txt").write_text("0.5\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("with open('scale.txt') as f:\n    SCALE = float(f.read())"
                                          "\n" + CORRECT.read_text())]
    nbformat.write(nb, d / "hw.ipynb")
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    assert not rep["import"].get("cells"), rep["import"]
    assert rep["checks"][0]["status"] == "passed"


# What the submission's own code checks where it runs (an assert failing at import would lose
# the functions): its working folder is (a copy of) its entry's folder, which holds its files
# only (none of the grader's), can be read by relative path and written to; its modules are
# imported from the files handed in (sys.path[0] and __file__'s folder: the grader's
# read-only copy, which lists the same files).
WHERE_IT_RUNS = """
import os, sys
with open('scale.txt') as f:
    SCALE = float(f.read())
with open(os.path.join('data', 'more.txt')) as f:
    assert f.read() == 'x'
assert os.path.samefile(sys.path[0], os.path.dirname(os.path.abspath(__file__)))
assert sorted(os.listdir(sys.path[0])) == sorted(os.listdir('.')), (sys.path[0], os.getcwd())
assert set(os.listdir('.')) <= {'scale.txt', 'data', 'helper_mod.py', ENTRY, GENERATED}, \\
    sorted(os.listdir('.'))
with open('fig.txt', 'w') as f:
    f.write('a plot')
import helper_mod
assert helper_mod.HALF == 0.5
"""


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
@pytest.mark.parametrize("kind", ["notebook", "module"])
def test_a_submission_runs_in_its_own_folder_in_every_sandbox(tmp_path, spec, kind, sandbox):
    """Notebooks and modules alike, in bubblewrap and in --sandbox none: the entry runs where
    it lies among the student's files (a copy in the worker's writable working folder), as
    in Jupyter and `python hw.py`."""
    import nbformat

    from .conftest import HAS_BWRAP

    if sandbox == "bwrap" and not HAS_BWRAP:
        pytest.skip("bubblewrap is not usable here")
    d = tmp_path / "hw"
    (d / "data").mkdir(parents=True)
    (d / "scale.txt").write_text("0.5\n")
    (d / "data" / "more.txt").write_text("x")
    (d / "helper_mod.py").write_text("HALF = 0.5\n")
    entry = "hw.ipynb" if kind == "notebook" else "submission.py"

    def hand_in(generated: str) -> None:
        code = f"ENTRY, GENERATED = {entry!r}, {generated!r}\n" + WHERE_IT_RUNS + \
            CORRECT.read_text()
        if kind == "notebook":
            nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]),
                           d / entry)
        else:
            (d / entry).write_text(code)

    hand_in("")
    hand_in(load_submission(d).module)   # a notebook: the module the grader makes of it
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox=sandbox)
    assert rep["import"]["ok"] and not rep["import"].get("cells"), rep["import"]
    assert rep["checks"][0]["status"] == "passed", rep["checks"][0]
    assert not (d / "fig.txt").exists()      # written in the worker's copy, not the hand-in


def _writefile_notebook(path: Path, n: int) -> Path:
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("writefile", CORPUS / "writefile_many.py")
    attack = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(attack)
    path.write_text(attack.notebook(n))
    return path


def test_the_modules_a_notebook_writes_count_against_the_caps(tmp_path):
    """writefile_many.py: 40,000 %%writefile cells made 40,001 files (a folder may hold
    2,000); now refused at once, naming the cap. A few written modules are files as before."""
    from graders.grade.grading import MAX_FOLDER_ENTRIES, GraderError

    with pytest.raises(GraderError, match=f"more than {MAX_FOLDER_ENTRIES} files"):
        load_submission(_writefile_notebook(tmp_path / "mallory.ipynb", 40_000))
    ok = load_submission(_writefile_notebook(tmp_path / "zoe.ipynb", 3))
    assert sorted(ok.files) == ["m0.py", "m1.py", "m2.py", "notebook_submission.py"]


@needs_bwrap
def test_a_batch_goes_on_past_a_notebook_that_writes_too_many_modules(tmp_path, spec):
    from graders.grade import batch

    subs = tmp_path / "subs"
    subs.mkdir()
    _writefile_notebook(subs / "mallory.ipynb", 3000)
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert "more than 2000 files" in rows["mallory.ipynb"]["problem"], rows["mallory.ipynb"]
    assert rows["zoe.py"]["vector_norm"] == "passed"
