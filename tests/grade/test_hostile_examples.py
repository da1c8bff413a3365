"""Every hostile submission is graded correctly, and valid output comes out in every format.

Each hostile file holds its attack and only the few contract functions the attack needs
(`examples/hostile/README.md` lists them). Each case grades the checks the attack is about plus,
where the file defines a working function, that function's check: it must pass, which shows
grading went on (with a fresh worker after a hang, crash or exit). Checks run in registry order
(params, lookup, embed, init, backward, vectors), so most working checks come after the attack.
"""
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graders.grade import formats

from .conftest import HAS_BWRAP, HOSTILE, LIMITS, grade_path, leftovers, needs_bwrap, statuses
from tests.helpers import fast_limits

FAST_IMPORT = fast_limits(startup_timeout=3.0, memory_mb=768)
# hang_at_import never imports, so a short import limit changes nothing but the wait
NO_IMPORT = fast_limits(startup_timeout=1.0)
PASSED = ("passed", "")

# file -> ({check: (status, text its message must contain; "" for a pass)}, score, limits).
# The selected checks are exactly the keys.
CASES = {
    "infinite_loop.py": ({"vector_norm": ("error", "timeout: norm() did not finish"),
                          "similarity_by_direction": PASSED}, 7.5, LIMITS),
    "hang_at_import.py": ({"token_table_params": ("not_run",
                                                  "timeout: importing the submission")},
                          0, NO_IMPORT),
    "exit_at_import.py": ({"token_table_params": ("not_run",
                                                  "crash: importing the submission")},
                          0, LIMITS),
    "sys_exit_in_call.py": ({"dot_product": ("error", "crash: dot(): the submission called "
                                                      "sys.exit(3)"),
                             "vector_norm": PASSED}, 7.5, LIMITS),
    "fake_results.py": ({"lookup_selects_row": ("failed", "out[0]=0.0, but should be"),
                         "token_table_params": PASSED}, 10, LIMITS),
    "monkeypatch_numpy.py": ({"lookup_selects_row": ("failed", "out[0]=0.0, but should be"),
                              "embed_adds_position_rows": ("failed", "x[0, 0]=0.0, but should "
                                                                     "be exactly")}, 0, LIMITS),
    "memory_bomb.py": ({"gradient_shapes": ("error", "resources: embed_backward(): the "
                                                     "submission ran out of memory"),
                        "vector_norm": PASSED}, 15, FAST_IMPORT),
    "segfault.py": ({"similarity_by_direction": ("error", "crash: cosine_similarity(): the "
                                                          "process running your code crashed "
                                                          "with a segmentation fault (SIGSEGV)"),
                     "vector_norm": PASSED}, 7.5, LIMITS),
    "fork_bomb.py": ({"init_shape_and_dtype": PASSED}, 15, LIMITS),
    "partial.py": ({"token_table_params": PASSED, "dot_product": PASSED,
                    "lookup_selects_row": ("failed", "function lookup is missing")}, 25, LIMITS),
    "syntax_error.py": ({"token_table_params": ("not_run", "SyntaxError at line 8")}, 0, LIMITS),
    "import_reference.py": ({"token_table_params": ("not_run", "forbidden: the submission "
                                                             "imports andrea_ref")}, 0, LIMITS),
    "flood_output.py": ({"lookup_selects_row": ("error", "output: lookup() printed more than "
                                                         "1048576 bytes"),
                         "vector_norm": PASSED}, 15, LIMITS),
}


def test_every_hostile_example_is_graded_here():
    graded = set(CASES) | {"read_outside.py"}   # read_outside: its own test (bubblewrap)
    assert {p.name for p in HOSTILE.glob("*.py")} == graded


def _fake_results_never_become_the_result(rep: dict, tmp_path: Path, before: bool) -> None:
    out = json.loads(formats.render(rep, "gradescope"))
    assert out["score"] == 10                                # the real check only, not 100
    assert all(t["name"] != "everything" for t in out["tests"])
    assert '"score": 100' in rep["submission_output"]      # shown as its output, nothing more
    assert not (tmp_path / "results.json").exists()
    if HAS_BWRAP and not before:
        assert not Path("/autograder/results/results.json").exists()


# file -> extra assertions on its report, after the common ones
EXTRA = {"fake_results.py": _fake_results_never_become_the_result}


def account(check: dict, rep: dict) -> str:
    """What the report says about a check in one English line, from its typed outcome: the
    fault kind and its detail, the import failure (said once, in rep["import"]), or the message."""
    from graders.grade.messages import import_detail

    if check["cause"] == "fault":
        return f'{check["details"]["fault"]}: {check["fields"]["detail"]}'
    if check["cause"] == "import_error":
        return f'{rep["import"].get("kind", "import")}: {import_detail(rep["import"])}'
    return check["message"]


# Without bubblewrap these run with --sandbox none (trusted-code mode), where writing host
# files cannot be contained: they only run where the grader would run them.
NEEDS_ISOLATION = {"fake_results.py"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_submission_is_graded_correctly(name, spec, tmp_path, monkeypatch):
    if name in NEEDS_ISOLATION and not HAS_BWRAP:
        pytest.skip("writes host files: graded only where bubblewrap isolates it")
    monkeypatch.chdir(tmp_path)
    expected, score, limits = CASES[name]
    before = Path("/autograder/results/results.json").exists()
    rep = grade_path(HOSTILE / name, spec, select=list(expected), limits=limits)
    got = {c["id"]: c for c in rep["checks"]}
    assert statuses(rep) == {k: status for k, (status, _) in expected.items()}, \
        [(c["id"], c["message"][:200]) for c in rep["checks"]]
    for check, (status, text) in expected.items():
        if status == "passed":
            assert got[check]["message"] == "", got[check]["message"]
        else:
            assert text and text in account(got[check], rep), account(got[check], rep)
    assert rep["score"] == pytest.approx(score)
    # nothing the submission left behind survives grading
    assert leftovers(f"submission/{name}") == []
    assert list(tmp_path.iterdir()) == []          # it could not write into our folder
    for fmt in formats.FORMATS:
        _valid(formats.render(rep, fmt, "en"), fmt, rep)
    if name in EXTRA:
        EXTRA[name](rep, tmp_path, before)


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


def test_the_fork_bomb_is_contained_and_cleaned_up(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = grade_path(HOSTILE / "fork_bomb.py", spec, select=["init_reproducible_from_rng"])
    assert statuses(rep)["init_reproducible_from_rng"] in ("passed", "error")
    assert leftovers("submission/fork_bomb.py") == []


@needs_bwrap
def test_files_outside_the_scratch_folder_are_invisible(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep = grade_path(HOSTILE / "read_outside.py", spec, select=["lookup_selects_row"])
    assert rep["isolation"]["mode"] == "bwrap"
    assert statuses(rep) == {"lookup_selects_row": "failed"}
    assert rep["checks"][0]["message"] == "function lookup is missing"
    assert "read the spec" not in rep["submission_output"]


def test_rlimits_mode_still_grades_and_records_the_downgrade(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    expected, score, _ = CASES["infinite_loop.py"]
    rep = grade_path(HOSTILE / "infinite_loop.py", spec, select=list(expected), sandbox="none")
    assert rep["isolation"]["mode"] == "rlimits"
    assert statuses(rep) == {k: status for k, (status, _) in expected.items()}
    assert rep["score"] == pytest.approx(score)
    rep = grade_path(HOSTILE / "import_reference.py", spec, select=["token_table_params"],
                     sandbox="none")
    assert "forbidden" in account(rep["checks"][0], rep)
