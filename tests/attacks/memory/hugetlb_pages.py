"""Hostile (host memory): pages of the machine's huge page pool, which no memory cgroup is
charged for.

A machine that reserves huge pages (vm.nr_hugepages > 0: database and HPC hosts, some GPU
servers) lends them to any process: an anonymous mapping with MAP_HUGETLB, or a memfd made
with MFD_HUGETLB (which keeps its pages while its descriptor is open, mapped or not). These
are charged to the hugetlb controller, never to the memory cgroup that bounds the worker, so
--memory-mb does not hold them; the pool is the machine's, shared with every other program.
In pure Python (mmap's flags and os.memfd_create pass the flag through) it asks for one 2 MiB
page each way and prints what it got as `HUGETLB-REPORT {...}` (here the pool is usually
empty, which fails with ENOMEM: the filter's EPERM comes before it). norm() is correct.

Expected: in every mode both are refused by the worker's seccomp filter (EPERM); plain
mappings and memfds still work; the norm check passes.
"""
import json
import mmap
import os

import numpy as np

_MAP_HUGETLB, _PAGE = 0x40000, 2 << 20


def _try() -> dict:
    got = {}
    try:
        m = mmap.mmap(-1, _PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_HUGETLB)
        m.close()
        got["mmap"] = "made"
    except OSError as exc:
        got["mmap"] = f"refused, errno {exc.errno}"
    try:
        fd = os.memfd_create("pool", getattr(os, "MFD_HUGETLB", 4))
        os.close(fd)
        got["memfd"] = "made"
    except OSError as exc:
        got["memfd"] = f"refused, errno {exc.errno}"
    try:                                   # what an honest program does still works
        m = mmap.mmap(-1, _PAGE)
        m[:4] = b"ok!!"
        fd = os.memfd_create("plain")
        os.close(fd)
        got["plain"] = "works"
    except OSError as exc:
        got["plain"] = f"refused, errno {exc.errno}"
    return got


print("HUGETLB-REPORT " + json.dumps(_try()))


def norm(v):
    return float(np.sqrt(np.sum(np.asarray(v, dtype=np.float64) ** 2)))
