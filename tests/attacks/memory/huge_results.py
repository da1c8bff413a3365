"""Hostile (grader memory): results as large as a reply may be, against what the grader keeps.

A reply may carry up to 384 MiB (`one reply` in docs/grading.md's limits), so that real-size
tables cross. lookup() returns one float64 array of 47 million zeros (376 MB) for every
call, whatever it is asked. Each check reads it (`out.astype(table.dtype)` before any shape
test, a second copy), fails, and keeps it: Hypothesis keeps the failing example's exception and
traceback (whose frames hold the result) while it shrinks and reports, and the failure keeps
what it shows, so every failing call of every check adds a few hundred MB that is not freed
when the check ends.

What it did: three lookup checks took the grader's resident memory to 5.0 GB in 18 s; the
whole grade (lookup, embed and embed_backward all answering so) to 7.5 GB, for a 2.0 / 100
score (the worker, under its 2 GiB limit, held one array). With `--jobs 2` that is 15 GB of
the teacher's machine. The target is 1.5 GB of grader memory for any submission.

Expected: the grader's memory stays under 1.5 GB: a result is judged on its shape before
it is copied or converted, a failure keeps a bounded description of the value (not the
value), and a reply far larger than anything the contract returns for those arguments is
refused as such (a contract function returns at most about the bytes of its arguments
times the rows asked for).
"""
import numpy as np

_BIG = None


def lookup(table, token_ids):
    global _BIG
    if _BIG is None:
        _BIG = np.zeros(47_000_000)
    return _BIG
