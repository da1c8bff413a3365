"""The grader's time limits on a submission's calls, in one place: andrea-grade's defaults
(``graders.grade.sandbox.Limits``) and the students' self-check (``andrea-conform`` charges a
call that runs longer than the grader allows as the grader does: a timeout of that check).

All are wall-clock seconds, as the grader measures them around each call; the budget counts
from the start of the checks (the grader's also holds the submission's import).
"""

CALL_SECONDS = 10.0              # one call into the submission
CHECK_SECONDS = 60.0             # every call of one check together
TOTAL_SECONDS = 120.0            # the whole submission (the grader's budget)
MAX_TIMEOUTS_PER_FUNCTION = 3    # after this many timeouts a function is not called again

# The grader's sentences (graders/grade/messages.py has the same msgids; the catalogs in
# graders/conformance/locale translate them for both).
MSG_CALL_TIMEOUT = "{what} did not finish within {seconds} s (an endless loop, or far too slow)"
MSG_CHECK_TIME = "{what} not called: this check used up its time of {seconds} s"
MSG_TIMED_OUT_BEFORE = "{what} not called again: it timed out {n} time(s) before"
MSG_BUDGET = ("budget exhausted: {what} was not called because the submission used up its "
              "total time of {seconds} s")
MSG_NOT_RUN_BUDGET = ("not run: budget exhausted (your submission used up its {seconds} s before "
                      "this check)")


class CallLimits:
    """The limits andrea-conform charges in its own process (the grader's defaults)."""

    def __init__(self, call: float = CALL_SECONDS, check: float = CHECK_SECONDS,
                 max_timeouts: int = MAX_TIMEOUTS_PER_FUNCTION, total: float = TOTAL_SECONDS):
        import time

        self.call, self.check, self.max_timeouts = float(call), float(check), int(max_timeouts)
        self.total = float(total)
        self.start = time.perf_counter()       # the budget counts from here (the kit's start)
        self.timeouts: dict[str, int] = {}     # per function, over the whole run
        self.budget_refused = False            # a call of the current check was refused
