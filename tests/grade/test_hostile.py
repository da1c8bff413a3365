"""Every hostile submission is graded correctly, and valid output comes out in every format.

Each case grades only the checks it is about (plus one that must still pass), to keep the
suite fast; `examples/hostile/README.md` lists what each submission does.
"""
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graders.grade import formats
from graders.grade.sandbox import Limits

from .conftest import HAS_BWRAP, HOSTILE, LIMITS, grade_path, needs_bwrap, statuses

FAST_IMPORT = Limits.for_tests(startup_timeout=3.0, memory_mb=768)

# file -> (checks to run, expected status per check, expected score, limits)
CASES = {
    "infinite_loop.py": (["vector_norm", "dot_product"],
                         {"vector_norm": "error", "dot_product": "passed"}, 7.5, LIMITS),
    "hang_at_import.py": (["token_table_params"], {"token_table_params": "error"}, 0, FAST_IMPORT),
    "exit_at_import.py": (["token_table_params"], {"token_table_params": "error"}, 0, LIMITS),
    "sys_exit_in_call.py": (["dot_product", "vector_norm"],
                            {"dot_product": "error", "vector_norm": "passed"}, 7.5, LIMITS),
    "fake_results.py": (["lookup_selects_row", "token_table_params"],
                        {"lookup_selects_row": "failed", "token_table_params": "passed"}, 10,
                        LIMITS),
    "monkeypatch_numpy.py": (["lookup_selects_row", "embed_adds_position_rows"],
                             {"lookup_selects_row": "failed",
                              "embed_adds_position_rows": "failed"}, 0, LIMITS),
    "memory_bomb.py": (["gradient_shapes", "token_table_params"],
                       {"gradient_shapes": "error", "token_table_params": "passed"}, 10,
                       FAST_IMPORT),
    "segfault.py": (["similarity_by_direction", "vector_norm"],
                    {"similarity_by_direction": "error", "vector_norm": "passed"}, 7.5, LIMITS),
    "fork_bomb.py": (["init_shape_and_dtype"], {"init_shape_and_dtype": "passed"}, 15, LIMITS),
    "partial.py": (["token_table_params", "dot_product", "lookup_selects_row"],
                   {"token_table_params": "passed", "dot_product": "passed",
                    "lookup_selects_row": "failed"}, 25, LIMITS),
    "syntax_error.py": (["token_table_params"], {"token_table_params": "error"}, 0, LIMITS),
    "import_reference.py": (["token_table_params"], {"token_table_params": "error"}, 0, LIMITS),
    "flood_output.py": (["lookup_selects_row", "token_table_params"],
                        {"lookup_selects_row": "error", "token_table_params": "passed"}, 10,
                        LIMITS),
}
MESSAGES = {
    "infinite_loop.py": ("vector_norm", "timeout: norm() did not finish"),
    "hang_at_import.py": ("token_table_params", "timeout: importing the submission"),
    "exit_at_import.py": ("token_table_params", "crash: importing the submission"),
    "sys_exit_in_call.py": ("dot_product", "called sys.exit(3)"),
    "memory_bomb.py": ("gradient_shapes", "embed_backward()"),
    "segfault.py": ("similarity_by_direction", "SIGSEGV"),
    "partial.py": ("lookup_selects_row", "function lookup is missing"),
    "syntax_error.py": ("token_table_params", "SyntaxError at line 5"),
    "import_reference.py": ("token_table_params", "forbidden: the submission imports andrea_ref"),
    "flood_output.py": ("lookup_selects_row", "output: lookup() printed more than"),
}
_REPORTS = {}


def _cmdline_hits(needle: str) -> list[int]:
    hits = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if needle.encode() in f.read():
                        hits.append(int(entry))
            except OSError:
                pass
    return hits


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission_is_graded_correctly(name, spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    select, expected, score, limits = CASES[name]
    rep = grade_path(HOSTILE / name, spec, select=select, limits=limits)
    _REPORTS[name] = rep
    assert statuses(rep) == expected, [(c["id"], c["message"][:200]) for c in rep["checks"]]
    assert rep["score"] == pytest.approx(score)
    if name in MESSAGES:
        check, text = MESSAGES[name]
        msg = next(c["message"] for c in rep["checks"] if c["id"] == check)
        assert text in msg
    # nothing the submission left behind survives grading
    assert _cmdline_hits(f"submission/{name}") == []
    assert list(tmp_path.iterdir()) == []          # it could not write into our folder
    for fmt in formats.FORMATS:
        _valid(formats.render(rep, fmt, "en"), fmt, rep)


def _valid(text: str, fmt: str, rep: dict) -> None:
    if fmt in ("json", "gradescope"):
        data = json.loads(text)
        assert data["score"] == rep["score"]
        assert isinstance(data["execution_time"], float)
        for t in data["tests"]:
            assert set(t) >= {"name", "number", "score", "max_score", "status", "output",
                              "visibility"}
            assert t["status"] in ("passed", "failed")
            assert t["visibility"] in ("visible", "hidden", "after_due_date")
        assert sum(t["score"] for t in data["tests"]) == pytest.approx(rep["score"], abs=1e-3)
    elif fmt == "junit":
        root = ET.fromstring(text.split("\n", 1)[1])
        assert root.tag == "testsuites"
        assert int(root.get("tests")) == len(rep["checks"])
    else:
        assert "Total score" in text


def test_fake_results_never_become_the_result(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = Path("/autograder/results/results.json").exists()
    rep = grade_path(HOSTILE / "fake_results.py", spec, select=["lookup_selects_row"])
    out = json.loads(formats.render(rep, "gradescope"))
    assert out["score"] == 0
    assert all(t["name"] != "everything" for t in out["tests"])
    assert '"score": 100' in rep["submission_output"]      # shown as its output, nothing more
    assert not (tmp_path / "results.json").exists()
    if HAS_BWRAP and not before:
        assert not Path("/autograder/results/results.json").exists()


def test_the_fork_bomb_is_contained_and_cleaned_up(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = grade_path(HOSTILE / "fork_bomb.py", spec, select=["init_reproducible_from_rng"])
    assert statuses(rep)["init_reproducible_from_rng"] in ("passed", "error")
    assert _cmdline_hits("submission/fork_bomb.py") == []


@needs_bwrap
def test_files_outside_the_scratch_folder_are_invisible(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = grade_path(HOSTILE / "read_outside.py", spec, select=["lookup_selects_row"])
    assert rep["isolation"]["mode"] == "bwrap"
    assert statuses(rep) == {"lookup_selects_row": "failed"}
    assert "is missing" in rep["checks"][0]["message"]
    assert "read the spec" not in rep["submission_output"]


def test_rlimits_mode_still_grades_and_records_the_downgrade(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = grade_path(HOSTILE / "infinite_loop.py", spec, select=["vector_norm", "dot_product"],
                     sandbox="none")
    assert rep["isolation"]["mode"] == "rlimits"
    assert statuses(rep) == {"vector_norm": "error", "dot_product": "passed"}
    rep = grade_path(HOSTILE / "import_reference.py", spec, select=["token_table_params"],
                     sandbox="none")
    assert "forbidden" in rep["checks"][0]["message"]
