"""Shared helpers for the grader's tests.

Every test works in its own tmp_path and starts its own workers (uids and scratch folders are
per process), so the tests are safe to run in parallel (pytest -n auto).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from graders.grade.grading import grade, load_submission
from graders.grade.sandbox import probe_bwrap
from spec import load_spec
from tests.helpers import fast_limits

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "examples" / "hostile"
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
LIMITS = fast_limits()
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


def leftovers(needle: str, *, ours_only: bool = True) -> list[int]:
    """Live processes whose command line holds `needle`. With `ours_only`, only those this test
    process started (they carry its worker marker, or descend from it): other people's test
    runs on the same machine do not count."""
    import os

    from graders.grade.sandbox import MARKER

    me = os.getpid()
    mine = f"{MARKER}={me}-".encode()
    hits = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if needle.encode() not in f.read():
                    continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            if ours_only:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read()
                if not any(v.startswith(mine) for v in env.split(b"\0")) and \
                        not _descends_from(int(entry), me):
                    continue
        except OSError:
            continue
        hits.append(int(entry))
    return hits


def _descends_from(pid: int, ancestor: int) -> bool:
    for _ in range(64):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except OSError:
            return False
    return False
