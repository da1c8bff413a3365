"""Hostile (the grader's parses): this module in a folder beside helper modules that hold one
f-string of 80,000 replacement fields each (`helper_text()`: 240 KB, under the 256 KiB a file
may have to be parsed into a syntax tree; the test writes a few), each with a comment naming
`spec` so that the reader's import scan parses it.

CPython's parser takes time quadratic in the fields of one f-string (3.10 and 3.11 most; still
superlinear in 3.12): 6 s per parse of one helper, and the grader parsed each helper in its own
process while reading the folder (the scan for the kit's package names) and again in the tamper
scan. Nineteen helpers (a 4.6 MB folder) held the grader 314 s before and around the worker's
start, twice the grading slot, with nothing to grade in them.

Expected: a text holding more than 5,000 braces is not parsed in the grader's process (it is
read by its lines, as a long one is): the folder costs about what a folder of plain helpers of
the same size does; norm() is graded. norm() is correct.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def helper_text(fields: int = 80_000) -> str:
    """A helper module: a comment naming spec, then one f-string of `fields` fields."""
    return "# the spec says nothing of this\nX = f'" + "{a}" * fields + "'\n"
