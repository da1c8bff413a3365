"""Hostile (batch feedback): one file handed in under two names, to learn who else has it.

The gradebook keys a grade by the content's hash, so identical files share one row "whatever
their names" (and a re-run skips a file whose bytes were graded before). The row's report is
the report of whichever copy was graded last, and its check messages carry that copy's file
name: the reproducer (`impl = load_impl('bob.py')`) and its closing line (`# or:
andrea-conform bob.py ...`). The test hands this file in as `alice.py` and as `bob.py` (its
norm() is wrong, so a check fails with a reproducer).

What it did: alice's feedback file, ready to hand back, said `load_impl('bob.py')` and
`andrea-conform bob.py`: a student learns the name of another student who handed in the same
file (and, on a later run, a new student gets the feedback of whoever handed those bytes in
first); the JSON row names bob as the submission of both.

Expected: each student's feedback names that student's own file only; another student's name
never appears in it. A general fix: key the gradebook's rows by content and name (grading a
duplicate again costs seconds), or keep the report free of the file name (the reproducer's
path filled in from the row's own name when the feedback is written).
"""
import numpy as np


def norm(v):
    return float(np.sum(np.abs(np.asarray(v, dtype=np.float64))))    # the 1-norm: wrong
