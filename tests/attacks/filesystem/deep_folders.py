"""Hostile (folder depth): this module, handed in as a folder beside a chain of 1,500 nested
folders (``a/a/a/...``, 3,000 characters deep; the test makes it; a zip of it is a few KB).

The grader walked the folder with ``os.walk``, which recurses once per level in Python 3.10
and 3.11: the chain stopped the grader with a RecursionError traceback before any check ran,
and a batch with it (every later student ungraded).

Expected: the folder is read as any other (nothing in the chain can be kept: a path longer
than 1,024 characters is left out, and such a folder is not entered), norm() is graded; in a
batch the other students are graded too. norm() is correct.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
