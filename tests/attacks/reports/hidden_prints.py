"""Hostile (hidden verdicts): a function of a hidden or after-the-due-date group prints the
inputs it is given (the hidden checks' inputs) and then answers correctly.

Expected (tests/grade/test_hidden_results.py): its lines are in the staff's output only;
what students see before publication is the correct submission's, byte for byte.
"""
import numpy as np


def hidden_fault(fn):
    def prints(*args, **kwargs):
        print("HIDDEN-INPUT", [np.shape(a) for a in args], flush=True)
        return fn(*args, **kwargs)

    return prints
