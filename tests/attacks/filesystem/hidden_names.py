"""Hostile (file names that cannot be written): a folder submission whose helper file is named
with bytes that are not UTF-8 (b'\\xff') and a terminal escape; the grader keeps such a name as a
str with a lone surrogate, and UTF-8 encoding it (the hash, the gradebook, the CSV) raised
UnicodeEncodeError: one student's file name ended a whole batch with a traceback.

The test copies this file into a folder as `submission.py` next to that helper.

Expected: the name is shown with \\xff escapes; the submission is graded like any other and the
batch records every submission.
"""
import math


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("u and v have different lengths")
    return math.fsum(float(a) * float(b) for a, b in zip(u, v))
