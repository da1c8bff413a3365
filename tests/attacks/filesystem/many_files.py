"""Hostile (folder size): this module, handed in as a folder beside 50,000 empty files (the test
makes 2,500; an upload of a zip of empty files is small, and the 5 MiB size cap counts bytes,
not files).

The grader read every file of the folder and copied each into the worker's scratch folder:
50,000 empty files cost it about 30 s before any check ran (and a grader slot in a batch);
millions would hold it for hours. Hidden folders (a .git) were walked in full too, only to be
skipped.

Expected: a folder of more than 2,000 files and folders (hidden ones and __pycache__ aside, and
not entered) is refused at once with a one-line reason naming the limit; in a batch that is a
problem row and the other students are graded. norm() is correct.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
