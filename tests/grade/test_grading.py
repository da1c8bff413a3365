"""graders/grade/grading.py and session.py: reading a submission (which file is it, which
kind), refusing what is not one, and a worker session that leaves nothing behind."""

from __future__ import annotations

import pytest

from graders.grade import messages as M
from graders.grade.grading import GraderError, contract_functions, load_submission
from graders.grade.sandbox import Limits
from graders.grade.session import Session
from spec import load_spec


def test_a_file_a_folder_and_a_zipped_folder(tmp_path):
    f = tmp_path / "hw.py"
    f.write_text("def dot(u, v):\n    return 0.0\n", encoding="utf-8")
    sub = load_submission(f)
    assert (sub.module, sub.kind, list(sub.files)) == ("hw.py", "python", ["hw.py"])
    zipped = tmp_path / "alice" / "hw3"
    zipped.mkdir(parents=True)
    (zipped / "embedding.py").write_text("X = 1\n", encoding="utf-8")
    (zipped / "test_mine.py").write_text("def test_x(): pass\n", encoding="utf-8")
    sub = load_submission(tmp_path / "alice")
    assert sub.module == "embedding.py"                 # its own test file is never it
    assert sub.sha256 == load_submission(tmp_path / "alice").sha256


def test_a_kernel_folder_and_a_folder_without_a_module(tmp_path):
    k = tmp_path / "k"
    k.mkdir()
    (k / "embed.cu").write_text("// kernels\n", encoding="utf-8")
    assert load_submission(k).kind == "kernel"
    empty = tmp_path / "e"
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing\n", encoding="utf-8")
    sub = load_submission(empty)
    assert sub.module is None and sub.problem == M.NO_MODULE


def test_what_is_not_a_submission_is_the_graders_refusal(tmp_path):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(GraderError, match="notes.txt: not a .py, .ipynb or .cu file"):
        load_submission(tmp_path / "notes.txt")
    with pytest.raises(GraderError, match="no such file or folder"):
        load_submission(tmp_path / "missing.py")


def test_a_session_prepared_and_closed_leaves_no_scratch_folder():
    spec = load_spec()
    s = Session({"m.py": b"X = 1\n"}, "m.py", functions=contract_functions(spec),
                limits=Limits(), mode="rlimits")
    proxy = s.prepare()
    root = s.scratch.root
    assert root.is_dir() and s.prepare() is proxy          # prepared once
    run: dict = {}
    s.close(into=run)
    assert not root.exists()
    assert run["restarts"] == 0 and run["submission_output"] == ""


def test_a_runtime_that_cannot_be_copied_is_the_graders_error(tmp_path, monkeypatch):
    """Where the worker's runtime package cannot be found, grading stops with the grader's
    one-line error (never a traceback, never the submission's fault)."""
    from graders.grade import grading
    from graders.grade.sandbox import SandboxError, scratch

    def missing(name):
        raise SandboxError(f"the package {name} is not installed with the grader")

    monkeypatch.setattr(scratch, "package_folder", missing)
    f = tmp_path / "hw.py"
    f.write_text("X = 1\n", encoding="utf-8")
    with pytest.raises(GraderError, match="not the submission's fault"):
        grading.grade(load_submission(f), load_spec(), profile="dev", sandbox="none")
