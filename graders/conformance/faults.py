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

    def __init__(self, message: str, *, function: str | None = None,
                 msgid: str | None = None, fields: dict | None = None):
        super().__init__(message)
        self.message = message
        self.function = function
        # The same text as a translatable sentence: a msgid of the feedback catalogs and its
        # values (numbers, names), so a report can show it in the student's language.
        self.msgid = msgid
        self.fields = dict(fields or {})

    @classmethod
    def said(cls, msgid: str, *, function: str | None = None, **fields):
        """The fault whose English text is `msgid` filled with `fields` (kept for translation)."""
        return cls(msgid.format(**fields), function=function, msgid=msgid, fields=fields)

    def translatable(self) -> dict | None:
        """``{"msgid": ..., "fields": {...}}`` for a report, or None (plain text only)."""
        return {"msgid": self.msgid, "fields": dict(self.fields)} if self.msgid else None

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
