"""Hostile (catch everything): norm() loops forever inside `try: ... except BaseException:`, so
an exception raised into it to stop it (a timeout signal, KeyboardInterrupt, SystemExit) is
swallowed; at import it also installs handlers that ignore SIGTERM, SIGINT, SIGALRM, SIGHUP,
SIGUSR1 and SIGXCPU.

Expected: the norm check is an error (the call took too long), the worker is replaced, every
other check passes, and grading ends well inside its limits.
"""
import signal

import numpy as np

for _s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP, signal.SIGUSR1,
           signal.SIGXCPU):
    try:
        signal.signal(_s, signal.SIG_IGN)
    except (OSError, ValueError):
        pass


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("lengths differ")
    return float(np.dot(u, v))


def norm(v):
    while True:
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 - the attack
            continue
