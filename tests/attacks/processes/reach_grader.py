"""Hostile (reach the grader): signals its parent and every process it can see (SIGSTOP, then
SIGKILL, and kill(-1)), tries to ptrace them, and reads their environment, command line and
memory, looking for the grader.

Expected: it sees only its own sandbox (no grader, no pytest, no other worker), every attempt
on anything else fails, and grading finishes normally: `norm` passes.
"""
import ctypes
import os
import signal

import numpy as np

def _pids():
    """Every process it can see: /proc's list, or without /proc (bubblewrap mounts none) every
    pid that kill(pid, 0) finds."""
    try:
        return [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        pass
    out = []
    for pid in range(1, 1 << 15):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except OSError:
            pass
        out.append(pid)
    return out


_me = os.getpid()
_seen = []
for _pid in _pids():
    if _pid == _me:
        continue
    try:
        with open(f"/proc/{_pid}/cmdline", "rb") as _f:
            _seen.append(_f.read().replace(b"\0", b" ")[:60].decode(errors="replace"))
    except OSError:
        _seen.append("?")
    for _what in ("environ", "mem"):
        try:
            with open(f"/proc/{_pid}/{_what}", "rb") as _f:
                _f.read(64)
            print("READ", _what, _pid)
        except OSError:
            pass
    try:
        if ctypes.CDLL(None).ptrace(16, _pid, 0, 0) == 0:   # PTRACE_ATTACH
            print("PTRACED", _pid)
    except OSError:
        pass
    for _sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(_pid, _sig)
            print("SIGNALLED", _pid, _sig)
        except OSError:
            pass
print("visible:", _seen)
for _target in (os.getppid(),):
    try:
        os.kill(_target, signal.SIGKILL)
        print("KILLED parent", _target)
    except OSError:
        pass


def norm(v):
    return float(np.sqrt(np.dot(v, v)))
