"""The self-check applies the grader's rules: the same submission through ``andrea-conform``
(the students' kit, its own process, ``--format json``) and ``andrea-grade`` (the isolated
worker) gets the same verdict on every check, or, when it cannot be imported, the same
reason with the same line and source.

The submissions are the correct base (tests/corpus/correct/numpy_naive.py) with one thing a
student's real code does: an import outside the one list of importable packages
(graders/conformance/imports.yaml: numba and PyYAML are installed here, tqdm is not), the same
behind try/except ImportError, an import inside a function, a helper module beside it, a
print at import, a lookup slower than the grader's per-call limit, an error at import, and a
notebook that imports matplotlib.pyplot first and plots, a folder of honest files (a helper
package, a reload, data read beside it, a saved figure) and a notebook in a subfolder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from graders.grade import messages as M
from graders.grade.grading import grade, load_submission
from spec import load_spec
from tests.corpus import BASE
from tests.helpers import TEST_SANDBOX, WALL_LIMITS, fast_limits, load_margin

ROOT = Path(__file__).resolve().parents[2]
SELECT = ["lookup_selects_row", "lookup_shape_and_dtype", "dot_product"]
# the per-call limit of both (correct calls take milliseconds; with the load's margin): the
# slow lookup sleeps 60 s, far past it
CALL_S = round(1.5 * load_margin(), 2)
BASE_TEXT = BASE.read_text(encoding="utf-8")


def _module(folder: Path, name: str, head: str = "", tail: str = "") -> Path:
    path = folder / f"{name}.py"
    path.write_text(head + BASE_TEXT + tail, encoding="utf-8")
    return path


def _notebook(folder: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nimport numpy as np"),
                nbformat.v4.new_code_cell(BASE_TEXT),
                nbformat.v4.new_code_cell("plt.plot(init_table(4, 2, np.random.default_rng(0)))"
                                          "\nplt.title('rows')\nplt.show()")]
    path = folder / "plots_first.ipynb"
    nbformat.write(nb, path)
    return path


def _helper_folder(folder: Path) -> Path:
    d = folder / "with_helper"
    d.mkdir()
    (d / "vectors_util.py").write_text("import math\n\ndef length(v):\n"
                                       "    return math.sqrt(sum(x * x for x in v))\n")
    (d / "submission.py").write_text(BASE_TEXT + "\n\nfrom vectors_util import length\n\n"
                                     "def norm(v):\n    return float(length(v))\n")
    return d


def _reads_beside(folder: Path, kind: str) -> Path:
    """A hand-in with a data file beside its entry, read by relative path at import (the cell
    that defines the functions) and in every call of lookup, and a file written there: the
    kit runs it in its folder whatever folder the kit was started from, the grader in its
    worker's copy of the files (Jupyter's and `python hw.py`'s way)."""
    d = folder / f"reads_beside_{kind}"
    d.mkdir()
    (d / "scale.txt").write_text("1.0\n")
    code = ("with open('scale.txt') as f:\n    SCALE = float(f.read())\n" + BASE_TEXT +
            "\n\n_lookup = lookup\n\ndef lookup(table, token_ids):\n"
            "    with open('scale.txt') as f:\n        assert float(f.read()) == SCALE\n"
            "    with open('last_call.txt', 'w') as f:\n        f.write('lookup')\n"
            "    return _lookup(table, token_ids)\n")
    if kind == "notebook":
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]),
                       d / "hw.ipynb")
    else:
        (d / "hw.py").write_text(code)
    return d


def _honest_files(folder: Path) -> Path:
    """What students do with their own files, which the grader's worker must keep working
    although it imports a submission's modules from the read-only hand-in and runs it in a
    writable copy (fifth red-team round): a helper package with relative imports, a reload of
    one's own helper, a data file read beside ``__file__``, a figure saved into the working
    folder and read back."""
    d = folder / "honest_files"
    (d / "hw_tools").mkdir(parents=True)
    (d / "hw_tools" / "__init__.py").write_text("from .geometry import length\n")
    (d / "hw_tools" / "geometry.py").write_text("import math\n\ndef length(v):\n"
                                           "    return math.sqrt(sum(x * x for x in v))\n")
    (d / "scale.txt").write_text("1.0\n")
    (d / "hw.py").write_text(
        "import importlib\nimport os\nimport matplotlib\nmatplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\nimport hw_tools\nimport hw_tools.geometry\n"
        "importlib.reload(hw_tools.geometry)\n"
        "with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scale.txt')) as f:\n"
        "    SCALE = float(f.read())\n"
        "plt.plot([1, 2])\nplt.savefig('fig.png')\nassert os.path.getsize('fig.png') > 0\n" +
        BASE_TEXT + "\n\ndef norm(v):\n    return float(hw_tools.length(v)) * SCALE\n")
    return d


