"""Hostile: dot() calls sys.exit(3) in the middle of a call.

SystemExit must not end grading: the grader reports the dot check as an error (a crash that
"called sys.exit(3)") and starts a fresh worker for the next call, so the norm check, graded
after it, passes.
"""
import sys

import numpy as np


def dot(u, v):
    sys.exit(3)


def norm(v):
    return float(np.linalg.norm(v))
