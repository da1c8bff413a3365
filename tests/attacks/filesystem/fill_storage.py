"""Hostile (storage): writes as much as it can to its home, /tmp, /dev/shm and anywhere else,
in 1 MiB files (at most 400 MiB), and reports how much each place took.

Expected: everything it manages to write together stays under the worker's quota
(Limits.max_disk_mb), and nothing of it is left on the host after grading.
"""
import os

import numpy as np

_CHUNK = b"\0" * (1 << 20)
_totals = {}
for _place in (os.environ.get("HOME", "."), "/tmp", "/dev/shm", "/", "/sandbox",
               "/sandbox/submission", "/sandbox/runtime"):
    _n = 0
    for _i in range(400):
        try:
            with open(os.path.join(_place, f"fill{_i}"), "wb") as _f:
                _f.write(_CHUNK)
            _n += 1
        except OSError:
            break
    _totals[_place] = _n
print("MIB_WRITTEN", sum(_totals.values()), _totals)


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
