"""Hostile (file descriptors): at import opens files until the worker's open-file limit is
reached and keeps them all open, then closes every descriptor it did not open except 0-2 (so
the worker loses the pipes it talks through).

Expected: the worker cannot answer; grading reports the submission as crashed (or its checks
as errors), does not hang, and ends within its limits; the grader's own descriptors are
untouched.
"""
import os

_mine = []
try:
    while True:
        _mine.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
for _fd in range(3, 4096):
    if _fd not in _mine:
        try:
            os.close(_fd)
        except OSError:
            pass


def norm(v):
    return 0.0
