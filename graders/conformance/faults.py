"""Faults of the implementation under test that are not wrong answers.

A grading proxy raises these when a call into an isolated submission times out, crashes its
worker, exhausts memory or floods its output. They derive from BaseException on purpose:
Hypothesis and the check bodies catch ``Exception`` to look for wrong answers, and a fault must
instead stop the check at once, without shrinking (each shrink step would wait for another
timeout), and be reported as an error of that check.
"""

from __future__ import annotations


class ImplementationFault(BaseException):
    """The implementation could not answer a call (not a wrong answer)."""

    kind = "fault"

    def __init__(self, message: str, *, function: str | None = None):
        super().__init__(message)
        self.message = message
        self.function = function

    def __str__(self) -> str:
        return self.message


class CallTimeout(ImplementationFault):
    kind = "timeout"


class WorkerCrashed(ImplementationFault):
    kind = "crash"


class ResourceExhausted(ImplementationFault):
    kind = "resources"


class OutputFlood(ImplementationFault):
    kind = "output"


class ForbiddenImport(ImplementationFault):
    kind = "forbidden"
