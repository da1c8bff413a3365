"""The typed outcome of one check: a status, and for anything but a pass, its cause.

Every consumer (andrea-conform's report, the grade report and its formats, the audit matrix)
reads these fields; none of them parses a message back. Both enums are ``StrEnum`` so they
serialise to JSON as their values and compare equal to them (``Status.PASSED == "passed"``).

Statuses:

* ``passed``   the check found no violation;
* ``failed``   the implementation violates the clause (cause: ``wrong_value``,
  ``wrong_exception``, ``raised``, ``missing_function``);
* ``error``    the check could not finish: the implementation faulted (cause ``fault``, with a
  :class:`FaultKind`), could not be imported (``import_error``), or the check itself has a
  bug (``check_bug``: the grader's fault, never the implementation's);
* ``skipped``  an optional function is not provided (cause ``optional_absent``), or every
  function the check calls belongs to another rubric group and is missing
  (``missing_elsewhere``: that group's checks count it; this one costs nothing);
* ``not_run``  the check was never started (cause ``budget``: the submission's time budget was
  used up before it).
"""

from __future__ import annotations

try:
    from enum import StrEnum
except ImportError:          # Python 3.10
    from enum import Enum

    class StrEnum(str, Enum):
        """Python 3.11's ``enum.StrEnum``: members are their values as text."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return str.__format__(str(self.value), spec)


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"


class Cause(StrEnum):
    WRONG_VALUE = "wrong_value"            # a result (value, shape, dtype, type) is wrong
    WRONG_EXCEPTION = "wrong_exception"    # raised another exception, or none, where one is due
    RAISED = "raised"                      # raised where the spec wants a value
    MISSING_FUNCTION = "missing_function"  # a contract function the check needs is not defined
    OPTIONAL_ABSENT = "optional_absent"    # an optional function is not provided (skipped)
    MISSING_ELSEWHERE = "missing_elsewhere"  # only another group's missing functions (skipped)
    FAULT = "fault"                        # timeout, crash, memory, output flood, ... (FaultKind)
    IMPORT_ERROR = "import_error"          # the implementation could not be imported at all
    CHECK_BUG = "check_bug"                # the check itself broke: the grader's fault
    BUDGET = "budget"                      # not run: the submission's time budget is used up


class FaultKind(StrEnum):
    """Why an implementation could not answer (``ImplementationFault.kind``)."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    RESOURCES = "resources"   # memory or CPU time
    OUTPUT = "output"         # output flood
    FORBIDDEN = "forbidden"   # forbidden import
    FAULT = "fault"           # any other fault

    @classmethod
    def of(cls, kind: str | None) -> "FaultKind":
        try:
            return cls(kind)
        except ValueError:
            return cls.FAULT


def is_problem(status: Status | str, cause: Cause | str | None) -> bool:
    """Whether a result is something the implementation's author must act on."""
    return status in (Status.FAILED, Status.ERROR, Status.NOT_RUN) and cause != Cause.CHECK_BUG
