"""Submissions as students write them: notebooks and ordinary imports, graded and self-checked
by the same rules (graders.conformance.sources)."""
import json
import shutil

import nbformat
import pytest

from graders.conformance import cli as conform_cli
from graders.conformance.sources import forbidden_imports, notebook_source
from graders.grade import formats
from graders.grade.grading import grade, load_submission
from graders.grade.messages import import_detail

from ..grade.conftest import CORRECT
from tests.grade.reports import report_of
from tests.helpers import TEST_SANDBOX, fast_limits

LIMITS = fast_limits()
SELECT = ["lookup_selects_row", "dot_product"]


def _notebook(path, middle):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Homework 3: embeddings"),
        nbformat.v4.new_code_cell("%matplotlib inline\n!pip install numpy\nimport numpy as np\n"
                                  "import matplotlib.pyplot as plt\nimport scipy.stats"),
        nbformat.v4.new_code_cell(middle),
        nbformat.v4.new_code_cell("t = np.eye(3, dtype=np.float32)\nplt.plot(lookup(t, np.array([0, 2]))[0])\n"
                                  "lookup?\nget_ipython().run_line_magic('time', '1')\n"
                                  "if True:\n    %time t.sum()"),
        nbformat.v4.new_code_cell("%%bash\necho this is not Python"),
        nbformat.v4.new_code_cell("%%time\nwarm = dot(np.ones(3), np.ones(3))"),
    ]
    nbformat.write(nb, str(path))
    return path


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    d = tmp_path_factory.mktemp("nb")
    good = _notebook(d / "hw.ipynb", CORRECT.read_text())
    broken = _notebook(d / "broken.ipynb", "def lookup(table, ids):\n    return table[ids\n")
    (d / "garbage.ipynb").write_text("{ this is not json")
    folder = d / "carol"
    folder.mkdir()
    shutil.copy(good, folder / "Homework 3.ipynb")
    (folder / "plotting.py").write_text("def nothing():\n    return None\n")
    return {"good": good, "broken": broken, "garbage": d / "garbage.ipynb", "folder": folder}


def test_notebook_cells_become_one_module_with_a_cell_map(notebooks):
    src = notebook_source(notebooks["good"].read_bytes(), "hw.ipynb")
    compile(src.text, "hw", "exec")
    kinds = [(d.cell, d.line, d.kind) for d in src.dropped]
    assert kinds == [(2, 1, "magic"), (2, 2, "shell"), (4, 3, "help"), (4, 4, "get_ipython"),
                     (4, 6, "magic"), (5, 1, "cell_magic"), (6, 1, "cell_magic")]
    line = src.text.splitlines().index("import scipy.stats") + 1
    assert src.locate(line) == (2, 5)
    assert "echo this is not Python" not in src.text        # a %%bash cell is not Python
    assert "warm = dot(" in src.text                         # a %%time cell's body is


def test_a_notebook_is_graded_from_its_code_cells(notebooks, spec):
    rep = grade(load_submission(notebooks["good"]), spec, profile="dev", limits=LIMITS,
                select=SELECT, sandbox=TEST_SANDBOX)
    assert rep["score"] == rep["max_score"] > 0, rep["checks"]
    assert len(rep["notebook"]["dropped"]) == 7
    gs = json.loads(formats.render(rep, "gradescope", "nl"))
    assert "Cel 2, regel 1: “%matplotlib inline” is weggelaten" in gs["output"]
    folder = load_submission(notebooks["folder"])           # a notebook with a helper module
    assert folder.source["origin"] == "Homework 3.ipynb" and folder.sha256 != load_submission(
        notebooks["good"]).sha256


