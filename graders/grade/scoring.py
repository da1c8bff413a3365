"""Scores from check results, by the rubric in the spec's ``groups``.

Rule (documented in docs/grading.md):

* every check belongs to the group of each of its clauses (usually one);
* a group's score is ``points * passed / checks``, where ``checks`` counts all of the group's
  checks that ran for this submission; failed, error and skipped all count as not passed;
* a check's own score (one Gradescope test) is its share ``points / checks`` of each of its
  groups when it passed, else 0; so the tests add up to the group scores and the total;
* a group's visibility is the spec's; a check in several groups takes the most restrictive;
* groups without any check are left out of the maximum (and named in the report).

The report is a plain dict (JSON-able, language-neutral): renderers translate it.
"""

from __future__ import annotations

from fractions import Fraction

from . import messages as M

_VIS_RANK = {"visible": 0, "after_due_date": 1, "after_published": 1, "hidden": 2}


def _r(x: Fraction | float) -> float:
    return round(float(x), 4)


def fault_kind(result) -> str | None:
    """'timeout', 'crash', ... for a check stopped by an implementation fault."""
    if result.status != "error":
        return None
    head = (result.message or "").split(":", 1)[0].strip()
    return head if head in ("timeout", "crash", "resources", "output", "forbidden", "fault",
                            "import") else "fault"


def grade_hint(result) -> str | None:
    """The hint msgid for a result: the check's own, else one for the kind of problem."""
    if result.hint:
        return result.hint
    kind = fault_kind(result)
    if kind is not None:
        return {"timeout": M.HINT_TIMEOUT, "crash": M.HINT_CRASH, "resources": M.HINT_RESOURCES,
                "output": M.HINT_OUTPUT, "forbidden": M.HINT_FORBIDDEN,
                "import": M.IMPORT_HINT}.get(kind, M.HINT_CRASH)
    if result.status == "failed" and "is missing" in (result.message or ""):
        return M.HINT_MISSING
    if result.status == "failed" and (result.message or "").startswith("raised "):
        return M.HINT_RAISED
    return None


def build(spec, results, *, meta: dict) -> dict:
    """The report of one graded submission."""
    groups = dict(spec.groups)
    order = list(groups)
    clause_group = {c.id: c.group for c in spec.clauses}
    clause_by_id = {c.id: c for c in spec.clauses}

    members: dict[str, list[int]] = {g: [] for g in order}
    check_groups: list[list[str]] = []
    for i, r in enumerate(results):
        gs = []
        for cl in r.clauses:
            g = clause_group.get(cl)
            if g is not None and g not in gs:
                gs.append(g)
        check_groups.append(gs)
        for g in gs:
            members[g].append(i)

    group_rows, empty = [], []
    share: dict[str, Fraction] = {}
    for g in order:
        info = groups[g]
        n = len(members[g])
        points = Fraction(str(info.get("points", 0)))
        if n == 0:
            if points:
                empty.append(g)
            continue
        passed = sum(1 for i in members[g] if results[i].status == "passed")
        share[g] = points / n
        group_rows.append({
            "id": g, "title": info.get("title", g), "points": _r(points),
            "score": _r(points * passed / n), "passed": passed, "checks": n,
            "visibility": info.get("visibility", "visible"),
        })

    checks = []
    group_index = {row["id"]: k for k, row in enumerate(group_rows, 1)}
    counters: dict[str, int] = {}
    for i, r in enumerate(results):
        gs = check_groups[i]
        first = gs[0] if gs else None
        counters[first] = counters.get(first, 0) + 1
        max_score = sum((share.get(g, Fraction(0)) for g in gs), Fraction(0))
        vis = max((groups[g].get("visibility", "visible") for g in gs),
                  key=lambda v: _VIS_RANK.get(v, 2), default="visible")
        sections = []
        for cl in r.clauses:
            c = clause_by_id.get(cl)
            if c is not None:
                sections.append({"clause": cl, "section": c.source, "statement": c.statement})
        checks.append({
            "id": r.check_id, "clauses": list(r.clauses), "groups": gs,
            "number": f"{group_index.get(first, 0)}.{counters[first]}",
            "status": r.status, "message": r.message or "", "example": r.example,
            "reproducer": r.reproducer, "hint": grade_hint(r), "sections": sections,
            "score": _r(max_score if r.status == "passed" else 0), "max_score": _r(max_score),
            "visibility": vis, "duration_s": round(r.duration_s, 3),
        })

    exact = sum((share[g] * sum(1 for i in members[g] if results[i].status == "passed")
                 for g in share), Fraction(0))
    max_score = sum((Fraction(str(row["points"])) for row in group_rows), Fraction(0))
    return {
        **meta,
        "score": _r(exact), "max_score": _r(max_score),
        "groups": group_rows, "groups_without_checks": empty, "checks": checks,
        "counts": {s: sum(1 for r in results if r.status == s)
                   for s in ("passed", "failed", "error", "skipped")},
    }
