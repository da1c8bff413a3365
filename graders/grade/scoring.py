"""Scores from check results, by the rubric in the spec's ``groups``.

Rule (documented in docs/grading.md):

* every check belongs to the group of each of its clauses (usually one);
* a group's points are split over its checks by largest remainder to the cent: each check's
  share is points / checks rounded down to 0.01, and the cents left over go one each to the
  group's first checks; so the shares add up exactly to the group's points;
* a check earns its shares when it passed, when it was skipped (an optional function that is
  not provided costs nothing), or when the check itself broke (cause ``check_bug``: the
  grader's fault costs the student nothing); failed, error and not run earn 0;
* a group's score is the sum of its earned shares, the total the sum of the groups' scores:
  all in whole cents, so the tests add up exactly to the groups and the groups to the total;
* a group's visibility is the spec's; a check in several groups takes the most restrictive;
* groups without any check are left out of the maximum (and named in the report).

Nothing here reads a message: statuses, causes and details are the typed outcome of the runner.
The scores are typed (report.Scores: its Group and Check rows), language-neutral: renderers
translate them.
"""

from __future__ import annotations

from fractions import Fraction

from graders.conformance import hints
from graders.conformance.outcome import Cause, FaultKind, Status, is_problem

from . import messages as M
from .report import Check, ClauseSection, Counts, Group, Scores

_VIS_RANK = {"visible": 0, "after_due_date": 1, "after_published": 1, "hidden": 2}

FAULT_HINTS = {
    FaultKind.TIMEOUT: M.HINT_TIMEOUT, FaultKind.CRASH: M.HINT_CRASH,
    FaultKind.RESOURCES: M.HINT_RESOURCES, FaultKind.OUTPUT: M.HINT_OUTPUT,
    FaultKind.FORBIDDEN: M.HINT_FORBIDDEN, FaultKind.FAULT: M.HINT_CRASH,
}


def earns_points(result) -> bool:
    """Passed, skipped (optional), or a bug of the check (the grader's fault)."""
    return (result.status in (Status.PASSED, Status.SKIPPED)
            or result.cause == Cause.CHECK_BUG)


def grade_hint(result) -> str | None:
    """The hint msgid for a result: the check's own, else one for its cause."""
    if result.cause == Cause.CHECK_BUG or result.status in (Status.PASSED, Status.SKIPPED):
        return None
    if result.hint:
        return result.hint
    if result.cause == Cause.FAULT:
        return FAULT_HINTS[FaultKind.of((result.details or {}).get("fault"))]
    if result.cause == Cause.IMPORT_ERROR:
        return M.IMPORT_HINT
    if result.cause == Cause.MISSING_FUNCTION:
        return M.HINT_MISSING
    if result.cause == Cause.RAISED:
        return hints.RAISED
    if result.cause == Cause.BUDGET:
        return M.HINT_BUDGET
    return None


def split_cents(points: Fraction, n: int) -> list[int]:
    """`points` split over `n` parts in whole cents, by largest remainder (first parts first)."""
    total = int(round(points * 100))
    base, extra = divmod(total, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def cents(c: int) -> float:
    return round(c / 100, 2)


def build(spec, results) -> Scores:
    """The scores of one graded submission's check results (the report's scoring part)."""
    check_groups, members = _group_members(spec, results)
    group_rows, empty, share = _score_groups(spec.groups, members, results)
    checks, total, maximum = _check_rows(spec, results, check_groups, group_rows, share)
    counts = Counts(**{str(s): sum(1 for r in results if r.status == s) for s in Status})
    return Scores(score=cents(total), max_score=cents(maximum), groups=tuple(group_rows),
                  groups_without_checks=tuple(empty), checks=tuple(checks), counts=counts,
                  check_bugs=sum(1 for r in results if r.cause == Cause.CHECK_BUG))


def _group_members(spec, results) -> tuple[list[list[str]], dict[str, list[int]]]:
    """Each result's rubric groups (those of its clauses, in order), and each group's results
    (by index), every group of the spec present."""
    clause_group = {c.id: c.group for c in spec.clauses}
    members: dict[str, list[int]] = {g: [] for g in spec.groups}
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
    return check_groups, members


def _score_groups(groups, members: dict[str, list[int]], results):
    """(group rows, groups with points but no checks, cents per (group, result index)): a
    group's points split over its checks to the cent, earned by those that pass."""
    group_rows, empty = [], []
    share: dict[tuple[str, int], int] = {}
    for g, info in groups.items():
        n = len(members[g])
        points = Fraction(str(info.get("points", 0)))
        if n == 0:
            if points:
                empty.append(g)
            continue
        for i, c in zip(members[g], split_cents(points, n)):
            share[g, i] = c
        earned = sum(share[g, i] for i in members[g] if earns_points(results[i]))
        group_rows.append(Group(
            id=g, title=info.get("title", g),
            points=cents(sum(share[g, i] for i in members[g])),
            score=cents(earned),
            passed=sum(1 for i in members[g] if results[i].status == Status.PASSED),
            skipped=sum(1 for i in members[g] if results[i].status == Status.SKIPPED),
            checks=n, visibility=info.get("visibility", "visible"),
        ))
    return group_rows, empty, share


def _check_rows(spec, results, check_groups, group_rows, share):
    """(one row per check: its number, score, visibility, course sections, ...; total cents
    earned; maximum cents)."""
    groups = spec.groups
    clause_by_id = {c.id: c for c in spec.clauses}
    group_index = {row.id: k for k, row in enumerate(group_rows, 1)}
    counters: dict[str | None, int] = {}
    checks, total, maximum = [], 0, 0
    for i, r in enumerate(results):
        gs = check_groups[i]
        first = gs[0] if gs else None
        counters[first] = counters.get(first, 0) + 1
        max_c = sum(share.get((g, i), 0) for g in gs)
        got_c = max_c if earns_points(r) else 0
        total, maximum = total + got_c, maximum + max_c
        vis = max((groups[g].get("visibility", "visible") for g in gs),
                  key=lambda v: _VIS_RANK.get(v, 2), default="visible")
        sections = tuple(ClauseSection(clause=cl, section=c.source, statement=c.statement,
                                       statements=_statements(c))
                         for cl in r.clauses if (c := clause_by_id.get(cl)) is not None)
        checks.append(Check(
            id=r.check_id, clauses=tuple(r.clauses), groups=tuple(gs),
            number=f"{group_index.get(first, 0)}.{counters[first]}",
            status=Status(r.status), cause=Cause(r.cause) if r.cause else None,
            problem=is_problem(r.status, r.cause),
            message=r.message or "", template=r.template, fields=_plain(r.fields),
            details=_plain(r.details or {}), example=r.example,
            reproducer=r.reproducer, hint=grade_hint(r), sections=sections,
            score=cents(got_c), max_score=cents(max_c),
            shares={g: cents(share.get((g, i), 0)) for g in gs},
            visibility=vis, duration_s=round(r.duration_s, 3),
        ))
    return checks, total, maximum


def _statements(clause) -> dict:
    """The clause's statement per language (the spec's `statement` and its translations)."""
    out = {"en": clause.statement}
    out.update(getattr(clause, "translations", None) or {})
    return out


def _plain(value):
    import numpy as np

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
