"""Hostile (what students read): the paths of the folder the worker runs in, in every text of
the report that comes from the worker.

At import it prints its own file, its working folder and its home folder, and warns (Python
prints the warning's file and line); norm() opens a file beside `__file__` that is not there
(an honest mistake: the error names the full path), and dot() raises an error naming its
working folder. Under bubblewrap these read /sandbox/submission/..., /sandbox/work/...,
and what students read leaves the sandbox's folders out ("scale.txt", "scratch_paths.py:25:").
With `--sandbox container` (Gradescope) and `--sandbox none` the worker runs in a folder of
the host: students read "/dev/shm/u7u1qggw/submission/scratch_paths.py:25: UserWarning" and
"/dev/shm/u7u1qggw/work-0/submission/scale.txt" (sixth red-team round): the grader's scratch
folder and its layout (work-N per worker start), which bubblewrap hides.

Expected: in every mode the report names these folders as bubblewrap does (/sandbox/...), so
what students read is the same text: their own file names, no host path.
"""
import json
import os
import warnings

import numpy as np

print("PATHS-REPORT " + json.dumps({"file": __file__, "cwd": os.getcwd(),
                                    "home": os.environ.get("HOME", "")}))
warnings.warn("a warning at import, with its file and line")


def norm(v):
    with open(os.path.join(os.path.dirname(__file__), "scale.txt")) as f:
        return float(f.read()) * float(np.linalg.norm(v))


def dot(a, b):
    raise ValueError(f"no dot product in {os.getcwd()} (home {os.environ.get('HOME')})")
