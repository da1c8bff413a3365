"""Hostile (stale arena bytes): keep not the argument but what it is made of.

A kept argument's fresh copy is a copy-on-write map of its arena region; the grader reuses that
region for other arrays once the call has answered. A submission that keeps the array itself is
handled (its pages are made private before the reply). This one keeps everything else that
reaches those pages: a strided view, a reshaped view, a memoryview of the array, the mapping
behind it (`a.base` down the chain) and an array made with np.frombuffer over that mapping; and
it keeps so many arguments (more than the worker's 8 live copy-on-write maps) that later calls
get plain copies. At every call it checks that everything it kept still shows the bytes it had
when it was kept, and reports what changed in `changed()` (a correct lookup otherwise).

Expected: nothing it kept ever changes, whatever the grader places in the reused regions; each
call's argument is the grader's (its sum is right).
"""
import hashlib

import numpy as np

_KEPT = []   # (what, digest when kept)


def _digest(x):
    return hashlib.sha256(memoryview(x).cast("B")).hexdigest()


def _base(a):
    while isinstance(getattr(a, "base", None), np.ndarray):
        a = a.base
    return a.base


def total(a):
    for what in (a[::7], a.reshape(-1, 4)[1:], memoryview(a), _base(a)):
        if what is None:
            continue
        try:
            _KEPT.append((what, _digest(what)))
        except (TypeError, ValueError, BufferError):
            pass
    b = _base(a)
    if b is not None:
        try:
            view = np.frombuffer(b, dtype=np.uint8)
            _KEPT.append((view, _digest(view)))
        except (TypeError, ValueError):
            pass
    return float(np.asarray(a, dtype=np.float64).sum())


def changed():
    return sum(1 for what, d in _KEPT if _digest(what) != d)


def kept():
    return len(_KEPT)
