"""Attacks from an audit of the verdicts, one file per attack class in
`tests/attacks/` (its docstring says what it tries and what must happen). Each is
graded once, in bubblewrap, on the few checks it aims at (skipped where bubblewrap cannot run:
the grader then refuses it, which tests/grade/test_sandbox.py checks for every file of
the hostile folders)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from graders.grade import formats

from .conftest import grade_path, leftovers, needs_bwrap
from tests.helpers import fast_limits
from tests.attacks import CORPUS

HERE = CORPUS   # tests/attacks/<threat>/
LIMITS = fast_limits(call_timeout=1.5, startup_timeout=8.0)
INTERNALS = ("worker.py", "Traceback", "/sandbox/runtime", "chan.send")


def _grade(name, spec, select):
    rep = grade_path(HERE / f"{name}.py", spec, select=select, limits=LIMITS, sandbox="bwrap")
    return rep, {c["id"]: c for c in rep["checks"]}


def _student_text(rep) -> str:
    return "\n".join(formats.render(rep, fmt, "en") for fmt in ("text", "gradescope"))


def test_every_audit_attack_is_graded_here():
    names = {n[len("test_"):] for n in globals()
             if n.startswith("test_") and n != "test_" + "every_audit_attack_is_graded_here"}
    assert names and all((HERE / f"{n}.py").is_file() for n in names)


@needs_bwrap
def test_catch_base_exception(spec):
    rep, got = _grade("catch_base_exception", spec, ["vector_norm", "dot_product"])
    assert (got["vector_norm"]["status"], got["vector_norm"]["cause"]) == ("error", "fault")
    assert "did not finish" in got["vector_norm"]["message"]
    assert got["dot_product"]["status"] == "passed"
    assert rep["execution_time"] < 60
    assert not leftovers("ANDREA_GRADE_WORKER")


@needs_bwrap
def test_threads_left_running(spec):
    rep, got = _grade("threads_left_running", spec, ["lookup_selects_row"])
    assert got["lookup_selects_row"]["status"] == "passed", got["lookup_selects_row"]["message"]
    assert not leftovers("ANDREA_GRADE_WORKER")


@needs_bwrap
def test_exhaust_fds(spec):
    """Closing the worker's pipes ends it quietly: the student is told their module could not
    be imported, and reads nothing of the grader's own code."""
    rep, got = _grade("exhaust_fds", spec, ["vector_norm"])
    assert rep["score"] == 0 and got["vector_norm"]["status"] == "not_run"
    text = _student_text(rep)
    assert not any(word in text for word in INTERNALS), text


@needs_bwrap
def test_fake_exceptions(spec):
    rep, got = _grade("fake_exceptions", spec, ["out_of_range_ids", "vector_errors", "dot_product"])
    for cid, want in (("out_of_range_ids", "IndexError"), ("vector_errors", "ValueError")):
        assert (got[cid]["status"], got[cid]["cause"]) == ("failed", "wrong_exception")
        assert f"its own class named {want}" in got[cid]["message"]
        assert f"not the built-in {want}" in got[cid]["message"]
    assert got["dot_product"]["status"] == "passed"
    nl = formats.render(rep, "text", "nl")
    assert "eigen klasse met de naam IndexError" in nl


@needs_bwrap
def test_lying_values(spec):
    rep, got = _grade("lying_values", spec,
                      ["token_table_params", "lookup_selects_row", "dot_product", "vector_norm"])
    for cid, c in got.items():
        assert (c["status"], c["cause"]) == ("failed", "wrong_value"), (cid, c["message"])
    assert "=7," in got["token_table_params"]["message"]
    assert "norm(v)=-3.0" in got["vector_norm"]["message"]


@needs_bwrap
def test_gc_snoop(spec):
    rep, got = _grade("gc_snoop", spec, ["lookup_selects_row"])
    assert got["lookup_selects_row"]["status"] == "failed"
    assert "kit modules: []; candidates: 0" in rep["submission_output"]


@needs_bwrap
def test_stdout_frames(spec):
    rep, got = _grade("stdout_frames", spec, ["dot_product", "vector_norm"])
    assert got["dot_product"]["status"] == "passed"
    assert got["vector_norm"]["status"] == "failed" and "norm(v)=0.0" in got["vector_norm"]["message"]
    assert rep["score"] < rep["max_score"]
    out = json.loads(formats.render(rep, "gradescope", "en"))
    assert "\x00" not in out["output"] and "score\": 100" in out["output"]   # shown, inert
