"""The sandbox's two errors: isolation impossible here, and the grader's own failure."""

from __future__ import annotations


class IsolationUnavailable(RuntimeError):
    """Untrusted code cannot be isolated here; the message says why and how to fix it."""


class SandboxError(BaseException):
    """The grader itself could not start or stop a worker (never the submission's fault).

    A BaseException, like the implementation faults, so that no check and no Hypothesis
    machinery swallows it: grading stops and reports the grader's own error.
    """
