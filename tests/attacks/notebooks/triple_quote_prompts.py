"""Hostile (grader time): a notebook line of many triple quotes after a pasted prompt, against
the prompt cleanup that the grader runs on every code cell in its own process, before any
worker starts and outside every budget (andrea_runtime/ipython_input.py: IPython's own
``TransformerManager`` cleanup where IPython is installed, as in a teacher's venv, else the
module's copy of it, which follows IPython 9.18).

The doctest prompt stripper first works out which lines are inside a triple-quoted string
(``_triple_quote_mask``). For every opening quote of a line it slices the line up to that
quote and runs two prompt regular expressions and ``strip()`` over the slice: each opening
costs the length of the line before it, so a line of k openings costs about k times its
length. The test writes a notebook whose first code cell is this file's text (norm() is
correct) and whose second cell is ``>>> x = ''' ''' ''' ''' ...`` (`long_line`).

What it did: 300 KB of such a line took the grader 3.3 s of CPU to read (user and system: the slices cost page faults), 1 MB 47 s; the 5 MB
notebook (the size cap) held `andrea-grade` for more than 15 minutes of wall time (killed
there by the test's own timeout, no report, on a loaded 2-core machine) before a single
check ran, and `andrea-conform` (the self-check) the same. The grading slot target is 150 s.

Expected: a notebook is read in time linear in its size (a fraction of a second for the 5 MB
line). Only the first triple quote of a line can start a string whose prompts are kept (the
text before any later quote holds a quote, which is no string prefix), so the mask needs one
slice per line, not one per quote; and the grader must not run a cleanup it cannot bound
(IPython's own copy has the same loop). Now: the module's copy takes one slice per line and
is what the grader and the self-check use, whether or not IPython is installed.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def long_line(n: int = 5_000_000) -> str:
    return ">>> x = " + "''' ''' " * (n // 8)
