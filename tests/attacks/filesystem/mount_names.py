"""Hostile (information): read where the sandbox's folders come from on the host.

/proc/self/mountinfo names the source of every bind mount as a path in its file system: the
grader's scratch folder (`/tmp/andrea-grade-k2j4x9ab/submission`: the tool and the host's
temporary folder) and the checkout's virtual environment (`/work/.../.venv/lib/...`). It
prints what it finds on standard output. norm() is correct.

Expected: there is no mount table to read (bubblewrap mounts no /proc; a worker with a CUDA
device has one, where the scratch folder reads as a random name on /dev/shm's own tmpfs,
`/k2j4x9ab/submission`, nothing of the host's folders or the tool's name) and norm passes.
tests/attacks/filesystem/proc_host_paths.py looks everywhere else.
"""
import json

import numpy as np

_roots = {}
try:
    with open("/proc/self/mountinfo") as _f:
        for _line in _f:
            _p = _line.split()
            if len(_p) > 4 and _p[4].startswith("/sandbox/") and _p[4].count("/") == 2:
                _roots[_p[4]] = _p[3]
except OSError as _exc:   # no /proc in the sandbox
    _roots = {"error": type(_exc).__name__}
print("MOUNT-REPORT " + json.dumps(_roots, sort_keys=True), flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
