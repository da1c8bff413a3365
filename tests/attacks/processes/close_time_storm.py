"""Hostile (surviving the kill): processes that are busy being born when the worker is killed.

The grader now kills a worker at once when it closes it (no polite exit) and looks for what is
left after 1, 2, 4... ms, killing by uid only after two rounds. At import this submission starts
a thread that forks without pause: each child leaves its session (setsid), forks again and
re-executes itself under a new name with an empty environment (no marker to find it by) to sleep,
and some children exit at once without being waited for (zombies) or stop themselves (SIGSTOP,
so that they could not even run a handler); the thread goes on forking through the grader's
kill. Bounded: at most 400 forks and 20 s, the sleepers 30 s. norm() is correct.

Expected: after the worker is closed nothing named andrea-hostile-storm lives, in a batch too:
the next submission in the same pool process is graded beside none of it, and passes.
"""
import os
import signal
import sys
import threading
import time

import numpy as np

_NAME = "andrea-hostile-storm"


def _child(i):
    try:
        os.setsid()
        if i % 5 == 1:
            os._exit(0)                           # a zombie for whoever reaps it
        if i % 5 == 2:
            os.kill(os.getpid(), signal.SIGSTOP)  # stopped: no handler runs
        if os.fork() == 0:
            os.execve(sys.executable, [_NAME, "-c", "import time; time.sleep(30)"], {})
    finally:
        os._exit(0)


def _storm():
    end = time.monotonic() + 20
    for i in range(400):
        if time.monotonic() > end:
            break
        try:
            if os.fork() == 0:
                _child(i)
        except OSError:          # the process limit: wait and go on
            time.sleep(0.01)
        time.sleep(0.002)


threading.Thread(target=_storm, daemon=True).start()
time.sleep(0.2)
print("STORM-STARTED", flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
