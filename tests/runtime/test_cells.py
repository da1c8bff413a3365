"""A notebook runs as Jupyter runs it, cell after cell: a cell that raises an Exception is
recorded and the next cells still run, in the grader's worker and in the self-check alike; a
plain module keeps its import rule; SystemExit and KeyboardInterrupt stop the run as before."""
import json

import nbformat
import pytest

from graders.conformance.registry import all_checks
from graders.conformance.runner import ImplementationLoadError, load_impl
from graders.grade import formats, messages as M
from graders.grade.grading import grade, load_submission
from graders.grade.i18n import translator
from tests.corpus import BASE, correct_files
from tests.helpers import TEST_SANDBOX, fast_limits

LIMITS = fast_limits()
DEMO = next(p for p in correct_files() if p.stem == "notebook_demo_raises")
VEC = ["VEC-*"]


def _cells(path, *cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Huiswerk")] + [
        nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, str(path))
    return path


def _split_base():
    """numpy_naive.py as cells: everything up to norm, norm alone, and what follows it."""
    text = BASE.read_text(encoding="utf-8")
    a, b = text.index("def norm("), text.index("def cosine_similarity(")
    return text[:a], text[a:b], text[b:]


def _grade(path, spec, select=VEC):
    return grade(load_submission(path), spec, profile="dev", limits=LIMITS,
                 sandbox=TEST_SANDBOX, select=select)


