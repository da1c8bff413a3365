"""Hostile (host memory): the memory limit is an address-space limit per process.

RLIMIT_AS bounds each process, and RLIMIT_NPROC lets a submission run 32 of them: four
children that each touch 200 MiB hold 800 MiB at once, whatever --memory-mb says. On top of
that, pages written to a memfd with write() are shared memory that no address space counts
(at most RLIMIT_FSIZE each, RLIMIT_NOFILE of them per process). It holds both at once (bounded
here: six children, eight memfds of 16 MiB), reports on standard output what it held
together, then lets everything go. norm() is correct.

Expected: where the grader can make a memory cgroup for the worker (root, or a delegated
cgroup), everything the submission's processes hold together stays under the worker's memory
limit: the kernel kills a child over it (elsewhere this is not met: docs/grading.md "What is
never guaranteed"). Where bubblewrap runs, the processes are gone when grading ends and the
norm check passes.
"""
import json
import os

import numpy as np

_MIB = 1 << 20


def _hold() -> dict:
    held = {"children": 0, "memfd": 0}
    fds = []
    for _ in range(8):
        try:
            fd = os.memfd_create("hold")
            os.write(fd, b"\1" * (16 * _MIB))
            fds.append(fd)
            held["memfd"] += 16
        except OSError:
            break
    kids = []
    for _ in range(6):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                block = bytearray(120 * _MIB)
                block[::4096] = b"\1" * len(block[::4096])
                os.write(w, b"y")
                import time
                time.sleep(5)
            except BaseException:  # noqa: BLE001 - could not hold it
                os.write(w, b"n")
            os._exit(0)
        os.close(w)
        if os.read(r, 1) == b"y":
            kids.append(pid)
        else:
            os.waitpid(pid, 0)
    for pid in kids:     # what is held at once: the children still alive now
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            held["children"] += 120
    for pid in kids:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    for fd in fds:
        os.close(fd)
    return held


print("MEMORY-REPORT " + json.dumps(_hold()), flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
