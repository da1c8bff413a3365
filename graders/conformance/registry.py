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
from fnmatch import fnmatchcase
from dataclasses import dataclass, field
from typing import Callable

_CLAUSE_ID = re.compile(r"^[A-Z]+(-[A-Z]+)*-[0-9]{2}$")


class ConformanceError(AssertionError):
    """A clause is violated.

    `template` is the English message with ``str.format`` placeholders (a gettext msgid) and
    `fields` its values, so a grader can translate it; ``str(exc)`` is the English text.
    `cause` is ``"wrong_value"`` or ``"wrong_exception"`` (see ``outcome.Cause``), `call` the
    call that showed the violation, `hint` an English sentence for a common bug (a msgid).
    """

    def __init__(self, message: str, *, hint: str | None = None, cause: str = "wrong_value",
                 template: str | None = None, fields: dict | None = None,
                 call: str | None = None):
        super().__init__(message)
        self.hint = hint
        self.cause = cause
        self.template = template or message.replace("{", "{{").replace("}", "}}")
        self.fields = dict(fields or {})
        self.call = call


@dataclass(frozen=True)
class Check:
    id: str                        # e.g. "lookup_selects_row"
    clauses: tuple[str, ...]       # spec clause ids the check verifies
    func: Callable = field(repr=False)
    requires: tuple[str, ...] = () # implementation functions the check calls
    doc: str = ""
    judges_mutation: bool = False  # also charged with arguments changed in other checks' calls
    # of `requires`: other groups' functions, judged here only when the submission defines them
    # (their absence costs points in their own group, not in this check's)
    if_present: tuple[str, ...] = ()

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


class RegistryError(ValueError):
    """The registered checks and the loaded spec disagree (a clause or function it lacks)."""


class SelectionError(ValueError):
    """A --select pattern matches no check: a usage error, reported with exit status 2."""


def check(*clauses: str, requires: tuple[str, ...] = (), if_present: tuple[str, ...] = (),
          judges_mutation: bool = False):
    """Register the decorated function as a check of `clauses`.

    `requires` names the contract functions the check calls (the spec's ``contract:``); a
    submission without one of them fails the check ("function X is missing"), or skips it
    when the function is optional. `if_present` names those of `requires` that belong to
    another rubric group (``lookup`` in an embed check): a missing function costs only its own
    group's points, so the check judges them only when they are defined (the check's body asks
    :func:`defined`), and is skipped, costing nothing, when none of its functions is defined. The check with `judges_mutation` (the purity clause) runs
    after the others of its visibility (``runner.in_run_order``: visible checks before any
    later one) and is the only one charged when a call of one of those checks changed the
    arguments of one of its own functions in place (each group's functions have their own): every other check goes on with the value the call returned, so a
    mutation costs points once, under the clause it breaks.
    """
    for c in clauses:
        if not _CLAUSE_ID.match(c):
            raise ValueError(f"check clause id {c!r} does not look like EMB-LOOKUP-01")
    if not clauses:
        raise ValueError("a check must name at least one clause")
    if not set(if_present) <= set(requires):
        raise ValueError("if_present names functions that are not in requires")

    def register(func: Callable) -> Callable:
        if func.__name__ in _REGISTRY:
            raise ValueError(f"check {func.__name__!r} is registered twice")
        doc = (func.__doc__ or "").strip().splitlines()
        _REGISTRY[func.__name__] = Check(id=func.__name__, clauses=tuple(clauses), func=func,
                                         requires=tuple(requires), doc=doc[0] if doc else "",
                                         judges_mutation=judges_mutation,
                                         if_present=tuple(if_present))
        return func

    return register


def defined(impl, functions) -> tuple[str, ...]:
    """The functions of `functions` that `impl` defines (a check of ``if_present`` functions
    calls only these)."""
    return tuple(f for f in functions if callable(getattr(impl, f, None)))


def all_checks(spec=None) -> list[Check]:
    """Every registered check, in reporting order.

    With a `spec`, a check of a clause id or a contract function that the spec does not
    define is a :class:`RegistryError` (so a spec and the checks cannot drift apart silently).
    """
    for name in CHECK_MODULES:
        importlib.import_module(name)
    # the order of CHECK_MODULES, whichever module a process happened to import first (a
    # check registered elsewhere, e.g. by a test, comes after them, in registration order)
    rank = {name: i for i, name in enumerate(CHECK_MODULES)}
    checks = sorted(_REGISTRY.values(),
                    key=lambda c: rank.get(c.func.__module__, len(rank)))
    if spec is not None:
        problems = registry_problems(checks, spec)
        if problems:
            raise RegistryError(f"the checks do not fit spec {spec.name} ({spec.path}): "
                                + "; ".join(problems))
    return checks


def registry_problems(checks: list[Check], spec) -> list[str]:
    """Each check's clause ids and required functions that `spec` does not define."""
    clause_ids = {c.id for c in spec.clauses}
    problems = []
    for chk in checks:
        for cid in chk.clauses:
            if cid not in clause_ids:
                problems.append(f"check {chk.id} is registered for clause {cid}, which the spec "
                                "does not have")
        for fn in chk.requires:
            if fn not in spec.contract:
                problems.append(f"check {chk.id} calls {fn}(), which is not a function of the "
                                "spec's contract")
    return problems


def matches(chk: Check, pattern: str) -> bool:
    """Whether a check's id (lower case) or one of its clause ids (upper case) matches `pattern`
    (an fnmatch pattern, any case)."""
    return (fnmatchcase(chk.id, pattern.lower())
            or any(fnmatchcase(cl, pattern.upper()) for cl in chk.clauses))


def select(checks: list[Check], patterns: list[str] | None) -> list[Check]:
    """Keep the checks whose id or one of whose clauses matches a pattern (fnmatch, any case).

    A pattern that matches nothing is a :class:`SelectionError`, so a typo never passes as an
    empty run.
    """
    if not patterns:
        return list(checks)
    unmatched = [p for p in patterns if not any(matches(c, p) for c in checks)]
    if unmatched:
        raise SelectionError(f"--select {', '.join(unmatched)} matches no check id or clause id "
                             "(andrea-conform --list shows them)")
    return [c for c in checks if any(matches(c, p) for p in patterns)]
