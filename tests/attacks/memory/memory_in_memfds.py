"""Hostile (host memory through memfds): norm() writes 480 MiB into memfds with write().

Those pages are shared memory that no address space counts, so RLIMIT_AS never stops them.

Expected: where the grader can make a memory cgroup for the worker, the kernel kills the
worker once its processes hold more than --memory-mb together, and the check's feedback says
so ("used more memory than allowed, counting every process it started"); the host keeps its
memory and grading goes on.
"""
import os

import numpy as np


def norm(v):
    fds = []
    for _ in range(30):
        fd = os.memfd_create("hold")
        os.write(fd, b"\1" * (16 << 20))
        fds.append(fd)
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
