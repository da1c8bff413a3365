"""Hostile (information): read where the sandbox's folders come from on the host.

/proc/self/mountinfo names the source of every bind mount as a path in its file system: the
grader's scratch folder (`/tmp/andrea-grade-k2j4x9ab/submission`: the tool and the host's
temporary folder) and the checkout's virtual environment (`/work/.../.venv/lib/...`). It
prints what it finds on standard output. norm() is correct.

Expected: the scratch folder reads as a random name (on /dev/shm's own tmpfs: `/k2j4x9ab/
submission`, nothing of the host's folders or the tool's name) where /dev/shm has room; the
package folders still read as their host paths (a bind mount's source cannot be renamed;
documented) and norm passes.
"""
import json

import numpy as np

_roots = {}
with open("/proc/self/mountinfo") as _f:
    for _line in _f:
        _p = _line.split()
        if len(_p) > 4 and _p[4].startswith("/sandbox/") and _p[4].count("/") == 2:
            _roots[_p[4]] = _p[3]
print("MOUNT-REPORT " + json.dumps(_roots, sort_keys=True), flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
