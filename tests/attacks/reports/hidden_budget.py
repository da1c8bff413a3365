"""Hostile (hidden verdicts): a function of a hidden or after-the-due-date group answers
correctly, but each call takes just under the per-call limit, so the hidden checks use up the
submission's whole time budget (checks after them are "not run: budget exhausted").

The test sets ``SECONDS`` (a little under its per-call limit) before grading. Expected
(tests/grade/test_hidden_results.py): no visible check is left out for the budget; what
students see before publication is the correct submission's, byte for byte.
"""
import time

SECONDS = 1.0


def hidden_fault(fn):
    def slow(*args, **kwargs):
        time.sleep(SECONDS)
        return fn(*args, **kwargs)

    return slow
