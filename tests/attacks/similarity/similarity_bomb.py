"""Hostile (copy detection): a valid module of nearly 5 MiB (the test appends it: a line
`X = 1+1+...` of about 2.4 million tokens) with a correct norm().

The grader fingerprints every submission's source in its own process (the reference-copy flag,
and in a batch the pairwise similarity report), token by token: five million tokens cost it
about a minute per file in every batch, time no per-submission budget counts.

Expected: the whole file is fingerprinted, in time linear in its size (a token cap, tried
first, was a place to hide a copy: tests/attacks/similarity/copy_evasion.py); it is compared, and graded
as usual.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
