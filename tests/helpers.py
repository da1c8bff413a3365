"""Helpers for the project's own tests (not part of the product)."""

from __future__ import annotations

from graders.conformance.runner import ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, CheckResult


def clause_status(results: list[CheckResult]) -> dict[str, str]:
    """Per clause: failed if any of its checks failed or errored, else passed or skipped."""
    out: dict[str, str] = {}
    rank = {PASSED: 0, SKIPPED: 1, NOT_RUN: 2, ERROR: 3, FAILED: 4}
    for r in results:
        for c in r.clauses:
            if c not in out or rank[r.status] > rank[out[c]]:
                out[c] = r.status
    return out
