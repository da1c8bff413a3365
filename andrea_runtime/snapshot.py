"""The one input-change snapshot: did a call change the arguments it was given?

The contract's functions never change their inputs (EMB-PURE-01). Whoever calls an
implementation keeps a private copy of each argument (:func:`private`) and, after the call,
asks :func:`differs` whether the value the call held still equals it, bit for bit (NaN
payloads and -0.0 included). ``andrea-conform`` does so in its own process
(``graders.conformance.runner``), the grader's worker in the sandbox (``worker.py``), and the
grader's record of the arrays a worker keeps compares bytes with :func:`same_bytes`.

Only ndarray methods and operators are used (``copy``, ``view``, ``==``, ``all``), never
NumPy's module functions, which code running in the same process could have replaced.
Standard library and NumPy only.
"""

from __future__ import annotations

import numpy as np

MAX_DEPTH = 32     # deeper nesting is not compared (nothing of the contract nests so deep)


def private(value, depth: int = 0):
    """A copy of `value` that no one else holds: arrays copied, lists, tuples and dicts
    rebuilt around copies of what they hold; everything else (numbers, strings, generators:
    their state crosses separately) is the value itself."""
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [private(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(private(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: private(v, depth + 1) for k, v in value.items()}
    return value


def differs(kept, value, depth: int = 0) -> bool:
    """Whether `value` (what a call held) is no longer equal to `kept` (its private copy,
    taken before the call): another type, shape, dtype, length, key or any bit."""
    if depth > MAX_DEPTH or kept is value:
        return False
    if isinstance(kept, np.ndarray):
        return not isinstance(value, np.ndarray) or not same_bytes(kept, value)
    if isinstance(kept, (list, tuple)):
        return (type(value) is not type(kept) or len(value) != len(kept)
                or any(differs(a, b, depth + 1) for a, b in zip(kept, value)))
    if isinstance(kept, dict):
        return (type(value) is not type(kept) or list(kept) != list(value)
                or any(differs(kept[k], value[k], depth + 1) for k in kept))
    if isinstance(kept, np.random.Generator):
        return False
    return type(value) is not type(kept) or repr(value) != repr(kept)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays have one dtype and shape and hold the same bytes."""
    if a.dtype.str != b.dtype.str or a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    if a.dtype.hasobject:
        return a.tobytes() == b.tobytes()
    size = a.dtype.itemsize
    as_int = f"u{size}" if size in (1, 2, 4, 8) else "u1"
    x, y = a.reshape(-1).view(as_int), b.reshape(-1).view(as_int)
    # the ends first: different arrays rarely share them, and this is cheap
    return bool((x[:256] == y[:256]).all() and (x[-256:] == y[-256:]).all()
                and (x == y).all())
