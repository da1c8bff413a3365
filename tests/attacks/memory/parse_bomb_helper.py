"""Hostile (grader memory and time): a helper module the grader parses in its own process.

A folder submission: this file is its `submission.py` (norm() is correct), and beside it the
test writes `helper.py`, a valid module of nearly 4.9 MB (`X = 1+1+...+1`, with
`# import pytest` at its top so that a scan for forbidden imports cannot skip it). The grader
reads every module of a folder before any worker starts (which file is the submission, does a
module import the kit or the test tooling): an abstract syntax tree of it took 3 GB of the
grader's memory and about a minute, and a grader without isolation refused it only after that.

Expected: without isolation, refused before anything is read (under a second); with it, the
folder is read with the grader's memory well under 1.5 GB and graded (norm passes).
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def helper_text(nbytes: int = 4_900_000) -> str:
    """The helper module the test writes beside this file."""
    return "# import pytest\nX = " + "1+" * (nbytes // 2 - 8) + "1\n"
