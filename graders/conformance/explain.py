"""Human-readable rendering of conformance results (terminal and pytest failure text)."""

from __future__ import annotations

import textwrap

from spec import Spec

from .runner import ERROR, FAILED, PASSED, SKIPPED, CheckResult

LABEL = {PASSED: "PASS", FAILED: "FAIL", ERROR: "ERROR", SKIPPED: "SKIP"}


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
        lines.append(f"{cid}: {clause.statement}  [course section: \"{title}\"]")
    lines.append(f"what went wrong: {result.message}")
    if result.hint:
        lines.append(f"hint: {result.hint}")
    if result.example:
        lines.append("smallest failing input (after shrinking):")
        lines.append(_indent(result.example))
    if result.reproducer:
        lines.append("reproduce:")
        lines.append(_indent(result.reproducer))
    return "\n".join(lines)


def summary_line(results: list[CheckResult]) -> str:
    counts = {s: sum(r.status == s for r in results) for s in (PASSED, FAILED, ERROR, SKIPPED)}
    parts = [f"{counts[PASSED]} passed", f"{counts[FAILED]} failed"]
    if counts[ERROR]:
        parts.append(f"{counts[ERROR]} errors")
    if counts[SKIPPED]:
        parts.append(f"{counts[SKIPPED]} skipped")
    return ", ".join(parts)