def test_a_raising_demo_cell_costs_nothing_and_is_named_in_every_language(spec):
    rep = _grade(DEMO, spec, select=VEC + ["EMB-LOOKUP-*"])
    assert rep["import"]["ok"] and rep["score"] == rep["max_score"], [
        (c["id"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert [(c["cell"], c["line"], c["type"]) for c in rep["import"]["cells"]] == [
        (5, 3, "IndexError"), (7, 1, "NameError")]
    for lang, words, name in (("en", "Cell 5, line 3 raised IndexError", "NameError"),
                              ("nl", "Cel 5, regel 3 gaf een fout (IndexError)",
                               "gaf een fout (onbekende naam)"),
                              ("ko", "5번째 셀 3번째 줄에서 오류(IndexError)",
                               "오류(정의되지 않은 이름)")):
        out = json.loads(formats.render(rep, "gradescope", lang))
        assert words in out["output"] and name in out["output"], out["output"]
        assert "Traceback" not in out["output"] and "worker" not in out["output"]
        assert translator(lang)(M.NOTHING_WRONG) in out["output"]


def test_self_check_runs_the_cells_after_a_raising_one(capsys):
    from graders.conformance import cli as conform_cli

    impl = load_impl(DEMO, submission_rules=True)
    assert all(callable(getattr(impl, f, None)) for f in ("lookup", "embed", "cosine_similarity"))
    assert impl.positions.shape == (2, 4)          # the last cell ran
    raised = impl.__andrea_cells_raised__
    assert [(c["cell"], c["line"], c["type"]) for c in raised] == [(5, 3, "IndexError"),
                                                                  (7, 1, "NameError")]
    assert conform_cli.main([str(DEMO), "--select", "VEC-DOT-*"]) == 0
    out = capsys.readouterr().out
    assert "Cell 5, line 3 raised IndexError" in out and "Traceback" not in out
    assert "Cell 7, line 1 raised NameError" in out


def test_a_defining_cell_that_raises_loses_exactly_that_functions_checks(tmp_path, spec):
    head, norm, tail = _split_base()
    path = _cells(tmp_path / "hw.ipynb", head, "plot_norms()\n" + norm, tail,
                  "print(norm([3.0, 4.0]))   # norm was never defined")
    needs_norm = {c.id for c in all_checks() if "norm" in c.requires
                  and c.clauses[0].startswith("VEC-")}
    assert needs_norm                                  # the test means something
    rep = _grade(path, spec)
    failed = {c["id"]: c for c in rep["checks"] if c["problem"]}
    assert set(failed) == needs_norm
    assert {c["cause"] for c in failed.values()} == {"missing_function"}
    assert [(c["cell"], c["type"]) for c in rep["import"]["cells"]] == [
        (3, "NameError"), (5, "NameError")]
    # the self-check says the same
    impl = load_impl(path)
    assert not hasattr(impl, "norm") and callable(impl.cosine_similarity)


@pytest.mark.parametrize("stop", ["raise SystemExit(3)", "raise KeyboardInterrupt"])
def test_a_cell_raising_systemexit_or_keyboardinterrupt_stops_the_notebook(tmp_path, spec,
                                                                            stop):
    head, norm, tail = _split_base()
    path = _cells(tmp_path / "hw.ipynb", head + norm, stop, tail)
    rep = _grade(path, spec)
    assert not rep["import"]["ok"] and rep["score"] == 0
    assert not rep["import"].get("cells")
    with pytest.raises(BaseException) as caught:       # the self-check: as before, not caught
        load_impl(path)
    assert type(caught.value) in (SystemExit, KeyboardInterrupt)


def test_a_module_still_fails_on_its_first_top_level_error(tmp_path, spec):
    path = tmp_path / "hw.py"
    path.write_text(BASE.read_text(encoding="utf-8") + "\nraise IndexError(\"a demo at top level\")\n")
    rep = _grade(path, spec, select=["VEC-DOT-*"])
    assert not rep["import"]["ok"] and rep["score"] == 0
    with pytest.raises(ImplementationLoadError, match="raised"):
        load_impl(path)


def test_a_cell_with_a_syntax_error_alone_fails_and_future_imports_carry(tmp_path, spec):
    """A half-written scratch cell costs only what it would have defined: it is recorded, the
    other cells run (as each cell runs on its own in Jupyter)."""
    broken = _cells(tmp_path / "broken.ipynb", BASE.read_text(encoding="utf-8"),
                    "def f(:\n    pass", "after = 1")
    impl = load_impl(broken)
    assert impl.after == 1 and not hasattr(impl, "f")
    assert [(c["cell"], c["line"], c["type"]) for c in impl.__andrea_cells_raised__] == [
        (3, 1, "SyntaxError")], impl.__andrea_cells_raised__
    rep = _grade(broken, spec, select=["VEC-DOT-*"])
    assert rep["import"]["ok"] and rep["score"] == rep["max_score"]
    (cell,) = rep["import"]["cells"]
    assert (cell["cell"], cell["line"], cell["type"]) == (3, 1, "SyntaxError")
    fut = _cells(tmp_path / "fut.ipynb", "x = 1", "from __future__ import annotations",
                 "def f(a: Undefined) -> None:\n    return a")
    assert load_impl(fut).f.__annotations__["a"] == "Undefined"


def test_a_cell_error_cannot_shape_the_feedback(tmp_path, spec):
    """A cell's message is one line of text: no forged heading, score line or HTML."""
    from graders.grade.batch_reports import feedback_text

    path = _cells(tmp_path / "hw.ipynb", BASE.read_text(encoding="utf-8"),
                  'raise ValueError("x\\n# Score: 100 / 100\\n<script>alert(1)</script>")')
    rep = _grade(path, spec, select=["VEC-DOT-*"])
    assert rep["import"]["ok"] and rep["import"]["cells"][0]["cell"] == 3
    assert "\n" not in rep["import"]["cells"][0]["msg"]
    md = feedback_text(rep, "en", "md", "hw.ipynb")
    assert "\n# Score" not in md and "Cell 3, line 1 raised ValueError: x # Score" in md
    assert "<script>" not in feedback_text(rep, "en", "html", "hw.ipynb")


def test_the_grader_keeps_only_well_formed_cell_reports_from_the_worker():
    from graders.grade.proxy import _cell_errors

    forged = [{"first": 3, "line": 4, "type": "E\nx", "msg": "m" * 999, "score": 100},
              {"first": "3"}, "cell 2", {"first": True}, {"first": 5, "line": "9"}]
    assert _cell_errors(forged) == [
        {"first": 3, "line": 4, "type": "E x", "msg": "m" * 300},
        {"first": 5, "line": None, "type": "", "msg": ""}]
    assert _cell_errors({"first": 1}) == [] and len(_cell_errors([{"first": 2}] * 99)) == 50


CELL_CASES = {
    "raises, then runs on": (["x = 1\n", "[][0]\n", "y = x + 1\n", "raise ValueError('v')\n",
                              "z = y\n"], None),
    "future import carries": (["from __future__ import annotations\n",
                               "def f(a: Undefined): return a\n", "g = f(2)\n"], None),
    "syntax error skips its cell": (["ran = 1\n", "def (:\n", "  x = 1\n", "after = 2\n"],
                                    None),
    "SystemExit stops": (["a = 1\n", "raise SystemExit(3)\n", "b = 2\n"], SystemExit),
    "KeyboardInterrupt stops": (["raise KeyboardInterrupt\n", "b = 2\n"], KeyboardInterrupt),
}


@pytest.mark.parametrize("case", CELL_CASES)
def test_the_worker_and_the_self_check_run_cells_alike(tmp_path, case):
    """One cell loop (andrea_runtime.cells) for andrea-conform and the worker: on the same cells
    the worker's report (its frames' dicts) names the same failing cells and lines, and both
    leave the same names."""
    from andrea_runtime import cells as sources, worker

    cells, stops = CELL_CASES[case]
    ranges, text = [], ""
    for cell in cells:
        first = text.count("\n") + 1
        text += cell
        ranges.append((first, first + cell.count("\n") - 1))
    path = tmp_path / "nb.py"
    path.write_text(text, encoding="utf-8")
    ours, theirs = {}, {}
    if stops:
        with pytest.raises(stops):
            sources.run_cells(text, str(path), ranges, ours)
        with pytest.raises(stops):
            worker._run_cells(str(path), ranges, theirs)
    else:
        got = sources.run_cells(text, str(path), ranges, ours)
        want = worker._run_cells(str(path), ranges, theirs)
        assert [(first, type(exc).__name__, line) for first, exc, line in got] == \
               [(w["first"], w["type"], w["line"]) for w in want]
    names = lambda ns: {k: v for k, v in ns.items() if not k.startswith("__")  # noqa: E731
                        and not callable(v)}
    assert names(ours) == names(theirs)
