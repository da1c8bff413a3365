"""One worker start: its command line, environment and pre-exec limits (:func:`plan`)."""

from __future__ import annotations

import os
import sys
import time

from graders.conformance.sources import ALLOWED_PACKAGES, KIT_PACKAGES

from . import features
from .features import _python
from .limits import Limits, MemoryCgroup, _make_preexec
from .mounts import IN_SANDBOX, _bwrap_prefix, _site_args, _site_entries, sandbox_python
from .processes import MARKER, LaunchPlan, _allocate_uid, _processes, _set_subreaper
from .scratch import (CELLS_FILE, KERNEL_LOADER, Scratch, WORKER, _fresh_work_dir, _link_site,
                      _traversable)

# The one list of packages a submission may not import (passed to the worker's import guard;
# an attempt is reported as "forbidden"). The test tooling is only left out of the sandbox's
# site folder: libraries probe for pytest with try/except, and such a probe must not count
# against a submission.
FORBIDDEN_MODULES = KIT_PACKAGES
# A kernel's worker imports the kernel runtime (its own copy of andrea_gpu's host code).
KERNEL_FORBIDDEN = tuple(m for m in FORBIDDEN_MODULES if m != "andrea_gpu")


def _worker_uid(mode: str, prefix: str) -> int | None:
    """As root, a private uid (bwrap and container always; rlimits when others can read the
    interpreter)."""
    if os.geteuid() == 0 and (mode in ("bwrap", "container") or _traversable(prefix)):
        return _allocate_uid()
    return None


def plan(scratch: Scratch, limits: Limits, mode: str, functions: list[str], *,
         info_fd: int | None = None) -> LaunchPlan:
    """The command line, environment and pre-exec limits of one worker start."""
    exe, prefix = _python()
    is_root = os.geteuid() == 0
    uid = _worker_uid(mode, prefix)
    work_host = None
    if mode == "bwrap":
        # the kernel runtime is in runtime/kernel; NVRTC (and CuPy) in site
        site = _site_args(_site_entries(scratch.kernel))
        base = _bwrap_prefix(features.bwrap_path(), scratch.dirs, site, gpu=scratch.kernel,
                             disk_bytes=limits.max_disk_mb << 20, info_fd=info_fd)
        inside = {k: f"{IN_SANDBOX}/{k}" for k in ("runtime", "submission", "work", "site")}
        cwd = str(scratch.root)
    else:
        base = []
        _link_site(scratch)
        work_host = _fresh_work_dir(scratch, uid)
        inside = {k: str(v) for k, v in scratch.dirs.items()}
        inside["work"] = str(work_host)
        cwd = str(work_host)
        if uid is None:
            _set_subreaper()
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    # -s -S -P: no user or site packages, no script folder on sys.path (Python 3.10 has no
    # -P: the worker takes its folder off sys.path itself); unlike -I the environment (which
    # we build from scratch) still counts, for PYTHONHASHSEED and friends.
    flags = ["-s", "-S", "-P"] if sys.version_info >= (3, 11) else ["-s", "-S"]
    extra_env: dict[str, str] = {}
    if mode == "bwrap":   # the interpreter as the sandbox mounts it
        exe, extra_env = sandbox_python()
    argv = base + [exe, *flags, f"{inside['runtime']}/{WORKER}",
                   "--runtime", inside["runtime"],
                   "--module", f"{inside['submission']}/{scratch.module_rel}",
                   "--files", inside["submission"],
                   "--site", inside["site"], "--functions", ",".join(functions)]
    if uid is not None:
        argv += ["--drop-uid", str(uid)]
    # the seccomp filter (worker.confine: no sockets, namespaces, mounts, ptrace); required
    # in bubblewrap (probed: libseccomp), where it can be installed otherwise
    argv += ["--confine" if mode in ("bwrap", "container") else "--confine-if-possible"]
    if mode == "rlimits":
        # the other workers of a batch run as the same uid: none may open this one's call
        # region or memory through /proc/<pid> (under bubblewrap they cannot see each other,
        # and the grader reads the sandbox's PID namespace through /proc/<pid>/ns)
        argv += ["--undumpable"]
    if scratch.cells:
        argv += ["--cells-file", f"{inside['runtime']}/{CELLS_FILE}"]
    if scratch.kernel:
        argv += ["--kernel", "--kernel-loader", KERNEL_LOADER,
                 "--forbid", ",".join(KERNEL_FORBIDDEN)]
    else:
        argv += ["--forbid", ",".join(FORBIDDEN_MODULES),
                 "--allow", ",".join(ALLOWED_PACKAGES)]
    work = inside["work"]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "HOME": work, "TMPDIR": f"{work}/tmp", "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1", "MPLBACKEND": "Agg", MARKER: marker, **extra_env,
    }
    nproc = limits.max_processes
    if uid is None and not is_root:
        nproc += sum(os.getuid() in p.uids for p in _processes())
    cgroup = MemoryCgroup.create(limits.memory_mb << 20)
    preexec = _make_preexec(limits, nproc, cgroup)
    return LaunchPlan(argv=argv, env=env, cwd=cwd, preexec=preexec, mode=mode, uid=uid,
                      marker=marker, work=work_host, cgroup=cgroup)