def test_notebook_errors_point_at_cells(notebooks, spec):
    rep = grade(load_submission(notebooks["broken"]), spec, profile="dev", limits=LIMITS,
                select=SELECT, sandbox=TEST_SANDBOX)
    assert rep["score"] == 0          # the one cell with the functions does not compile
    assert {"cell": 3, "line": 2, "type": "SyntaxError"}.items() <= rep["import"]["cells"][0].items()
    bad = grade(load_submission(notebooks["garbage"]), spec, profile="dev", limits=LIMITS,
                select=SELECT, sandbox=TEST_SANDBOX)
    assert bad["score"] == 0 and "not a Jupyter notebook" in import_detail(bad["import"])


def test_self_check_reads_notebooks_the_same_way(notebooks, capsys):
    assert conform_cli.main([str(notebooks["good"]), "--profile", "dev",
                             "--select", "lookup_selects_row"]) == 0
    out = capsys.readouterr().out
    assert "Cell 2, line 1: \u201c%matplotlib inline\u201d was left out: an IPython magic" in out
    assert conform_cli.main([str(notebooks["folder"]), "--profile", "dev",
                             "--select", "dot_product"]) == 0
    capsys.readouterr()
    assert conform_cli.main([str(notebooks["broken"]), "--profile", "dev",
                             "--select", "lookup_selects_row"]) == 1
    out = capsys.readouterr().out
    assert "Cell 3, line 2" in out and "SyntaxError" in out


@pytest.mark.parametrize("line, refused", [
    ("import matplotlib.pyplot as plt", []), ("import scipy.stats as st", []),
    ("from andrea_ref import lookup", ["andrea_ref"]), ("import graders.grade", ["graders.grade"]),
    ("import importlib\nimportlib.import_module('spec')", ["spec"]),
    ("import hypothesis", ["hypothesis"]),
])
def test_import_rule(line, refused):
    assert forbidden_imports(line) == refused


def test_ordinary_imports_are_graded_kit_imports_are_not(tmp_path, spec, capsys):
    body = CORRECT.read_text()
    ok = tmp_path / "plots.py"
    ok.write_text("import matplotlib\nimport matplotlib.pyplot as plt\nimport scipy.sparse\n"
                  "import json, itertools, functools\n" + body)      # the list and the stdlib
    rep = grade(load_submission(ok), spec, profile="dev", limits=LIMITS, select=SELECT,
                sandbox=TEST_SANDBOX)
    assert rep["score"] == rep["max_score"] > 0, rep["checks"][0]["message"]
    for name, word in (("spec", "imports spec"), ("hypothesis", "No module named 'hypothesis'")):
        bad = tmp_path / f"uses_{name}.py"
        bad.write_text(f"import {name}\n" + body)
        rep = grade(load_submission(bad), spec, profile="dev", limits=LIMITS, select=SELECT,
                    sandbox=TEST_SANDBOX)
        assert rep["score"] == 0 and word in import_detail(rep["import"])
        assert conform_cli.main([str(bad), "--select", "dot_product"]) == 2   # self-check agrees
        assert "which the grader refuses" in capsys.readouterr().err


def test_only_statement_starts_are_ipython_commands():
    """A '%' or '!' that continues an expression or sits in a string is Python, not a magic."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        'x = (7\n     % 3)\ndoc = """\n% of the rows\n!important\n"""\n'
        's = "a(" ; y = [1,\n  2]\n%time y\nz = 1 + \\\n  2\n!ls')]
    src = notebook_source(nbformat.writes(nb), "t.ipynb")
    assert [(d.line, d.kind) for d in src.dropped] == [(9, "magic"), (12, "shell")]
    ns: dict = {}
    exec(compile(src.text, "t", "exec"), ns)  # noqa: S102 - our own test notebook
    assert (ns["x"], ns["doc"], ns["z"]) == (1, "\n% of the rows\n!important\n", 3)


def test_every_form_of_ipython_help_is_left_out():
    """IPython takes "name?", "name??", "?name", "??name" and wildcards ("np.*load*?") as help
    requests; none is Python, and a notebook that uses one still runs."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import numpy as np\n?np.zeros\n??np.add\nnp.ones?\nnp.eye??\nnp.*load*?\n"
        "x = 1 if True else 2\n  # ? a comment\ny = 'a?'")]
    src = notebook_source(nbformat.writes(nb), "t.ipynb")
    assert [(d.line, d.kind) for d in src.dropped] == [(k, "help") for k in range(2, 7)]
    ns: dict = {}
    exec(compile(src.text, "t", "exec"), ns)  # noqa: S102 - our own test notebook
    assert (ns["x"], ns["y"]) == (1, "a?")


