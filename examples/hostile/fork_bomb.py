"""Hostile: init_table() leaves processes behind: children that sleep for an hour, a setsid'd
daemon that tries to escape its process group, and up to 200 forks (stopped earlier by
RLIMIT_NPROC where it is enforced).

The grader must contain and clean it all up: no process of the submission survives grading,
and since the table itself is correct, the init check passes.
"""
import os as _os
import time as _time

import numpy as np

_started = False


def _daemon():
    if _os.fork() == 0:
        _os.setsid()
        if _os.fork() == 0:
            while True:
                _time.sleep(0.05)
        _os._exit(0)


def init_table(num_rows, d_model, rng):
    global _started
    if not _started:
        _started = True
        _daemon()
        for _ in range(200):
            try:
                if _os.fork() == 0:
                    _time.sleep(3600)
                    _os._exit(0)
            except OSError:
                break
    return rng.standard_normal((num_rows, d_model), dtype=np.float32) / np.float32(d_model ** 0.5)
