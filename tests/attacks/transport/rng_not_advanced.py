"""Hostile (a wrong init that scores full): init_table draws every number from a copy of the
Generator it is given, so the caller's Generator is never advanced.

A model draws its token table and then its position table from one Generator (`rng`); with
this init_table both tables start with the same numbers (token row 0 is position row 0, ...):
the draws are not independent, which the course's init (every draw from `rng`) rules out.
The checks call init_table once per fresh Generator: INIT-RNG-01 asks that the same seed gives
the same table and another seed another table, never that a second call on the same Generator
gives a new one; in the grader the Generator's state after the call is the worker's word (the
reply's `rngs`), and this file never changes it.

What it did: every INIT check passed (INIT-SHAPE-01, INIT-DIST-01/02, INIT-RNG-01), in
andrea-conform and andrea-grade: the init group's 15 points for an init whose tables repeat
each other.

Expected: INIT-RNG-01 fails: two calls with one Generator must give different tables (a
Generator that is not advanced is not drawn from), judged on the values the grader got back,
not on the worker's account of the Generator's state. Now: the check draws twice from one
seeded Generator and compares.
"""
import copy

import numpy as np


def init_table(num_rows, d_model, rng):
    g = copy.deepcopy(rng)          # the caller's Generator stays where it was
    return g.normal(0.0, 1.0 / np.sqrt(d_model), size=(num_rows, d_model)).astype(np.float32)
