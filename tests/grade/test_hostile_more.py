"""More attacks on the grader, by the book of a hostile student who has read its source.

Each file in `tests/grade/hostile_more/` is one attack class (its docstring says what it tries
and what must happen); each is graded once, in bubblewrap (skipped where bubblewrap cannot run:
the grader then refuses it, which tests/grade/test_hostile_sandbox.py checks).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from graders.conformance.outcome import Cause, Status
from graders.conformance.runner import CheckResult
from graders.grade import grading

from .conftest import LIMITS, grade_path, needs_bwrap

MORE = Path(__file__).resolve().parent / "hostile_more"


def _by_id(rep) -> dict:
    return {c["id"]: c for c in rep["checks"]}


@needs_bwrap
def test_a_check_broken_on_purpose_earns_nothing(spec):
    """A value that breaks a check (check_bug earns points) must not collect those points."""
    broken = ["dot_product", "vector_norm", "dot_is_norms_times_cosine",
              "similarity_by_direction", "rope_relative_offsets", "parameter_shares"]
    rep = grade_path(MORE / "check_break.py", spec, select=broken + ["vector_errors", "token_table_params"],
                     limits=LIMITS, sandbox="bwrap")
    got = _by_id(rep)
    for cid in broken:
        assert got[cid]["status"] == "failed", (cid, got[cid]["message"])
        assert got[cid]["cause"] == "wrong_value"
        assert "made this check break" in got[cid]["message"]
    # answered properly: the errors, and the token count the first time it is asked for
    assert got["vector_errors"]["status"] == got["token_table_params"]["status"] == "passed"
    assert rep["check_bugs"] == 0


def test_a_check_broken_for_everyone_still_costs_nothing(spec, monkeypatch):
    """A check that breaks on the reference too is the grader's bug: it keeps earning."""
    bug = CheckResult("dot_product", ["VEC-DOT-01"], Status.ERROR, cause=Cause.CHECK_BUG)
    bug.set_message("internal error in check {check}: {exception}: {error}",
                    check="dot_product", exception="KeyError", error="'x'")
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: bug)
    assert grading._confirm_check_bug(bug, spec) is bug
    fine = CheckResult("dot_product", ["VEC-DOT-01"], Status.PASSED)
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: fine)
    out = grading._confirm_check_bug(bug, spec)
    assert (out.status, out.cause) == (Status.FAILED, Cause.WRONG_VALUE)
    assert "KeyError" in out.message
