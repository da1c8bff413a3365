"""Human-readable rendering of conformance results (terminal and pytest failure text)."""

from __future__ import annotations

import textwrap

from spec import Spec

from .outcome import Cause
from .runner import ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, CheckResult

LABEL = {PASSED: "PASS", FAILED: "FAIL", ERROR: "ERROR", SKIPPED: "SKIP", NOT_RUN: "NORUN"}


def _indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text.rstrip(), prefix)


def explain(result: CheckResult, spec: Spec, lang: str = "en") -> str:
    """Everything a person needs to understand and reproduce one failed check."""
    lines = []
    for cid in result.clauses:
        try:
            clause = spec.clause(cid)
        except KeyError:
            lines.append(f"{cid}: (not in spec {spec.name})")
            continue
        title = spec.section_title(clause.source, lang)
        lines.append(f"{cid}: {clause.statement_in(lang)}  [course section: \"{title}\"]")
    if result.cause == Cause.CHECK_BUG:
        lines.append(f"the check itself broke (a bug in the conformance suite, not in the "
                     f"implementation): {result.message}")
        return "\n".join(lines)
    lines.append(f"what went wrong: {result.message}")
    if result.hint:
        lines.append(f"hint: {result.hint}")
    if result.example:
        lines.append("smallest failing input:")
        lines.append(_indent(result.example))
    if result.reproducer:
        lines.append("reproduce:")
        lines.append(_indent(result.reproducer))
    return "\n".join(lines)


def summary_line(results: list[CheckResult]) -> str:
    counts = {s: sum(r.status == s for r in results)
              for s in (PASSED, FAILED, ERROR, SKIPPED, NOT_RUN)}
    bugs = sum(r.cause == Cause.CHECK_BUG for r in results)
    parts = [f"{counts[PASSED]} passed", f"{counts[FAILED]} failed"]
    if counts[ERROR] - bugs:
        parts.append(f"{counts[ERROR] - bugs} errors")
    if bugs:
        parts.append(f"{bugs} broken checks (the suite's fault)")
    if counts[SKIPPED]:
        parts.append(f"{counts[SKIPPED]} skipped")
    if counts[NOT_RUN]:
        parts.append(f"{counts[NOT_RUN]} not run")
    return ", ".join(parts)
