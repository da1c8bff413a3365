"""Helpers for the project's own tests (not part of the product)."""

from __future__ import annotations

import os

from graders.conformance.runner import ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, CheckResult
from andrea_runtime.protocol import pack
from graders.grade.sandbox import Limits, probe_bwrap

import pytest

HAS_BWRAP = probe_bwrap()[0]
# The project's own example submissions are trusted code: where bubblewrap cannot run (the
# grader then refuses untrusted code), tests that grade them opt out explicitly, as
# `andrea-grade --sandbox none` does. Tests of the refusal itself run everywhere.
TEST_SANDBOX = "auto" if HAS_BWRAP else "none"
needs_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not usable here: "
                                 "andrea-grade refuses to grade without it")


def clause_status(results: list[CheckResult]) -> dict[str, str]:
    """Per clause: failed if any of its checks failed or errored, else passed or skipped."""
    out: dict[str, str] = {}
    rank = {PASSED: 0, SKIPPED: 1, NOT_RUN: 2, ERROR: 3, FAILED: 4}
    for r in results:
        for c in r.clauses:
            if c not in out or rank[r.status] > rank[out[c]]:
                out[c] = r.status
    return out


WALL_LIMITS = ("call_timeout", "check_timeout", "total_timeout", "startup_timeout")


def load_margin() -> float:
    """How many times longer than on an idle machine a wall-clock wait may take here now: the
    1-minute load average per core, at least 1 and at most 8. Seven developers' test runs on
    2 cores (load 5 to 14) made a worker's start (Python, NumPy, the submission) take longer
    than the 3 to 10 s the tests allowed, so correct submissions timed out."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except (AttributeError, OSError):
        return 1.0
    return min(max(per_core, 1.0), 8.0)


def fast_limits(*, exact: tuple[str, ...] = (), **over) -> Limits:
    """Limits short enough for tests (a hang costs seconds, not minutes).

    The grader measures its limits in wall-clock seconds; on a busy machine a correct call or
    start takes longer, so every wall limit (WALL_LIMITS) is multiplied by load_margin(): a test
    that expects a timeout waits longer under load, one that expects none does not fail for
    the load. `exact` names the limits a test needs as they are (a budget the test's text
    states); nothing else the tests assert depends on the machine's speed."""
    base = dict(call_timeout=2.5, check_timeout=30.0, total_timeout=120.0,
                startup_timeout=10.0, memory_mb=1024, cpu_seconds=60,
                max_timeouts_per_function=1)
    base.update(over)
    margin = load_margin()
    for name in WALL_LIMITS:
        if name not in exact:
            base[name] = base[name] * margin
    return Limits(**base)


def pack_bytes(header: dict, blobs: list) -> bytes:
    """One protocol frame as bytes (the grader writes the buffers of ``pack`` without joining)."""
    return b"".join(bytes(p) for p in pack(header, blobs))
