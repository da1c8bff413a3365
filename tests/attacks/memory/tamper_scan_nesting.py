"""Hostile (the grader's tamper scan): this module, with `nested_lines()` after it (the test
adds 120-250 KB of it: under the 256 KiB a file may have to be parsed into a syntax tree).

Each line is one assignment whose value nests 150 named expressions (``(a0 := (a1 := ...
x+x+...))``, parentheses within Python's 200 levels) around a sum of 400 names. The grader's
tamper scan, which runs in its own process for every submission before the staff's flags are
written, asked of every assignment whether its value decodes data at run time by walking that
value again (up to 1,000 nodes each): nested assignments made it quadratic, 25 s of the
grader's CPU for 250 KB that flags nothing (50 s for the 512 KiB the scan parses in all), and
a batch slot with it.

Expected: the scan judges every expression once (linear): about as long as a flat file of
the same size; no flag. norm() is correct.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))


def nested_lines(size: int, depth: int = 150, terms: int = 400) -> str:
    """About `size` characters of assignments, each nesting `depth` named expressions."""
    value = "+".join(["x"] * terms)
    for i in range(depth):
        value = f"(a{i} := {value})"
    line = f"y = {value}\n"
    return line * max(1, size // len(line))
