"""The worker's processes: finding them in /proc, their CPU time, private uids, and the
kill at close that confirms everything a submission started is gone."""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import SandboxError
from .limits import MemoryCgroup

UID_BASE = 200_000         # worker uids: UID_BASE + (pid % UID_PIDS) * 64 + slot
UID_PIDS = 1 << 22
MARKER = "ANDREA_GRADE_WORKER"
CONFIRM_SECONDS = 5.0      # how long cleanup may take before it is the grader's own error
_UID_SLOTS = itertools.count()


@dataclass
class Proc:
    pid: int
    state: str
    ppid: int
    sid: int
    start: int          # clock ticks after boot
    uids: tuple


def _proc(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    uids: tuple = ()
    for line in status.splitlines():
        if line.startswith("Uid:"):
            uids = tuple(int(x) for x in line.split()[1:])
            break
    return Proc(pid, fields[0], int(fields[1]), int(fields[3]), int(fields[19]), uids)


def _processes():
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            p = _proc(int(entry))
            if p is not None:
                yield p


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, with reaped children) of `pid` and every process below it.

    Read from /proc while they run: bubblewrap's monitor exits without waiting for its init,
    so a sandboxed worker's CPU time never reaches the grader's rusage."""
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stats[int(entry)] = f.read().decode("ascii", "replace").rsplit(")", 1)[1].split()
            except OSError:
                pass
    tree, grew = {pid}, True
    while grew:
        grew = False
        for q, fields in stats.items():
            if q not in tree and len(fields) > 14 and fields[1].isdigit() and int(fields[1]) in tree:
                tree.add(q)
                grew = True
    ticks = 0
    for q in tree:
        try:
            ticks += sum(int(x) for x in stats[q][11:15])   # utime stime cutime cstime
        except (KeyError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def _uid_busy(uid: int) -> bool:
    return any(uid in p.uids for p in _processes())


def _allocate_uid() -> int:
    """A worker uid of this grader process that no process holds (checked, not assumed)."""
    for _ in range(64):
        uid = UID_BASE + (os.getpid() % UID_PIDS) * 64 + next(_UID_SLOTS) % 64
        if not _uid_busy(uid):
            return uid
    raise SandboxError("no free worker uid: every uid of this grader's range runs a process")


def _set_subreaper() -> None:
    """Orphans of a worker become this process's children instead of init's (rlimits mode),
    so cleanup can find and reap them."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def read_bwrap_info(fd: int) -> dict:
    """What bubblewrap wrote to --info-fd (the sandbox's PID namespace), without blocking."""
    data = b""
    try:
        os.set_blocking(fd, False)
        while len(data) < 4096:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    except (BlockingIOError, OSError):
        pass
    try:
        info = json.loads(data.decode("utf-8") or "{}")
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _has_marker(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return needle in f.read().split(b"\0")
    except OSError:
        return False


@dataclass
class LaunchPlan:
    """One worker start, as its cleanup needs to know it (made by ``launch.plan``)."""

    argv: list[str]
    env: dict
    cwd: str
    preexec: object
    mode: str
    uid: int | None
    marker: str
    work: Path | None = None      # rlimits mode: this start's work folder on the host
    start_tick: int = 0           # the worker's start time (set once it runs)
    pid_ns: str | None = None     # bwrap: the sandbox's PID namespace (from --info-fd)
    cgroup: "MemoryCgroup | None" = None   # every process of this start, memory counted together


def _leftovers(proc: subprocess.Popen, launch: LaunchPlan) -> list[int]:
    """Processes the worker started that still live; zombies of ours are reaped on the way.

    Only processes that provably belong to this worker count: in its PID namespace (bwrap),
    of its private uid (checked free before it started), in its session, carrying its
    environment marker, or orphans it left to this (subreaper) process since it started.
    """
    me = os.getpid()
    needle = f"{MARKER}={launch.marker}".encode()
    out = []
    for p in _processes():
        if p.pid in (me, proc.pid):
            continue
        orphan = p.ppid == me and p.start >= launch.start_tick > 0
        if p.state in "ZX":
            if orphan:
                try:
                    os.waitpid(p.pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            continue
        ours = (orphan or (launch.uid is not None and launch.uid in p.uids)
                or (launch.pid_ns is not None and _pid_ns(p.pid) == launch.pid_ns)
                or (launch.mode != "bwrap" and (p.sid == proc.pid or _has_marker(p.pid, needle))))
        if ours:
            out.append(p.pid)
    return out


def kill_leftovers(proc: subprocess.Popen, launch: LaunchPlan) -> None:
    """Kill the worker and everything it started, confirm they are gone, then remove the
    work folder of that start (``--sandbox none`` and ``container``; bubblewrap's tmpfs dies
    with the sandbox).

    Raises :class:`SandboxError` when something of the worker still runs after
    ``CONFIRM_SECONDS`` (the grader's own failure: grading must not go on beside it).
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=CONFIRM_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + CONFIRM_SECONDS
    pause = 0.001      # a killed worker takes a few ms to exit: look again soon, then less often
    for rounds in itertools.count():
        left = _leftovers(proc, launch)
        if not left:
            _remove_work(launch)
            return
        if time.monotonic() > deadline:
            raise SandboxError(f"{len(left)} process(es) started by the submission could not "
                               "be stopped")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if rounds >= 2 and launch.uid is not None:   # still there: what forks as fast as
            _kill_uid(launch.uid)                   # it is killed (one fork of this process)
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def _remove_work(launch: LaunchPlan) -> None:
    """The work folder of a worker start that is confirmed gone, whatever it left there: what
    a worker writes dies with it, as under bubblewrap. Kept until the submission's scratch
    folder went, the folders of every start added up (on /dev/shm, memory: 150 MiB left by
    each start of a worker that writes and crashes, none of it in a live memory cgroup).
    rmtree works through directory descriptors and never follows a link; a folder the worker
    made unreadable is opened again (its uid is gone, the grader owns the parent)."""
    work = launch.work
    if work is None:
        return
    shutil.rmtree(work, ignore_errors=True)
    if os.path.lexists(work) and not os.path.islink(work):
        def opened(path: str) -> None:
            try:
                os.chmod(path, 0o700, follow_symlinks=False)
            except (OSError, NotImplementedError):
                pass

        opened(str(work))
        for top, dirs, _ in os.walk(work):    # top down: each folder opened before it is read
            for d in dirs:
                opened(os.path.join(top, d))
        shutil.rmtree(work, ignore_errors=True)


def _kill_uid(uid: int) -> None:
    """As root: every process of the worker's private uid (forks, setsid'd daemons)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
