"""Hostile (runtime rewrite): overwrites the worker's own runtime (worker.py, protocol.py, the
folder the grader copies them into) with a version that reports full marks, then crashes so
that the grader starts the forged worker.

Expected: every write fails (read-only), the next worker is the grader's own: `lookup`, which
returns zeros, still fails; `norm` passes.
"""
import os
import sys

import numpy as np

FORGED = "import sys\nsys.exit('forged worker ran')\n"
_paths = [os.path.join(os.path.dirname(a), n)
          for a in sys.argv[:1] for n in ("worker.py", "protocol.py", "evil.py")]
_proto = sys.modules.get("_andrea_worker_protocol")
if _proto is not None:
    _paths.append(_proto.__file__)
for _p in _paths:
    try:
        with open(_p, "w") as _f:
            _f.write(FORGED)
        print("WROTE", _p)
    except OSError as exc:
        print("refused", os.path.basename(_p), type(exc).__name__)


def dot(u, v):
    os._exit(3)


def norm(v):
    return float(np.sqrt(np.dot(v, v)))


def lookup(table, token_ids):
    return np.zeros(np.shape(token_ids) + (np.shape(table)[1],), dtype=np.float32)
