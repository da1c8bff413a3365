"""Human-readable rendering of conformance results (terminal and pytest failure text), in
English, Dutch or Korean (``lang``: the same catalogs as the grader's feedback)."""

from __future__ import annotations

import textwrap

from spec import Spec

from .i18n import (EXCEPTION_NAMES, Translator, exception_name, python_message,
                   reproducer_text)
from .outcome import Cause
from .runner import ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, CheckResult
from .messages import (MSG_EXPLAIN_CHECK_BUG, MSG_EXPLAIN_CLAUSE, MSG_EXPLAIN_HINT,
                       MSG_EXPLAIN_NOT_IN_SPEC, MSG_EXPLAIN_REPRODUCE, MSG_EXPLAIN_SMALLEST,
                       MSG_EXPLAIN_WRONG, MSG_LABEL_ERROR, MSG_LABEL_FAIL, MSG_LABEL_NORUN,
                       MSG_LABEL_PASS, MSG_LABEL_SKIP, MSG_SUMMARY_BROKEN, MSG_SUMMARY_ERRORS,
                       MSG_SUMMARY_FAILED, MSG_SUMMARY_NOT_RUN, MSG_SUMMARY_PASSED,
                       MSG_SUMMARY_SKIPPED)

LABEL = {PASSED: MSG_LABEL_PASS, FAILED: MSG_LABEL_FAIL, ERROR: MSG_LABEL_ERROR,
         SKIPPED: MSG_LABEL_SKIP, NOT_RUN: MSG_LABEL_NORUN}


def _indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text.rstrip(), prefix)


def label(status, lang: str = "en") -> str:
    """The status's short label (PASS, FAIL, ...) in `lang`."""
    return Translator(lang)(LABEL[status])


def message(result: CheckResult, t: Translator) -> str:
    """What went wrong, in the translator's language: the check's template with its values
    (Python's exceptions in words), or its English message where a value is not plain data."""
    if t.lang == "en" or not result.template:
        return result.message
    fields = dict(result.fields or {})
    if any(isinstance(v, dict) for v in fields.values()):
        return result.message
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    for key in ("exception", "got"):   # Python's exceptions in words, its messages too
        name = fields.get(key)
        if isinstance(name, str) and name in EXCEPTION_NAMES:
            if isinstance(fields.get("error"), str):
                fields["error"] = python_message(name, fields["error"], t)
            fields[key] = exception_name(name, t)
    try:
        return t(result.template, **fields)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return result.message


def explain(result: CheckResult, spec: Spec, lang: str = "en") -> str:
    """Everything a person needs to understand and reproduce one failed check."""
    t = Translator(lang)
    lines = []
    for cid in result.clauses:
        try:
            clause = spec.clause(cid)
        except KeyError:
            lines.append(t(MSG_EXPLAIN_NOT_IN_SPEC, clause=cid, spec=spec.name))
            continue
        lines.append(t(MSG_EXPLAIN_CLAUSE, clause=cid, statement=clause.statement_in(lang),
                       title=spec.section_title(clause.source, lang)))
    if result.cause == Cause.CHECK_BUG:
        lines.append(t(MSG_EXPLAIN_CHECK_BUG, message=result.message))
        return "\n".join(lines)
    lines.append(t(MSG_EXPLAIN_WRONG, message=message(result, t)))
    if result.hint:
        lines.append(t(MSG_EXPLAIN_HINT, hint=t(result.hint)))
    if result.example:
        lines.append(t(MSG_EXPLAIN_SMALLEST))
        lines.append(_indent(result.example))
    if result.reproducer:
        lines.append(t(MSG_EXPLAIN_REPRODUCE))
        lines.append(_indent(reproducer_text(result.reproducer, t)))
    return "\n".join(lines)


def summary_line(results: list[CheckResult], lang: str = "en") -> str:
    t = Translator(lang)
    counts = {s: sum(r.status == s for r in results)
              for s in (PASSED, FAILED, ERROR, SKIPPED, NOT_RUN)}
    bugs = sum(r.cause == Cause.CHECK_BUG for r in results)
    parts = [t(MSG_SUMMARY_PASSED, n=counts[PASSED]), t(MSG_SUMMARY_FAILED, n=counts[FAILED])]
    if counts[ERROR] - bugs:
        parts.append(t(MSG_SUMMARY_ERRORS, n=counts[ERROR] - bugs))
    if bugs:
        parts.append(t(MSG_SUMMARY_BROKEN, n=bugs))
    if counts[SKIPPED]:
        parts.append(t(MSG_SUMMARY_SKIPPED, n=counts[SKIPPED]))
    if counts[NOT_RUN]:
        parts.append(t(MSG_SUMMARY_NOT_RUN, n=counts[NOT_RUN]))
    return ", ".join(parts)
