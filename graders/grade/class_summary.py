"""What a class's reports add up to, for every summary the batch writes (summary.txt,
summary.html, the CSV's ``problem`` column): why a submission has no grade (``problem_of``)
and that reason in the teacher's language (``problem_label``), the checks failed most often
(``failed_checks``) and the score histogram's bins (``histogram_bins``). Plain data; the
text report (batch_reports.py) and the HTML pages (report_pages.py) both read it.
"""

from __future__ import annotations

import re
from collections import Counter

from graders.conformance.outcome import Status

from . import messages as M
from .formats import _num, check_message
from .i18n import Translator
from .report import BatchRow, ImportFailed, NoModule, Report

_DIGITS = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")


def problem_of(report: Report | None, grader_message: str | None = None) -> str:
    """Why a submission got no grade or 0 (empty when it has a score above 0)."""
    if report is None:
        return f"not graded: {grader_message}" if grader_message else "not graded"
    imp = report.import_outcome
    if isinstance(imp, NoModule):
        return {M.NO_MODULE: "no module", M.MANY_MODULES: "several modules",
                M.NOT_A_NOTEBOOK: "not a notebook",
                M.KIT_NAME: "module named like the grader's"}.get(imp.problem, "import error: Error")
    if isinstance(imp, ImportFailed):
        kind = imp.kind or "import"
        if kind == "import":
            typ = (imp.error.type if imp.error is not None else "") or "Error"
            if report.kernel and typ == "CompileError":
                return "compile error"
            return "syntax error" if typ in ("SyntaxError", "IndentationError", "TabError") \
                else f"import error: {typ}"
        return {"forbidden": "forbidden import", "timeout": "timeout at import",
                "crash": "crash at import", "resources": "out of memory at import",
                "output": "output flood at import"}.get(kind, f"{kind} at import")
    if report.score == 0 and report.max_score > 0:
        return "no check passed"
    return ""


def problem_label(problem: str, t: Translator) -> str:
    """A `problem_of` code (the CSV keeps the code) in the teacher's language."""
    if problem in M.PROBLEMS:
        return t(M.PROBLEMS[problem])
    for code, msgid in M.PROBLEM_TEMPLATES.items():
        head = code.split("{", 1)[0]
        if problem.startswith(head):
            rest = problem[len(head):]
            if msgid == M.PROBLEM_IMPORT:
                return t(msgid, type=M.exception_name(rest, t))
            return t(msgid, reason=rest)
    return problem


def normalise_message(msg: str) -> str:
    first = (msg or "").strip().splitlines()[0] if (msg or "").strip() else ""
    return _DIGITS.sub("#", first)[:200]


def failed_checks(rows: list[BatchRow], t: Translator | None = None) -> list[dict]:
    """Checks by how many students failed them (failed or error; not run after an import
    failure is counted under the problems instead), with the most common message (in `t`'s
    language)."""
    per: dict[str, dict] = {}
    for r in rows:
        for c in (r.report.checks if r.report is not None else ()):
            if c.status not in (Status.FAILED, Status.ERROR):
                continue
            e = per.setdefault(c.id, {"check": c.id, "clauses": list(c.clauses),
                                      "students": 0, "messages": Counter(), "example": {}})
            e["students"] += 1
            key = normalise_message(c.message)
            e["messages"][key] += 1
            said = check_message(c, t) if t is not None else c.message
            e["example"].setdefault(key, said.strip().splitlines()[0][:300]
                                    if said.strip() else "")
    out = []
    for e in per.values():
        key, n = e["messages"].most_common(1)[0]
        out.append({"check": e["check"], "clauses": e["clauses"], "students": e["students"],
                    "message": e["example"][key], "message_students": n})
    out.sort(key=lambda e: (-e["students"], e["check"]))
    return out


def histogram_bins(scores: list[float], top: float, n: int = 10,
                   t: Translator | None = None) -> list[tuple[str, int]]:
    """(label, count) bins: n equal bins over [0, top), then one bin for full marks only."""
    bins = [0] * n
    perfect = 0
    for s in scores:
        if s >= top:
            perfect += 1
        else:
            bins[min(n - 1, int(s / top * n))] += 1
    width = top / n
    labels = [f"{_num(round(i * width, 2))}–<{_num(round((i + 1) * width, 2))}" for i in range(n)]
    t = t or Translator("en")
    return list(zip(labels, bins)) + [(t(M.HISTOGRAM_FULL, top=_num(top)), perfect)]
