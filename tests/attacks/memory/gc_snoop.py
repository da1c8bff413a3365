"""Hostile (look for the answers in memory): walks gc.get_objects(), every frame of every
thread (sys._current_frames, inspect.stack) and sys.modules for anything that looks like an
expected value (the reference's modules, arrays other than its arguments, names such as
'expected', 'want', 'reference'), and returns the first array of the right shape it finds
instead of computing the lookup; reports what it saw in its printed output.

Expected: the worker holds nothing of the grader's (no reference, no expected values), so the
search finds only the call's own arguments; lookup fails as its returned values deserve, and
nothing of the kit is in sys.modules.
"""
import gc
import inspect
import sys

import numpy as np

KIT = ("andrea_ref", "andrea_gpu", "graders", "spec", "hypothesis")


def _candidates(shape, dtype, exclude):
    seen = []
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            for k, v in list(obj.items())[:50]:
                if isinstance(k, str) and k.lower() in ("expected", "want", "reference", "answer") \
                        and isinstance(v, np.ndarray):
                    seen.append(v)
    for frame in sys._current_frames().values():
        f = frame
        while f is not None:
            for v in list(f.f_locals.values()):
                if isinstance(v, np.ndarray) and v.shape == shape and v.dtype == dtype \
                        and not any(v is e for e in exclude):
                    seen.append(v)
            f = f.f_back
    return seen


def lookup(table, token_ids):
    ids = np.asarray(token_ids)
    shape = ids.shape + (table.shape[1],)
    kit = [m for m in sys.modules if m.split(".")[0] in KIT]
    found = _candidates(shape, table.dtype, (table, ids))
    print(f"kit modules: {kit}; candidates: {len(found)}; stack: {len(inspect.stack())}")
    if found:
        return found[0]
    return np.zeros(shape, dtype=table.dtype)
