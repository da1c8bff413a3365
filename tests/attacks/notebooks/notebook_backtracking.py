"""Hostile (grader time): one long indented line in a notebook, against the notebook reader's
line rules (which lines are IPython commands to leave out) that run in the grader's own
process, outside every budget.

The test writes a notebook whose first code cell is this file's text (norm() is correct) and
whose second cell is one line of 60,000 spaces and 60,000 letters (about 120 KB). The rule for
`get_ipython(` was the regular expression `^(\\s*).*\\bget_ipython\\s*\\(`, which tries every
split of the indentation against every position after it: quadratic, 195 s for this line (in
the self-check too), reported as "graded in 19 s", and a batch graded nobody meanwhile.

Expected: the notebook is read in linear time (a fraction of a second of the grader's CPU for
a line ten times longer), and the report's execution_time counts the reading.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def long_line(n: int = 60_000) -> str:
    return " " * n + "x" * n
