"""Hostile (copy detection, tamper scan): the reference's source runs while NumPy unpickles a
data file, ``np.load(..., allow_pickle=True)``, one line that looks like reading a table.

The test hands in a folder: this file as `submission.py` and `vocab.npy`, a 0-d object array
whose element pickles as ``eval(<source of a lambda that execs the reference into a dict>)``.
`pickle.load(f)` in source is flagged (rule ``exec``: unpickling runs code), NumPy's
unpickling is not; the data file is not source, so copy detection never reads the reference.
The code unpickled runs as ``<string>``, outside the submission's frames, so the import rule
does not judge its imports either.

Expected: a ``grader_tamper`` flag (``np.load`` with ``allow_pickle=True`` unpickles as
``pickle.load`` does), or the copy does not run.
Happened (main at edebcec, bubblewrap): both checks passed, no tamper flag, no copy flag.
"""
from pathlib import Path

import numpy as np

globals().update(np.load(Path(__file__).with_name("vocab.npy"), allow_pickle=True).item())