def _writefile(folder: Path, how: str) -> Path:
    """A notebook that writes its module with ``%%writefile`` (and appends to it with ``-a``)
    and imports it in a later cell, as Colab notebooks do. Handed in alone ("file": the grader
    scored it 2/100, every function missing, since the cell was left out), beside a stale copy
    of the module that an older run of the notebook left ("stale": the kit imported that copy),
    or as a folder with that copy: the module is the cell's text, for both."""
    d = folder / f"writefile_{how}"
    d.mkdir()
    head, tail = BASE_TEXT.split("\ndef dot(", 1)
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%%writefile embedding_impl.py\n" + head),
        nbformat.v4.new_code_cell("%%writefile -a embedding_impl.py\n\ndef dot(" + tail),
        nbformat.v4.new_code_cell("from embedding_impl import *")]), d / "hw.ipynb")
    if how != "file":
        (d / "embedding_impl.py").write_text("STALE = True\n")
    return d if how == "folder" else d / "hw.ipynb"


def _helper_beside_file(folder: Path) -> Path:
    """A module importing a helper that lies beside it, checked as the file alone: the grader
    gets the file alone and cannot import the helper; the kit imported it from the folder and
    conformed."""
    d = _helper_folder(folder)
    return d / "submission.py"


def _notebook_in_subfolder(folder: Path) -> Path:
    """A notebook kept in a subfolder of the hand-in, importing the module beside it."""
    d = folder / "nested"
    (d / "week3").mkdir(parents=True)
    (d / "week3" / "week3_util.py").write_text("SCALE = 1.0\n")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import week3_util\n" + BASE_TEXT)]), d / "week3" / "hw.ipynb")
    return d


SUBMISSIONS = {
    "imports_numba": dict(head="import numba\n"),
    "imports_yaml": dict(head="import yaml\n"),
    "imports_tqdm": dict(head="from tqdm import tqdm\n"),
    "tqdm_or_fallback": dict(head="try:\n    from tqdm import tqdm\nexcept ImportError:\n"
                                  "    def tqdm(x):\n        return x\n"),
    "imports_in_a_call": dict(tail="\n\n_lookup = lookup\n\ndef lookup(table, token_ids):\n"
                                   "    import yaml\n    return _lookup(table, token_ids)\n"),
    "prints_at_import": dict(head="print('loading my embedding layer')\n"),
    "slow_lookup": dict(head="import time\n",
                        tail="\n\n_lookup = lookup\n\ndef lookup(table, token_ids):\n"
                             "    time.sleep(60)\n    return _lookup(table, token_ids)\n"),
    "raises_at_import": dict(tail="\n\nSCALE = 1 / (len(__name__) - len(__name__))\n"),
    # what `site` adds to the builtins of every Python (the worker runs with -S): the kit
    # conformed and the grader said NameError at line 1, score 0
    "site_builtins_at_import": dict(head="help(len)\nNAMES = [type(x).__name__ for x in "
                                         "(copyright, credits, license, exit, quit)]\n"),
}


def _make(name: str, folder: Path) -> Path:
    if name == "plots_first":
        return _notebook(folder)
    if name == "with_helper":
        return _helper_folder(folder)
    if name == "honest_files":
        return _honest_files(folder)
    if name == "notebook_in_subfolder":
        return _notebook_in_subfolder(folder)
    if name.startswith("writefile_"):
        return _writefile(folder, name.rsplit("_", 1)[1])
    if name == "helper_beside_file":
        return _helper_beside_file(folder)
    if name == "reads_beside_file":     # checked as the file alone: scale.txt is not handed in
        return _reads_beside(folder, "module") / "hw.py"
    if name.startswith("reads_beside_"):
        return _reads_beside(folder, name.rsplit("_", 1)[1])
    if name == "package":          # a package handed in: its modules import each other
        import shutil

        return Path(shutil.copytree(BASE.parent / "package_reexport", folder / "package"))
    return _module(folder, name, **SUBMISSIONS[name])


def _kit(path: Path, capsys, *, own_process: bool = False) -> tuple[int, dict | None, str]:
    """andrea-conform --format json: (exit status, the report, stderr). In this process (as
    fast), or in a process of its own (stdout is then the real file descriptor 1)."""
    argv = [str(path), "--format", "json", "--profile", "dev", "--call-timeout", str(CALL_S),
            *sum((["--select", s] for s in SELECT), [])]
    if own_process:
        proc = subprocess.run([sys.executable, "-m", "graders.conformance.cli", *argv],
                              capture_output=True, text=True, cwd=ROOT, timeout=600)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        from graders.conformance.cli import main

        capsys.readouterr()
        rc = main(argv)
        out, err = capsys.readouterr()
    data = json.loads(out) if rc in (0, 1) else None      # stdout is valid JSON
    return rc, data, err


