"""The registry of conformance checks: which function checks which spec clauses.

A check is a plain function ``f(impl, spec)`` that calls the implementation and raises
:class:`ConformanceError` (an AssertionError) when a clause is violated. Most checks run
Hypothesis inside, so the error that comes out is the one of the smallest failing input.

    @check("EMB-LOOKUP-01", requires=("lookup",))
    def lookup_selects_row(impl, spec): ...

Every product uses this one registry: the pytest plugin parametrizes over it, the grader runs it
against an isolated submission, and the audit maps it onto the spec's clauses.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Callable

_CLAUSE_ID = re.compile(r"^[A-Z]+(-[A-Z]+)*-[0-9]{2}$")


class ConformanceError(AssertionError):
    """A clause is violated. `hint` is an English sentence for a common bug (a gettext msgid)."""

    def __init__(self, message: str, *, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Check:
    id: str                        # e.g. "lookup_selects_row"
    clauses: tuple[str, ...]       # spec clause ids the check verifies
    func: Callable = field(repr=False)
    requires: tuple[str, ...] = () # implementation functions the check calls
    doc: str = ""

    def __call__(self, impl, spec) -> None:
        self.func(impl, spec)


_REGISTRY: dict[str, Check] = {}

# Modules whose import registers the checks, in the order results are reported.
CHECK_MODULES = (
    "graders.conformance.checks.params",
    "graders.conformance.checks.lookup",
    "graders.conformance.checks.embed",
    "graders.conformance.checks.init",
    "graders.conformance.checks.backward",
    "graders.conformance.checks.vectors",
    "graders.conformance.checks.encodings",
)


def check(*clauses: str, requires: tuple[str, ...] = ()):
    """Register the decorated function as a check of `clauses`."""
    for c in clauses:
        if not _CLAUSE_ID.match(c):
            raise ValueError(f"check clause id {c!r} does not look like EMB-LOOKUP-01")

    def register(func: Callable) -> Callable:
        if func.__name__ in _REGISTRY:
            raise ValueError(f"check {func.__name__!r} is registered twice")
        doc = (func.__doc__ or "").strip().splitlines()
        _REGISTRY[func.__name__] = Check(id=func.__name__, clauses=tuple(clauses), func=func,
                                         requires=tuple(requires), doc=doc[0] if doc else "")
        return func

    return register


def all_checks() -> list[Check]:
    """Every registered check, in reporting order."""
    for name in CHECK_MODULES:
        importlib.import_module(name)
    return list(_REGISTRY.values())


def checks_for(clause_id: str) -> list[Check]:
    return [c for c in all_checks() if clause_id in c.clauses]


def select(checks: list[Check], patterns: list[str] | None) -> list[Check]:
    """Keep the checks whose id or one of whose clauses matches a pattern (fnmatch, any case).

    A pattern that matches nothing is an error, so a typo never passes as an empty run.
    """
    if not patterns:
        return checks
    from fnmatch import fnmatchcase

    chosen, unmatched = [], []
    for p in patterns:
        p_up, p_low = p.upper(), p.lower()
        hits = [c for c in checks if fnmatchcase(c.id, p_low)
                or any(fnmatchcase(cl, p_up) for cl in c.clauses)]
        if not hits:
            unmatched.append(p)
        chosen += [c for c in hits if c not in chosen]
    if unmatched:
        raise KeyError(f"--select {', '.join(unmatched)} matches no check id or clause id")
    return [c for c in checks if c in chosen]
