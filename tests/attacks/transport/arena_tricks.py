"""Attack on the shared-memory arena (andrea_runtime/protocol.py Arena): the worker holds the
arena's memfd (opened read-write by the grader, then sealed with F_SEAL_FUTURE_WRITE, shrink,
grow and seal) and a read-only shared mapping of it. `attack(a)` tries every other way to
change what the grader keeps there, or to reach the grader's memory:

fallocate (punch hole, zero range, collapse, growing it), ftruncate (shrinking it would make
the grader's own map fault with SIGBUS), madvise(MADV_REMOVE) on the shared map, reopening
/proc/self/fd/N read-write (write, shared writable map), a dup of the fd mapped writable,
F_ADD_SEALS (F_SEAL_WRITE: the grader's next write would fail), mremap of the map then
mprotect, pwritev, sendfile into the fd, process_vm_writev into its own read-only map and into
its parent (bubblewrap's init), and opening the parent's /proc/N/mem. (Bubblewrap mounts no
/proc: the map is then found among the worker's objects, and the tries through /proc have
nothing to open.)

Must happen: the kernel refuses each (attack returns []), the grader's kept bytes are unchanged
(a later call by key sees the grader's array), and the grader's own array never changes.
"""
import ctypes
import fcntl
import mmap
import os
import sys
import tempfile

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long]
_libc.mremap.restype = ctypes.c_void_p
_libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_libc.process_vm_writev.argtypes = [ctypes.c_int, ctypes.POINTER(_IoVec), ctypes.c_ulong,
                                    ctypes.POINTER(_IoVec), ctypes.c_ulong, ctypes.c_ulong]


def _arena_fd():
    if "--arena-fd" not in sys.argv:
        return None
    return int(sys.argv[sys.argv.index("--arena-fd") + 1])


def _shared_map():
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "andrea-grade-args" in line and line.split()[1].endswith("s"):
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    return lo, hi
    except OSError:   # no /proc (bubblewrap mounts none): the worker's own map object
        import gc

        size = int(sys.argv[sys.argv.index("--arena-size") + 1])
        for obj in gc.get_objects():
            if type(obj).__name__ == "ArenaView" and len(obj) == size:
                lo = np.frombuffer(obj.shared, dtype=np.uint8).ctypes.data
                return lo, lo + size
    return None


def _try(worked, name, act):
    try:
        if act() not in (False, -1):
            worked.append(name)
    except OSError:
        pass


def _vm_write(pid, addr, data=b"\x7f" * 64, probe=False):
    buf = ctypes.create_string_buffer(data)
    local = _IoVec(ctypes.addressof(buf), len(data))
    remote = _IoVec(addr, len(data))
    n = _libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    # probing another process at a made-up address: EFAULT would mean it may be written
    return n > 0 or (probe and ctypes.get_errno() == 14)


def attack(a):
    fd, region = _arena_fd(), _shared_map()
    if fd is None or region is None:
        return ["no arena"]
    lo, hi = region
    worked = []
    for name, mode in (("punch_hole", 0x03), ("zero_range", 0x10), ("collapse_range", 0x08)):
        _try(worked, name, lambda mode=mode: _libc.fallocate(fd, mode, 0, 4096))
    size = os.fstat(fd).st_size
    _try(worked, "fallocate_grow", lambda: _libc.fallocate(fd, 0, size, 4096))
    _try(worked, "ftruncate_shrink", lambda: os.ftruncate(fd, 0) or True)   # SIGBUS in the grader
    _try(worked, "ftruncate_grow", lambda: os.ftruncate(fd, size + 4096) or True)
    _try(worked, "madvise_remove", lambda: _libc.madvise(lo, 4096, 9))
    try:
        again = os.open(f"/proc/self/fd/{fd}", os.O_RDWR)
    except OSError:
        again = None
    if again is not None:
        _try(worked, "reopen_write", lambda: os.pwrite(again, b"\x7f" * 64, 0) and True)
        _try(worked, "reopen_mmap", lambda: mmap.mmap(again, 4096, flags=mmap.MAP_SHARED,
                                                      prot=mmap.PROT_READ | mmap.PROT_WRITE))
    dup = os.dup(fd)
    _try(worked, "dup_mmap", lambda: mmap.mmap(dup, 4096, flags=mmap.MAP_SHARED,
                                               prot=mmap.PROT_READ | mmap.PROT_WRITE))
    _try(worked, "add_seals", lambda: fcntl.fcntl(dup, 1033, 0x8) or True)
    _try(worked, "pwritev", lambda: os.pwritev(dup, [b"\x7f" * 64], 0) and True)
    with tempfile.TemporaryFile() as src:
        src.write(b"\x7f" * 64)
        src.flush()
        _try(worked, "sendfile", lambda: os.sendfile(dup, src.fileno(), 0, 64) and True)
    _try(worked, "vm_writev_self", lambda: _vm_write(os.getpid(), lo))
    # a map of its own (moving the worker's map would pull the kept arrays from under it)
    mine = _libc.mmap(None, 8192, 1, 1, dup, 0)                # PROT_READ, MAP_SHARED
    if mine not in (None, ctypes.c_void_p(-1).value):
        moved = _libc.mremap(mine, 8192, 16384, 1)             # MREMAP_MAYMOVE
        if moved not in (None, ctypes.c_void_p(-1).value):
            _try(worked, "mremap_mprotect", lambda: _libc.mprotect(moved, 4096, 3) == 0)
    for pid in {os.getppid(), 1} - {0, os.getpid()}:
        _try(worked, f"vm_writev_{pid}", lambda pid=pid: _vm_write(pid, 0x10000, probe=True))
        _try(worked, f"proc_mem_{pid}", lambda pid=pid: os.open(f"/proc/{pid}/mem", os.O_RDWR) >= 0)
    return worked


def total(a):
    return float(np.asarray(a, dtype=np.float64).sum())