def _grader(path: Path) -> dict:
    limits = fast_limits(call_timeout=CALL_S, max_timeouts_per_function=3, exact=WALL_LIMITS)
    return grade(load_submission(path), load_spec(), profile="dev", limits=limits,
                 sandbox=TEST_SANDBOX, select=SELECT)


def _verdicts_of_kit(data: dict) -> dict:
    return {r["check_id"]: (r["status"], r["cause"], (r["details"] or {}).get("fault"))
            for r in data["results"]}


def _verdicts_of_grader(rep: dict) -> dict:
    return {c["id"]: (c["status"], c["cause"], (c.get("details") or {}).get("fault"))
            for c in rep["checks"]}


EXPECTED = {   # the verdict both must give (None: cannot be imported)
    "imports_numba": None, "imports_yaml": None, "imports_tqdm": None,
    "raises_at_import": None,
    "tqdm_or_fallback": "passed", "prints_at_import": "passed", "with_helper": "passed",
    "plots_first": "passed", "package": "passed", "site_builtins_at_import": "passed",
    "reads_beside_notebook": "passed", "reads_beside_module": "passed",
    "honest_files": "passed", "notebook_in_subfolder": "passed",
    "writefile_file": "passed", "writefile_stale": "passed", "writefile_folder": "passed",
    "helper_beside_file": None, "reads_beside_file": None,
    "imports_in_a_call": {"lookup_selects_row": ("failed", "raised", None),
                          "lookup_shape_and_dtype": ("failed", "raised", None),
                          "dot_product": ("passed", None, None)},
    "slow_lookup": {"lookup_selects_row": ("error", "fault", "timeout"),
                    "lookup_shape_and_dtype": ("error", "fault", "timeout"),
                    "dot_product": ("passed", None, None)},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_kit_and_the_grader_give_the_same_verdicts(name, tmp_path, capsys):
    path = _make(name, tmp_path)
    rc, data, err = _kit(path, capsys, own_process=name in ("prints_at_import",
                                                            "site_builtins_at_import"))
    rep = _grader(path)
    want = EXPECTED[name]
    if want is None:                    # not importable: the same reason, line and source
        assert rc == 2 and data is None, (rc, err)
        assert {c["status"] for c in rep["checks"]} == {"not_run"}
        assert {c["cause"] for c in rep["checks"]} == {"import_error"}
        detail = M.import_detail(rep["import"])
        assert detail.splitlines()[0] in err and detail.splitlines()[-1] in err, (detail, err)
        assert "line" in detail.splitlines()[0]
        return
    kit, graded = _verdicts_of_kit(data), _verdicts_of_grader(rep)
    assert kit == graded, (kit, graded, err)
    if want == "passed":
        assert set(kit.values()) == {("passed", None, None)}
        assert rc == 0 and rep["score"] == rep["max_score"]
    else:
        assert kit == want
    if name == "prints_at_import":      # the JSON report is stdout alone; the print is on stderr
        assert "loading my embedding layer" in err
        assert "loading my embedding layer" in rep["submission_output"]


def test_the_list_of_importable_packages_is_installed_with_kit_and_grader():
    """Every package a submission may import is a dependency of the grader (and so of the
    Gradescope image, which installs it) and of the students' kit."""
    import re

    from graders.conformance.sources import ALLOWED_PACKAGES

    def deps(pyproject: Path) -> set[str]:
        text = pyproject.read_text(encoding="utf-8")
        block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
        return {re.split(r"[<>=;\[ ]", d.strip().strip('",'), 1)[0].lower()
                for d in block.splitlines() if d.strip().startswith('"')}

    grader, kit = deps(ROOT / "pyproject.toml"), deps(ROOT / "packaging/selfcheck/pyproject.toml")
    for name in ALLOWED_PACKAGES:
        assert name.lower() in grader and name.lower() in kit, name


def _noted_notebook(folder: Path) -> Path:
    """A notebook with something of every note: IPython-only lines of every kind (more of
    them than a report lists), a cell raising where the traceback names its line, one whose
    own line the traceback does not reach, and a cell that does not compile."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%matplotlib inline\nimport numpy as np"),
                nbformat.v4.new_code_cell(BASE_TEXT),
                nbformat.v4.new_code_cell("!pip install tqdm\nrows = [1, 2]\nrows[5]"),
                nbformat.v4.new_code_cell("def unfinished(:\n    pass"),
                nbformat.v4.new_code_cell("import json\njson.loads('{')"),
                nbformat.v4.new_code_cell("get_ipython().run_line_magic('who', '')\nlookup?"),
                nbformat.v4.new_code_cell("%%bash\necho hi"),
                nbformat.v4.new_code_cell("%who\n" * 25 + "z = 1 / 0")]
    path = folder / "noted.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("lang", ["en", "nl", "ko"])
def test_the_kit_and_the_grader_say_the_same_notes_on_a_notebook(lang, tmp_path, capsys):
    """One renderer (graders/conformance/notes.py): the notes andrea-conform prints for a
    notebook are, sentence for sentence, those of the grader's report in every format that
    shows notes, in the student's language."""
    from graders.conformance.cli import main
    from graders.conformance.notes import MAX_NOTES, notebook_notes
    from graders.grade import batch_reports, formats
    from graders.grade.i18n import Translator

    path = _noted_notebook(tmp_path)
    capsys.readouterr()
    assert main([str(path), "--format", "json", "--profile", "dev", "--lang", lang,
                 "--select", "dot_product"]) == 0
    kit = json.loads(capsys.readouterr().out)["notes"]
    rep = _grader(path)
    graded = notebook_notes(rep["notebook"], rep["import"]["cells"], Translator(lang))
    assert kit == graded, (kit, graded)
    assert len(kit) == 4 + MAX_NOTES + 1             # four cells raised, the rest counted
    text = json.loads(formats.render(rep, "gradescope", lang))["output"]
    feedback = "\n".join(batch_reports.feedback_model(rep, lang)["notes"])
    for note in kit:
        assert note in text and note in feedback, note
    if lang == "en":
        assert kit[0] == ("Cell 3, line 3 raised IndexError: list index out of range; the cells "
                          "after it were run (what it would have defined is missing).")
        assert kit[1].startswith("Cell 4, line 1 raised SyntaxError")
        assert kit[4] == ("Cell 1, line 1: \u201c%matplotlib inline\u201d was left out: an "
                          "IPython magic only works inside Jupyter, not in plain Python.")
        more = rep["notebook"]["dropped_total"] - MAX_NOTES
        assert more > 0 and kit[-1].startswith(f"{more} more line(s)")
    else:
        assert not any("was left out" in n or "raised" in n for n in kit), kit


def test_the_kit_and_the_grader_place_a_line_in_the_same_cell(tmp_path):
    """One mapping from a line of a notebook's module to its cell (sources.cell_at): the kit's
    Source.locate (its import error, the cells that raised), the grader's report (the import's
    error, the cells that raised, from the submission's data) and the tamper flags' places
    agree on every line, the prelude's and those past the end included, and the grader reads
    a worker's line that is not an int as no place."""
    from graders.conformance.sources import cell_at
    from graders.grade import grading, tamper

    sub = load_submission(_noted_notebook(tmp_path))
    source = sub.notebook_source()
    assert source is not None and source.notebook
    n = len(source.line_map)
    placed = 0
    for line in range(-1, n + 3):
        kit = source.locate(line)
        graded = grading._cell_of(sub.source, line)
        assert ((graded["cell"], graded["line"]) if graded else None) == kit, line
        assert cell_at(sub.source["line_map"], line) == kit, line
        placed += kit is not None
    assert 0 < placed < n                        # the prelude's lines have no cell
    for odd in (None, True, 3.0, "3", [3], 10 ** 30):
        assert grading._cell_of(sub.source, odd) == {} and source.locate(odd) is None, odd
    # the cells that raised: the grader's list from the worker's lines is the kit's
    cells = [{"first": first, "line": line, "type": "ValueError", "msg": "m"}
             for first, _ in source.cell_ranges() for line in (first, first + 1, None)]
    from graders.conformance.notes import raised_cell

    kit_cells = [c for c in (raised_cell(source.locate, c["first"], c["line"], c["type"],
                                         c["msg"]) for c in cells) if c]
    assert grading._cells_raised(sub.source, cells) == kit_cells and kit_cells
    # a tamper flag in the notebook is placed in the cell the kit names
    text = source.text + "import ctypes\n"
    map_ = [list(x) for x in source.line_map] + [[99, 7]]
    places, _ = tamper.submission_places([("nb.py", text)], None, ("nb.py", "noted.ipynb", map_))
    (p,) = [p for p in places if p.get("cell") == 99]
    assert p["line"] == 7 and p["file"] == "noted.ipynb"
    assert cell_at(map_, len(text.splitlines())) == (99, 7)
