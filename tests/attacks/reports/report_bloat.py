"""Hostile (report size, grader memory): lists in a report that grow with the submission.

The test writes two notebooks whose first cell holds this file's text (norm() is correct):
one with a cell of many lines `%a` (the attack: 1.25 million, just under the 5 MiB size cap;
the test: 300,000), each an IPython magic the reader leaves out and lists, and one with 300
cells that each raise. Every line left out was a list entry of the report: a 148 MB JSON
report, a 75 MB gradebook row, 2.1 GB of grader memory (300,000 lines: a 35 MB list).

Expected: the report lists the first lines left out and the first 50 cells that raised,
and counts the lines left out (dropped_total); every output is under 5 MB, the grader under
1.5 GB, and norm passes.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
