"""Every limit of a grading run, applied to each worker start: rlimits and a memory cgroup."""

from __future__ import annotations

import ctypes
import itertools
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from graders.conformance.limits import (CALL_SECONDS, CHECK_SECONDS, MAX_TIMEOUTS_PER_FUNCTION,
                                        TOTAL_SECONDS)

log = logging.getLogger("andrea_grade")


@dataclass
class Limits:
    """Every limit of a grading run; the defaults are for real grading.

    With the defaults no submission holds a grading slot much longer than `total_timeout`
    (a correct one takes a few seconds): every call, restart and check shares that budget,
    and checks that did not get to run are reported as not run.
    """

    # the time limits are the self-check's too (graders/conformance/limits.py)
    call_timeout: float = CALL_SECONDS     # wall seconds for one call into the submission
    check_timeout: float = CHECK_SECONDS   # wall seconds for one check (all its calls)
    total_timeout: float = TOTAL_SECONDS   # wall seconds for the whole submission (the budget)
    startup_timeout: float = 20.0    # wall seconds to start a worker and import the submission
    memory_mb: int = 2048            # address space of each worker process; all together (cgroup)
    cpu_seconds: int = 300           # CPU seconds of one worker
    max_processes: int = 32          # processes and threads of the worker's uid
    max_file_mb: int = 16            # largest file the worker may write
    max_disk_mb: int = 64            # everything the worker writes (home, /tmp, /dev/shm)
    max_open_files: int = 64
    max_output_bytes: int = 1 << 20  # printing more than this in one call (or while importing) is an output flood
    keep_output_bytes: int = 4096    # how much of the submission's output the report shows
    max_message_mb: int = 384        # largest reply accepted from the worker
    max_timeouts_per_function: int = MAX_TIMEOUTS_PER_FUNCTION  # then it is not called again


def _make_preexec(limits: Limits, nproc: int, cgroup: "MemoryCgroup | None" = None):
    import resource

    mem = limits.memory_mb * 1024 * 1024
    settings = [
        (resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5)),
        (resource.RLIMIT_AS, (mem, mem)),
        (resource.RLIMIT_NPROC, (nproc, nproc)),
        (resource.RLIMIT_FSIZE, (limits.max_file_mb * 1024 * 1024,) * 2),
        (resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        libc = None

    procs = str(cgroup.path / "cgroup.procs") if cgroup is not None else None

    def preexec():  # runs in the child between fork and exec: no allocation-heavy work
        if procs is not None:   # before anything of the worker runs; failing, it never starts
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        if libc is not None:
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        for res, lim in settings:
            try:
                resource.setrlimit(res, lim)
            except (ValueError, OSError):
                pass

    return preexec


class MemoryCgroup:
    """A memory cgroup of one worker start: what all its processes hold together (their pages,
    the files they write into tmpfs or memfds) is bounded, where RLIMIT_AS bounds each process
    alone (32 of them could hold 32 times the limit). Made below this process's own memory
    cgroup where that is possible (root, or a delegated cgroup; cgroup v1 or v2 with the
    memory controller), else not at all: the per-process limits then stand alone (docs/grading.md).
    Over the limit the kernel kills a process of the cgroup; :meth:`oom_killed` says so."""

    _base: "tuple[Path, bool] | None | bool" = False    # (folder, v2), None: unavailable
    _names = itertools.count()

    def __init__(self, path: Path, v2: bool):
        self.path, self.v2 = path, v2

    @classmethod
    def create(cls, limit_bytes: int) -> "MemoryCgroup | None":
        base = cls._find_base()
        if base is None:
            return None
        folder, v2 = base
        path = folder / f"andrea-worker-{os.getpid()}-{next(cls._names)}"
        try:
            path.mkdir()
        except OSError:
            return None
        cg = cls(path, v2)
        try:
            if v2:
                (path / "memory.max").write_text(str(limit_bytes))
                if (path / "memory.swap.max").exists():
                    (path / "memory.swap.max").write_text("0")
            else:
                (path / "memory.limit_in_bytes").write_text(str(limit_bytes))
                if (path / "memory.memsw.limit_in_bytes").exists():   # swap counted too
                    (path / "memory.memsw.limit_in_bytes").write_text(str(limit_bytes))
        except OSError:
            cg.remove()
            return None
        return cg

    @classmethod
    def _find_base(cls) -> "tuple[Path, bool] | None":
        if cls._base is False:
            cls._base = _memory_cgroup_base()
        return cls._base

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this cgroup for going over its limit."""
        name = "memory.events" if self.v2 else "memory.oom_control"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip().isdigit():
                    return int(value) > 0
        except OSError:
            pass
        return False

    def remove(self, seconds: float = 1.0) -> None:
        """Remove the cgroup once its processes are gone (the kernel refuses it before)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    log.warning("could not remove the worker's memory cgroup %s", self.path)
                    return
                time.sleep(0.002)


def _memory_cgroup_base() -> "tuple[Path, bool] | None":
    """(this process's memory cgroup folder, is cgroup v2) where it can make children in it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, rel = line.split(":", 2) if line.count(":") >= 2 else ("", "", "")
        if "memory" in controllers.split(","):               # cgroup v1
            folder = Path("/sys/fs/cgroup/memory") / rel.lstrip("/")
            if (folder / "memory.limit_in_bytes").is_file() and os.access(folder, os.W_OK):
                return folder, False
    for line in lines:
        if line.startswith("0::"):                           # cgroup v2: memory delegated
            folder = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
            try:
                delegated = "memory" in (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                delegated = False
            if delegated and os.access(folder, os.W_OK):
                return folder, True
    return None
