"""`andrea-audit impl`: the traceability matrix, spec clause by spec clause, per target.

For each clause: its statement and source section, the registered checks that cover it, and per
target "pass", "fail", "error", "check bug", "skipped", "not run" or "not covered", with the
counterexample of every failing check. The cells come from the runner's typed outcome (status
and cause), never from message text: a check that broke is a "check bug" (the suite's fault),
not an error of the target. Clauses with method ``spec`` are not about an implementation: they are covered
by ``andrea-audit spec``, whose verdict the matrix shows instead of "not covered".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from graders.conformance.outcome import Cause, Status
from spec import Spec

from .spec_audit import audit_spec

PASS, FAIL, ERROR, SKIPPED, UNCOVERED, NOT_RUN, NOT_SELECTED, CHECK_BUG = (
    "pass", "fail", "error", "skipped", "not covered", "not run", "not selected", "check bug")
_CHECK_STATUS = {Status.PASSED: PASS, Status.FAILED: FAIL, Status.ERROR: ERROR,
                 Status.SKIPPED: SKIPPED, Status.NOT_RUN: NOT_RUN}
_RANK = {PASS: 0, SKIPPED: 1, NOT_RUN: 2, CHECK_BUG: 3, ERROR: 4, FAIL: 5}


def _cell_status(r) -> str:
    if getattr(r, "cause", None) == Cause.CHECK_BUG:
        return CHECK_BUG
    return _CHECK_STATUS.get(r.status, ERROR)


@dataclass
class TargetRun:
    target: str
    error: str | None = None                       # the target could not be loaded or run
    results: dict[str, Any] = field(default_factory=dict)   # check id -> CheckResult


def _default_checks():
    from graders.conformance.registry import all_checks
    return all_checks()


def _default_runner(target: str, spec: Spec, profile: str,
                    select: list[str] | None = None) -> TargetRun:
    from graders.conformance.runner import load_impl, run_checks
    run = TargetRun(target)
    try:
        impl = load_impl(target)
    except Exception as exc:  # noqa: BLE001 - ImplementationLoadError and anything else
        run.error = str(exc) or type(exc).__name__
        return run
    try:
        for r in run_checks(impl, spec, profile=profile, target=target, select=select):
            run.results[r.check_id] = r
    except Exception as exc:  # noqa: BLE001 - a broken run is reported, not raised
        run.error = f"running the checks raised {type(exc).__name__}: {exc}"
    return run


def _plain_status(res):
    status = getattr(res, "status", None)
    return str(status) if status is not None else None


def _failure(r) -> dict:
    cause = getattr(r, "cause", None)
    return {"check_id": r.check_id, "status": str(r.status), "cause": cause and str(cause),
            "message": r.message, "example": r.example, "reproducer": r.reproducer,
            "hint": r.hint}


def select_checks(checks: Sequence[Any], patterns: Sequence[str] | None) -> list[Any]:
    """The checks whose id or one of whose clauses matches a pattern (as andrea-conform --select:
    the registry's own selection). A pattern that matches nothing is a ValueError naming it."""
    from graders.conformance.registry import select

    return select(list(checks), list(patterns) if patterns else None)


def build_matrix(spec: Spec, targets: Sequence[str], *, profile: str = "ci",
                 select: Sequence[str] | None = None,
                 checks: Sequence[Any] | None = None,
                 runner: Callable[..., TargetRun] | None = None) -> dict:
    """The matrix as plain data (what the JSON output holds; Markdown and HTML render it).

    `checks` (objects with ``.id`` and ``.clauses``) and `runner` default to the conformance
    registry and runner; tests pass small fakes.
    """
    checks = list(_default_checks() if checks is None else checks)
    runner = runner or _default_runner
    chosen = select_checks(checks, select)
    chosen_ids = [k.id for k in chosen]
    runs = [runner(t, spec, profile, chosen_ids if select else None) for t in targets]
    spec_report = audit_spec(spec.path)
    spec_verdict = PASS if spec_report.ok else FAIL

    clause_ids = {c.id for c in spec.clauses}
    rows = []
    for c in spec.clauses:
        covering = [k.id for k in checks if c.id in k.clauses]
        row = {"id": c.id, "statement": c.statement, "source": c.source,
               "source_title": spec.section_title(c.source, "en"), "method": c.method,
               "group": c.group, "checks": covering, "results": {}}
        if covering:
            row["covered_by"] = "checks"
        elif c.method == "spec":
            row["covered_by"] = "andrea-audit spec"
        else:
            row["covered_by"] = None
        for run in runs:
            row["results"][run.target] = _cell(c, [k for k in covering if k in chosen_ids],
                                               run, spec_verdict, spec_report, bool(covering))
        rows.append(row)

    summary = {}
    for run in runs:
        counts: dict[str, int] = {}
        for row in rows:
            s = row["results"][run.target]["status"]
            counts[s] = counts.get(s, 0) + 1
        summary[run.target] = counts
    return {
        "spec": spec.name, "spec_path": str(spec.path), "profile": profile,
        "select": list(select or []),
        "targets": [{"target": r.target, "error": r.error, "checks_run": len(r.results),
                     "checks": {cid: {"status": _plain_status(res),
                                      "cause": (str(res.cause) if getattr(res, "cause", None)
                                                else None),
                                      "duration_s": round(getattr(res, "duration_s", 0.0), 4)}
                                for cid, res in r.results.items()}}
                    for r in runs],
        "clauses": rows,
        "uncovered": [r["id"] for r in rows if r["covered_by"] is None],
        "covered_by_spec_audit": [r["id"] for r in rows if r["covered_by"] == "andrea-audit spec"],
        "unknown_clauses": sorted({(k.id, cl) for k in checks for cl in k.clauses
                                   if cl not in clause_ids}),
        "spec_audit": {"ok": spec_report.ok, "error": spec_report.error,
                       "failed": [f"{x.subject}: {x.detail}" for x in spec_report.checks
                                  if not x.ok]},
        "summary": summary,
    }


def _cell(clause, covering: list[str], run: TargetRun, spec_verdict: str, spec_report,
          has_checks: bool) -> dict:
    if has_checks and not covering:
        return {"status": NOT_SELECTED, "failures": []}
    if not covering:
        if clause.method == "spec":
            bad = [f"{x.subject}: {x.detail}" for x in spec_report.checks
                   if not x.ok and (x.clause == clause.id)]
            return {"status": spec_verdict if not bad else FAIL, "via": "andrea-audit spec",
                    "failures": [{"check_id": "andrea-audit spec", "status": "failed",
                                  "message": m, "example": None, "reproducer": None,
                                  "hint": None} for m in bad]}
        return {"status": UNCOVERED, "failures": []}
    if run.error:
        return {"status": ERROR, "failures": [{"check_id": "(target)", "status": "error",
                                               "message": run.error, "example": None,
                                               "reproducer": None, "hint": None}]}
    status, failures = PASS, []
    statuses = []
    for cid in covering:
        r = run.results.get(cid)
        s = NOT_RUN if r is None else _cell_status(r)
        statuses.append(s)
        if r is not None and s in (FAIL, ERROR, CHECK_BUG, NOT_RUN):
            failures.append(_failure(r))
    if statuses and all(s == SKIPPED for s in statuses):
        status = SKIPPED
    else:
        status = max((s for s in statuses if s != SKIPPED), key=_RANK.get, default=PASS)
    return {"status": status, "failures": failures}


def matrix_exit_code(matrix: dict, strict: bool = False) -> int:
    """1 when a clause fails or errors for any target (or, with `strict`, is not covered)."""
    for row in matrix["clauses"]:
        for cell in row["results"].values():
            if cell["status"] in (FAIL, ERROR, NOT_RUN, CHECK_BUG):
                return 1
            if strict and cell["status"] == UNCOVERED:
                return 1
    return 0
