"""Hostile (escape cleanup): leaves a process that double-forks, leaves its session and
process group, and re-executes itself with an empty environment and a new name (no marker
to find it by), sleeping for ten minutes.

Expected: it does not survive grading (PID namespace, private uid, or the grader's subreaper
finds it); `norm` passes.
"""
import os
import sys

import numpy as np

_NAME = "andrea-hostile-escapee"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        try:
            os.execve(sys.executable, [_NAME, "-c", "import time; time.sleep(600)"], {})
        finally:
            os._exit(0)
    os._exit(0)


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
