"""Shared helpers for the grader's tests.

Every test works in its own tmp_path and starts its own workers (uids and scratch folders are
per process), so the tests are safe to run in parallel (pytest -n auto).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from graders.grade.grading import grade, load_submission
from graders.grade.sandbox import Limits, probe_bwrap
from spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "examples" / "hostile"
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
LIMITS = Limits.for_tests()
HAS_BWRAP = probe_bwrap()[0]
needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not usable here: the "
                                 "grader refuses untrusted code, so isolation cannot be tested")
# Our own examples are trusted code: where bubblewrap cannot run, the tests that grade them
# opt out of isolation explicitly (what `andrea-grade --sandbox none` does); hostile code is
# only graded where it can be isolated, or where the test is about the fail-closed path.
SANDBOX = "auto" if HAS_BWRAP else "none"


def pytest_configure(config):
    config.addinivalue_line("markers", "grade: tests of andrea-grade (parallel-safe)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/grade/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.grade)


@pytest.fixture(scope="session")
def spec():
    return load_spec()


def grade_path(path, spec, select=None, profile="dev", limits=LIMITS, sandbox=SANDBOX):
    return grade(load_submission(path), spec, profile=profile, limits=limits,
                 sandbox=sandbox, select=select)


def statuses(report) -> dict:
    return {c["id"]: c["status"] for c in report["checks"]}
