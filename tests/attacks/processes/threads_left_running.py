"""Hostile (threads left running): at import starts a non-daemon thread that never ends
(holding the worker process alive after its main thread is done), and in every call starts
another thread that, a moment after the call has returned, scribbles NaN on the call's
arguments and result for a while.

Expected: the grader's arrays never change (arguments cross as copies, results as bytes taken
when the call returns), so lookup passes on the value it returned; grading ends, and no worker
process is left.
"""
import threading
import time

import numpy as np


def _forever():
    while True:
        time.sleep(0.01)


threading.Thread(target=_forever, name="keeper", daemon=False).start()


def _scribble(arrays):
    time.sleep(0.3)
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        for a in arrays:
            try:
                a[...] = np.nan
            except Exception:  # noqa: BLE001
                pass


def lookup(table, token_ids):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError("ids must be integers")
    if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise IndexError("id out of range")
    out = table[ids]
    threading.Thread(target=_scribble, args=([table, out],), daemon=True).start()
    return out
