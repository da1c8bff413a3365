"""Hostile (hidden verdicts): a function of a hidden or after-the-due-date group kills its
worker on every call (``os._exit``), so the grader restarts it for the next call, and the
restart prints the submission's import output again.

The test (tests/grade/test_hidden_results.py) wraps that function of a correct submission
with ``hidden_fault``. Expected: everything students see before publication (the Gradescope
summary, the visible tests, the feedback file but for groups shown later) is byte for byte
what they see for the correct submission: no restart, no import output of a restarted worker,
no crash in a visible check.
"""
import os


def hidden_fault(fn):
    def crash(*args, **kwargs):
        os._exit(3)

    return crash
