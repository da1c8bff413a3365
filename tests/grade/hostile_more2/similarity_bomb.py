"""Hostile (copy detection): a valid module of nearly 5 MiB (the test appends it: a line
`X = 1+1+...` of about 2.4 million tokens) with a correct norm().

The grader fingerprints every submission's source in its own process (the reference-copy flag,
and in a batch the pairwise similarity report), token by token: five million tokens cost it
about a minute per file in every batch, time no per-submission budget counts.

Expected: only the first MAX_TOKENS (100,000) tokens are fingerprinted (a homework has a few
thousand), so the file costs the grader about as much as a large homework; it is still
compared, and graded as usual.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