def test_display_works_as_in_jupyter_and_maps_to_no_cell():
    """Jupyter gives every notebook display() without an import; a notebook that calls it at
    top level imports here too (it shows nothing), and its line numbers are unchanged."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1\ndisplay(x, raw=True)\ny = 1 / 0")]
    src = notebook_source(nbformat.writes(nb), "hw.ipynb")
    namespace: dict = {}
    with pytest.raises(ZeroDivisionError) as err:
        exec(compile(src.text, "hw.ipynb", "exec"), namespace)   # display(...) itself is fine
    assert src.locate(err.traceback[-1].lineno + 1) == (1, 3)
    assert src.locate(1) is None                                  # the prelude is no cell's


def test_a_package_folder_is_graded_through_its_init(tmp_path):
    """A folder whose __init__.py re-exports its modules' functions is a package; an
    __init__.py that only marks a folder as a package, or sets a version, leaves the usual
    rules."""
    from graders.conformance.sources import choose_entry

    names = ["__init__.py", "layer.py", "vectors.py"]
    assert choose_entry(names, "from .layer import *\nfrom .vectors import *\n")[0] == "__init__.py"
    assert choose_entry(names, '"""Only a docstring."""\n')[1] == "many"
    assert choose_entry(["__init__.py", "embedding.py"], "")[0] == "embedding.py"
    assert choose_entry(["__init__.py", "embedding.py"], "# a comment\n")[0] == "embedding.py"
    assert choose_entry(["__init__.py", "solution.py"], '__version__ = "1.0"\n')[0] == "solution.py"
    pkg = tmp_path / "hw"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .layer import lookup\n", encoding="utf-8")
    (pkg / "layer.py").write_text("def lookup(table, token_ids):\n    return table[token_ids]\n",
                                  encoding="utf-8")
    (pkg / "notes.py").write_text("x = 1\n", encoding="utf-8")
    assert load_submission(pkg).module == "__init__.py"


def test_layouts_students_hand_in_are_read_alike_by_grader_and_self_check(tmp_path):
    """A folder zipped inside the folder (hw3/..., with macOS's __MACOSX beside it), the
    student's own test file beside the module, a helper module beside it, and a module in the
    encoding its coding line declares: the grader and the self-check find the same module, and
    import it."""
    from graders.conformance.runner import load_impl
    from graders.conformance.sources import submission_root

    body = (CORRECT.read_text(encoding="utf-8"))
    nested = tmp_path / "nested"
    (nested / "hw3").mkdir(parents=True)
    (nested / "__MACOSX" / "hw3").mkdir(parents=True)
    (nested / "hw3" / "my_embedding.py").write_text(body, encoding="utf-8")
    (nested / "__MACOSX" / "hw3" / "._my_embedding.py").write_bytes(b"\0\5\26\7")
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "my_embedding.py").write_text(body, encoding="utf-8")
    (beside / "test_my_embedding.py").write_text("import pytest\nfrom my_embedding import *\n",
                                                 encoding="utf-8")
    (beside / "conftest.py").write_text("", encoding="utf-8")
    helped = tmp_path / "helped"
    helped.mkdir()
    cut = body.index("def dot(")
    (helped / "vecmath_helpers.py").write_text("import numpy as np\n\n" + body[cut:],
                                               encoding="utf-8")
    (helped / "solution.py").write_text(
        body[:cut] + "\nfrom vecmath_helpers import cosine_similarity, dot, norm\n",
        encoding="utf-8")
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# opgave: café\n" + body).encode("latin-1"))
    for path, module in ((nested, "my_embedding.py"), (beside, "my_embedding.py"),
                         (helped, "solution.py"), (latin, "latin.py")):
        assert load_submission(path).module == module, path
        assert callable(load_impl(path, submission_rules=True).lookup), path
    assert submission_root(["a/x.py", "b/y.py"]) == ""                 # ambiguous: not guessed
    assert submission_root(["s/hw/x.ipynb", ".git/x.py"]) == "s/hw/"
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.py", "b.py", "test_a.py"):
        (two / name).write_text(body, encoding="utf-8")
    assert load_submission(two).problem is not None                      # still ambiguous


def test_a_helper_named_like_a_package_of_the_grader_is_named_as_the_reason(tmp_path):
    """A student's own spec.py, imported by their module, would be refused as importing the
    kit: the grader and the self-check both say to rename it (not "imports spec, which is not
    allowed"); a spec.py nobody imports changes nothing."""
    from graders.conformance.runner import ImplementationLoadError, load_impl
    from graders.grade import messages as M
    from graders.grade.class_summary import problem_of

    body = CORRECT.read_text(encoding="utf-8")
    folder = tmp_path / "hw"
    folder.mkdir()
    (folder / "spec.py").write_text("D_MODEL = 768\n", encoding="utf-8")
    (folder / "solution.py").write_text("import spec\n" + body, encoding="utf-8")
    sub = load_submission(folder)
    assert sub.problem == M.KIT_NAME and sub.problem_fields["names"] == "spec.py"
    from spec import load_spec

    assert problem_of(report_of(load_spec(), [], module=None, worker=False, imp={
        "ok": False, "problem": sub.problem, "fields": {}})) != "forbidden import"
    with pytest.raises(ImplementationLoadError, match=r"spec\.py has the name of one of the "
                       r"grader's own packages \(spec\); rename it"):
        load_impl(folder, submission_rules=True)
    (folder / "solution.py").write_text(body, encoding="utf-8")
    assert load_submission(folder).problem is None
    assert callable(load_impl(folder, submission_rules=True).lookup)


def test_a_notebook_with_a_byte_order_mark_is_a_notebook():
    """Some editors save UTF-8 with a byte-order mark; the notebook is read all the same."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 'ë'")]
    data = b"\xef\xbb\xbf" + nbformat.writes(nb).encode("utf-8")
    for given in (data, data.decode("utf-8")):
        ns: dict = {}
        exec(compile(notebook_source(given, "t.ipynb").text, "t", "exec"), ns)  # noqa: S102
        assert ns["x"] == "ë"


def test_a_notebook_importing_ipython_runs_where_ipython_is_not_installed(monkeypatch):
    """Notebooks often import IPython's display helpers. Where IPython is not installed with
    the grader, such an import binds its names to a stand-in that shows nothing (as display()
    does), so the cell's other lines still run; the line is named in the notes."""
    from graders.conformance import sources

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from IPython.display import display, Markdown as md\nimport numpy as np\n"
        "import IPython.display as ipd\nif True:\n    from IPython.display import Image\n"
        "x = np.ones(2)\ndisplay(md('**x**'))\nipd.clear_output(wait=True)\nImage('a.png')")]
    monkeypatch.setattr(sources, "_ipython_installed", lambda: False)   # as where it is not
    src = notebook_source(nbformat.writes(nb), "t.ipynb")
    assert [(d.line, d.kind) for d in src.dropped] == [
        (1, "ipython_import"), (3, "ipython_import"), (5, "ipython_import")]
    ns: dict = {}
    exec(compile(src.text, "t", "exec"), ns)  # noqa: S102 - our own test notebook
    assert ns["x"].tolist() == [1.0, 1.0]
    line = src.text.splitlines().index("x = np.ones(2)") + 1
    assert src.locate(line) == (1, 6)
