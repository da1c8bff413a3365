"""How a worker process is started and stopped: limits, scratch folder, environment, bubblewrap.

Untrusted code runs only where it can neither signal, trace nor read the grader, nor write
anything the grader later trusts. ``choose_mode`` decides, once per grader process:

* ``bwrap`` (``--sandbox auto`` or ``bwrap``): the worker runs in bubblewrap with new mount,
  PID, network, IPC and UTS namespaces: an empty root with read-only binds of /usr, the Python
  installation, the installed packages (minus the kit's own and the test tooling),
  the worker's runtime and the submission copy. The
  only writable place is one size-limited tmpfs (``Limits.max_disk_mb``) holding the worker's
  home, ``/tmp`` and ``/dev/shm``; it is new for every worker start and vanishes with it. The
  project, the spec, answers, the gradebook and result files do not exist in there. Run as
  root, the worker drops to a uid of its own (checked to own no process) before it imports
  the submission; as another user, bubblewrap maps it into a user namespace.
* ``rlimits`` (``--sandbox none``): no namespaces, for **trusted code only** (your own
  reference solutions, tests of the grader). The same limits, fresh folders, scrubbed
  environment and import guard, and a private uid where the grader is root and the
  interpreter is readable by others; but no private /tmp, no write quota, and without a
  private uid the code can signal the grader. ``auto`` never falls back to it: where
  bubblewrap cannot run, grading **fails closed** with :class:`IsolationUnavailable`.

Both set rlimits (CPU seconds, address space, processes, file size, open files, no core
files), a parent-death signal and a new session; :func:`kill_leftovers` then kills the worker
and everything it started, and confirms they are gone before it returns.
"""

from __future__ import annotations

import ctypes
import importlib.util
import itertools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from graders.conformance.limits import (CALL_SECONDS, CHECK_SECONDS, MAX_TIMEOUTS_PER_FUNCTION,
                                        TOTAL_SECONDS)
from graders.conformance.sources import ALLOWED_PACKAGES, FORBIDDEN_PACKAGES, KIT_PACKAGES

log = logging.getLogger("andrea_grade")

HERE = Path(__file__).resolve().parent
#: The worker's runtime: this package, copied whole into the sandbox (runtime/andrea_runtime).
RUNTIME_PACKAGE = "andrea_runtime"
WORKER = f"{RUNTIME_PACKAGE}/worker.py"
# The one list of packages a submission may not import (passed to the worker's import guard;
# an attempt is reported as "forbidden"). The test tooling is only left out of the sandbox's
# site folder: libraries probe for pytest with try/except, and such a probe must not count
# against a submission.
FORBIDDEN_MODULES = KIT_PACKAGES
# A kernel's worker imports the kernel runtime (its own copy of andrea_gpu's host code).
KERNEL_FORBIDDEN = tuple(m for m in FORBIDDEN_MODULES if m != "andrea_gpu")
IN_SANDBOX = "/sandbox"
UID_BASE = 200_000         # worker uids: UID_BASE + (pid % UID_PIDS) * 64 + slot
UID_PIDS = 1 << 22
MARKER = "ANDREA_GRADE_WORKER"
CONFIRM_SECONDS = 5.0      # how long cleanup may take before it is the grader's own error
_UID_SLOTS = itertools.count()
_WORK_DIRS = itertools.count()


class IsolationUnavailable(RuntimeError):
    """Untrusted code cannot be isolated here; the message says why and how to fix it."""


class SandboxError(BaseException):
    """The grader itself could not start or stop a worker (never the submission's fault).

    A BaseException, like the implementation faults, so that no check and no Hypothesis
    machinery swallows it: grading stops and reports the grader's own error.
    """


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


# ----------------------------------------------------------------------------- probing
_PROBE: dict[str, tuple[bool, str]] = {}
_PROBING: dict[str, subprocess.Popen] = {}     # a probe started, not yet asked for


def _python() -> tuple[str, str]:
    """(real path of the base interpreter, its installation prefix)."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def _site_dirs() -> list[Path]:
    """The site-packages folders of the grader's environment (where NumPy is, purelib, platlib)."""
    import sysconfig

    import numpy

    out: list[Path] = []
    for d in (Path(numpy.__file__).resolve().parent.parent,
              *(Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib"))):
        d = d.resolve()
        if d.is_dir() and d not in out:
            out.append(d)
    return out


def _package_dirs(names=None) -> list[Path]:
    """What a submission may import: every installed top-level package, module and bundled
    library folder (numpy.libs) of the grader's site-packages, except the kit's own packages
    and the test tooling (``sources.FORBIDDEN_PACKAGES``), their metadata and ``.pth`` hooks.

    `names` restricts the list to those packages (with their ``.libs`` folders).
    """
    out: list[Path] = []
    seen: set[str] = set()
    kit = None
    sites = _site_dirs()
    for site in sites:
        for entry in sorted(site.iterdir()):
            name = entry.name
            top = name.split(".", 1)[0].split("-", 1)[0]
            if name in seen or _left_out(name):
                continue
            if names is not None and top not in names and top.capitalize() not in names:
                continue
            if not (entry.is_dir() or entry.suffix in (".py", ".so")):
                continue
            if entry.is_symlink():
                # a link is judged by what it leads to as well: `hyp -> hypothesis` would bring
                # the test tooling in under its own name, `tools -> /src/kit/andrea_ref` the kit
                entry = entry.resolve()
                if kit is None:
                    kit = _kit_locations(["/"])
                if _left_out(entry.name) or entry.name in seen or (
                        entry.parent not in sites
                        and any(entry == k or k in entry.parents for k in kit)):
                    continue
            seen.add(entry.name)
            out.append(entry)
    return out


def _left_out(name: str) -> bool:
    """Whether the site-packages entry `name` stays out of the worker's site folder."""
    top = name.split(".", 1)[0].split("-", 1)[0]
    return (name.startswith((".", "__")) or name.endswith((".pth", ".egg-link"))
            or top in FORBIDDEN_PACKAGES or top.startswith("andrea_conformance")
            or top.startswith("andrea_selfcheck"))


def _kit_locations(roots) -> list[Path]:
    """Folders of the kit's own packages (and of its source tree) that lie inside one of
    `roots` (folders the sandbox binds whole), on the host's real paths."""
    cands = [HERE.parent.parent] if (HERE.parent.parent / "pyproject.toml").is_file() else []
    for name in KIT_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            cands += [Path(loc) for loc in (spec.submodule_search_locations or [])]
    return _inside(cands, roots)


def _inside(cands, roots) -> list[Path]:
    """The folders of `cands` that lie inside one of `roots` (or are one), on their real paths,
    each once."""
    real_roots = [Path(os.path.realpath(r)) for r in roots if os.path.isdir(r)]
    out: list[Path] = []
    for c in cands:
        c = Path(os.path.realpath(c))
        if c.is_dir() and c not in out and any(c == r or r in c.parents for r in real_roots):
            out.append(c)
    return out


def _package_folders(roots) -> list[Path]:
    """The site-packages and dist-packages folders of the Python installations (the grader's
    interpreter, the system's) that lie inside one of `roots`, on the host's real paths."""
    import glob

    bases = {sys.base_prefix, sys.prefix, _python()[1], "/usr", "/usr/local"}
    cands: list[str] = []
    for base in sorted(bases):
        for lib in ("lib", "lib64"):
            for pat in ("python3*/site-packages", "python3*/dist-packages"):
                cands += sorted(glob.glob(os.path.join(base, lib, pat)))
    return _inside(cands, roots)


#: Where the grader finds bubblewrap: this variable's path, else ``bwrap`` on PATH.
BWRAP_ENV = "ANDREA_BWRAP"
#: The options of bubblewrap every worker start uses (bubblewrap 0.5 and newer have them all).
#: The others are used where the installed bubblewrap has them (``bwrap --help`` lists them):
#: ``--size`` (0.7) bounds each tmpfs; without it the writable tmpfs is bounded by the worker's
#: memory cgroup and made writable with ``--chmod``; ``--info-fd``, ``--unshare-cgroup-try``
#: and ``--dev-bind-try`` are left out where missing.
BWRAP_REQUIRED = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--die-with-parent", "--new-session", "--ro-bind", "--ro-bind-try",
                  "--symlink", "--dir", "--perms", "--tmpfs", "--remount-ro", "--proc", "--dev",
                  "--chdir")
_FEATURES: dict[str, tuple[str, frozenset]] = {}


def bwrap_path() -> str | None:
    """The bubblewrap the grader uses: ``$ANDREA_BWRAP`` where set, else ``bwrap`` on PATH."""
    exe = os.environ.get(BWRAP_ENV)
    if exe:
        return exe if os.path.isfile(exe) and os.access(exe, os.X_OK) else None
    return shutil.which("bwrap")


def bwrap_features(exe: str | None = None) -> tuple[str, frozenset]:
    """(version, the options the installed bubblewrap knows), read from ``bwrap --version``
    and ``bwrap --help`` (cached per executable): probed, never assumed from the version."""
    import re

    exe = exe or bwrap_path()
    if exe is None:
        return "", frozenset()
    if exe not in _FEATURES:
        texts = []
        for arg in ("--version", "--help"):
            try:
                p = subprocess.run([exe, arg], stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=10, cwd="/", env={"PATH": "/usr/bin:/bin"})
                texts.append((p.stdout + p.stderr).decode("utf-8", "replace"))
            except (OSError, subprocess.TimeoutExpired):
                texts.append("")
        version = (texts[0].split() or ["bubblewrap", "(unknown version)"])[-1][:40]
        opts = frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", texts[1]))
        _FEATURES[exe] = (version, opts)
    return _FEATURES[exe]


def _has(option: str) -> bool:
    return option in bwrap_features()[1]


def _lacking(exe: str) -> str:
    """Why the bubblewrap at `exe` cannot isolate a worker whatever the system allows, or ''."""
    version, opts = bwrap_features(exe)
    missing = [o for o in BWRAP_REQUIRED if o not in opts]
    if not opts:
        return f"{exe} does not answer --help as bubblewrap does"
    if missing:
        return (f"bubblewrap {version} at {exe} lacks the option(s) {' '.join(missing)}, "
                "which the sandbox needs (bubblewrap 0.5 or newer has them)")
    if "--size" not in opts:
        if "--chmod" not in opts:
            return (f"bubblewrap {version} at {exe} has neither --size nor --chmod, so the "
                    "sandbox's writable folder cannot be made")
        if MemoryCgroup._find_base() is None:
            return (f"bubblewrap {version} at {exe} cannot bound the size of the sandbox's "
                    "writable tmpfs (it has no --size, which bubblewrap 0.7 added), and no "
                    "memory cgroup can be made here to bound it instead")
    return ""


def _empty_ro(path: str) -> list[str]:
    """bubblewrap options: an empty, read-only tmpfs over `path` (hides what is there)."""
    if _has("--size"):
        return ["--perms", "0555", "--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return ["--tmpfs", path, "--remount-ro", path]


def _writable_tmpfs(path: str, size: int) -> list[str]:
    """bubblewrap options: a tmpfs at `path` any uid may write to (mode 01777), of `size`
    bytes where bubblewrap can say so (``--size``); without it (bubblewrap 0.6) it is
    unbounded as a file system, and what the worker writes there counts against its memory
    cgroup (required then: :func:`_lacking`), each file against RLIMIT_FSIZE."""
    if _has("--size"):
        return ["--perms", "01777", "--size", str(size), "--tmpfs", path]
    return ["--tmpfs", path, "--chmod", "01777", path]


def _has_cap_sys_admin() -> bool:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> 21 & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _userns_blocker() -> str:
    """The system setting that forbids unprivileged user namespaces here, or ''."""
    for path, bad in (("/proc/sys/kernel/unprivileged_userns_clone", "0"),
                      ("/proc/sys/user/max_user_namespaces", "0"),
                      ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1")):
        try:
            if Path(path).read_text().strip() == bad:
                return f"{path[len('/proc/sys/'):].replace('/', '.')} = {bad}"
        except OSError:
            pass
    return ""


def probe_bwrap() -> tuple[bool, str]:
    """Whether bubblewrap can start the interpreter here, as a worker would (cached; waits for
    a probe :func:`start_probe` began)."""
    if "bwrap" in _PROBE:
        return _PROBE["bwrap"]
    start_probe()
    proc = _PROBING.pop("bwrap", None)
    if proc is not None:
        try:
            _, err = proc.communicate(timeout=20)
            ok = proc.returncode == 0
            why = "" if ok else (err.decode(errors="replace").strip().splitlines()
                                 or [f"exit status {proc.returncode}"])[-1]
            _PROBE["bwrap"] = (ok, why[:300])
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            proc.wait()
            _PROBE["bwrap"] = (False, f"{type(exc).__name__}: {exc}")
    return _PROBE["bwrap"]


def start_probe() -> None:
    """Start probing bubblewrap in the background, unless its answer is known or coming."""
    if "bwrap" in _PROBE or "bwrap" in _PROBING:
        return
    exe = bwrap_path()
    if exe is None:
        where = os.environ.get(BWRAP_ENV)
        _PROBE["bwrap"] = (False, f"{BWRAP_ENV}={where} is not an executable file" if where
                           else "bubblewrap (bwrap) is not installed")
        return
    lacking = _lacking(exe)
    if lacking:
        _PROBE["bwrap"] = (False, lacking)
        return
    cmd = _bwrap_prefix(exe, {}, site=[], disk_bytes=1 << 20) + [
        _python()[0], "-I", "-S", "-c", "import ctypes; ctypes.CDLL('libseccomp.so.2')"]
    # (libseccomp: the worker's seccomp filter, worker.confine)
    try:
        _PROBING["bwrap"] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                             cwd="/", env={"PATH": "/usr/bin:/bin"})
    except OSError as exc:
        _PROBE["bwrap"] = (False, f"{type(exc).__name__}: {exc}")


def bwrap_not_refused() -> bool:
    """bubblewrap is installed and not known to fail here (its probe may still be running):
    a worker may start under it before :func:`choose_mode` has the probe's answer, because
    where bubblewrap cannot isolate it does not start the worker at all."""
    start_probe()
    return _PROBE.get("bwrap", (True, ""))[0]


CONTAINER_HINT = ("in a disposable container that grades one submission and is then thrown "
                  "away (Gradescope, PrairieLearn's external graders, a CI job), run as root "
                  "with --sandbox container instead (docs/grading.md)")


def refusal(why: str) -> str:
    """The one paragraph `andrea-grade` prints when it will not run untrusted code: what
    failed (`why`, bubblewrap's own words or the probe's finding) and the fix for that cause."""
    if "is not installed" in why or f"{BWRAP_ENV}=" in why:
        fix = (f"install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or point "
               f"{BWRAP_ENV} at a bwrap executable; or, {CONTAINER_HINT}")
    elif "libseccomp" in why:
        fix = ("install libseccomp, which the worker needs for its seccomp filter (no new "
               "namespaces, no sockets) "
               "(Debian/Ubuntu: apt-get install libseccomp2)")
    elif "bubblewrap" in why and ("lacks" in why or "--size" in why or "--help" in why):
        fix = (f"install bubblewrap 0.7 or newer (or point {BWRAP_ENV} at one); with 0.5 or "
               "0.6, run the grader as root so that a memory cgroup bounds what a submission "
               "writes")
    elif os.geteuid() == 0 and not _has_cap_sys_admin():
        fix = ("give the grader CAP_SYS_ADMIN, without which bubblewrap cannot create "
               "namespaces even as root: this process runs as root without it, as in a "
               "container started with Docker's default privileges (docker run --cap-add "
               "SYS_ADMIN --security-opt seccomp=unconfined, or --privileged); or, "
               + CONTAINER_HINT)
        why = f"{why}; root without CAP_SYS_ADMIN"
    elif os.geteuid() == 0:
        fix = ("allow namespaces to this process: it is root with CAP_SYS_ADMIN, so a "
               "security policy forbids them (a container's seccomp profile, AppArmor or "
               f"SELinux); or, {CONTAINER_HINT}")
    else:
        blocker = _userns_blocker()
        fix = ("let bubblewrap create namespaces: run the grader as root, or as a normal user "
               "on a system that allows unprivileged user namespaces"
               + (f" (here {blocker} forbids them)" if blocker else
                  " (sysctl kernel.unprivileged_userns_clone=1, "
                  "kernel.apparmor_restrict_unprivileged_userns=0)")
               + ", or with a bubblewrap installed setuid")
    return (f"refusing to run untrusted code: the worker cannot be isolated here ({why}). "
            "Without isolation a submission could signal or trace the grader, read the "
            "reference, forge its score or fill the disk, so andrea-grade fails closed. "
            f"To fix it, {fix}. Only for code you trust (your own solutions), "
            "--sandbox none runs it without isolation (unsafe).")


def choose_mode(requested: str = "auto", protect=()) -> tuple[str, str]:
    """(mode, note): 'bwrap'; 'container' when `requested` is 'container' (never chosen
    otherwise); or 'rlimits' for trusted code when `requested` is 'none'.

    `protect`: files of the grader beyond the kit's own (a spec file given by path) that the
    container mode makes unreadable to the worker. Raises :class:`IsolationUnavailable` (fail
    closed) when the requested isolation cannot be had.
    """
    if requested in ("none", "rlimits"):
        return "rlimits", ("no isolation (--sandbox none): for trusted code only; the code "
                           "can read and write what the grader's user can")
    if requested == "container":
        prepare_container(protect)
        return "container", ("container mode: the worker runs under a uid of its own that "
                             "cannot read the grader's files (for disposable containers)")
    if requested not in ("auto", "bwrap"):
        raise IsolationUnavailable(f"unknown sandbox {requested!r}; use auto, bwrap, container "
                                   "or none")
    ok, why = probe_bwrap()
    if ok:
        return "bwrap", ""
    raise IsolationUnavailable(refusal(why))


# ----------------------------------------------------------------------------- container mode
#: Folders any uid may write to in a usual image; the container mode takes that right from
#: others (keeping o+x, so the worker still reaches its own folder below /tmp).
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock", "/var/lock")
#: More of the grader's files (colon-separated paths) the container mode makes root-only and
#: checks: run_autograder names the zip's folder (the wheel, a spec file) here.
PROTECT_ENV = "ANDREA_PROTECT"
_CONTAINER: dict[str, str] = {}

_CONTAINER_CHECK = r"""
import json, os, sys
paths, shared = json.loads(sys.argv[1])
bad = []
for p in paths:
    try:
        if os.path.isdir(p):
            os.listdir(p)
        else:
            os.close(os.open(p, os.O_RDONLY))
        bad.append("read " + p)
    except OSError:
        pass
for d in shared:
    f = os.path.join(d, ".andrea-probe-%d" % os.getpid())
    try:
        os.close(os.open(f, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(f)
        bad.append("write in " + d)
    except OSError:
        pass
print(json.dumps(bad))
"""


def grader_files(protect=()) -> list[Path]:
    """What the worker must never read in container mode: the kit's packages (the reference,
    the checks, the spec, the grader), the installed package's metadata, `protect` and the
    paths of ``$ANDREA_PROTECT``; each once, those that exist."""
    import glob

    cands: list[str] = []
    for name in KIT_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            cands += list(spec.submodule_search_locations or [])
            if spec.origin and not spec.submodule_search_locations:
                cands.append(spec.origin)
    for site in _site_dirs():
        cands += glob.glob(str(site / "andrea_conformance*"))
    cands += [str(p) for p in protect if p]
    cands += [p for p in os.environ.get(PROTECT_ENV, "").split(":") if p]
    out: list[Path] = []
    for c in cands:
        p = Path(os.path.realpath(c))
        if p.exists() and p not in out:
            out.append(p)
    return out


def prepare_container(protect=()) -> None:
    """Make this (disposable) container safe for one worker uid, or refuse: root is needed
    (the worker's uid is switched to), the interpreter and its packages must be readable by
    others, libseccomp must load (the worker's filter), the grader's files are made root-only
    (`grader_files`: mode & ~077) and the shared writable folders closed to others; then a
    process under a worker uid checks that it can read none of them and write in none. Done
    once per grader process (the check again for new `protect` paths)."""
    import ctypes.util

    if os.geteuid() != 0:
        raise IsolationUnavailable(
            "refusing to run untrusted code: --sandbox container needs root (the worker runs "
            "under a uid of its own, which only root can switch to, and the grader's files are "
            "made readable by root only). Run as root inside the disposable container, or use "
            "bubblewrap (--sandbox auto) where it can run.")
    exe, prefix = _python()
    unreadable = [str(p) for p in [Path(prefix), *_site_dirs()] if not _traversable(str(p))]
    if unreadable:
        raise IsolationUnavailable(
            f"refusing to run untrusted code in container mode: {unreadable[0]} is not "
            "reachable by other users, so the worker's own uid cannot start Python there. "
            "Install the grader's Python where others may read it (the image's python3 and a "
            "virtual environment outside /root, as the Gradescope zip's setup.sh does).")
    if ctypes.util.find_library("seccomp") is None:
        raise IsolationUnavailable(
            "refusing to run untrusted code in container mode: libseccomp is not installed, "
            "and the worker needs it for its seccomp filter (no sockets, namespaces, mounts or "
            "ptrace). Install it (Debian/Ubuntu: apt-get install libseccomp2).")
    files = grader_files(protect)
    for path in files:
        try:
            st = os.lstat(path)
            if st.st_mode & 0o077:
                os.chmod(path, st.st_mode & ~0o077 & 0o7777)
        except OSError as exc:
            raise IsolationUnavailable(
                f"refusing to run untrusted code in container mode: {path} cannot be made "
                f"readable by root only ({exc.strerror})") from None
    shared = []
    for d in SHARED_WRITABLE:
        try:
            st = os.stat(d)
        except OSError:
            continue
        shared.append(d)
        if st.st_mode & 0o006:
            try:
                os.chmod(d, (st.st_mode & 0o7777) & ~0o006)
            except OSError:
                pass       # the check below says so
    key = json.dumps([[str(f) for f in files], shared])
    if key in _CONTAINER:
        return
    uid = _allocate_uid()
    try:
        p = subprocess.run([exe, "-I", "-S", "-c", _CONTAINER_CHECK, key], user=uid,
                           group=uid, extra_groups=[], capture_output=True, timeout=30,
                           cwd="/", env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
        bad = json.loads(p.stdout.decode() or "null") if p.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        bad, p = None, exc
    if bad is None:
        raise IsolationUnavailable(
            "refusing to run untrusted code in container mode: a process under a worker uid "
            f"could not be started to check the grader's files ({str(p)[:200]})")
    if bad:
        raise IsolationUnavailable(
            "refusing to run untrusted code in container mode: a worker's uid could still "
            f"{bad[0]} ({len(bad)} such place(s)); make it readable and writable by root only")
    _CONTAINER[key] = "checked"


#: What a kernel submission's worker gets of andrea_gpu: the package less what computes or
#: holds the reference (its kernels, ops.py, and submission.py, which reads the spec and uses
#: andrea_ref), with an __init__.py of its own (andrea_gpu's imports andrea_ref). Everything
#: else of the package goes, whatever is added to it later; bytecode never does.
KERNEL_RUNTIME_EXCLUDED = ("kernels", "ops.py", "submission.py", "__init__.py")
KERNEL_CONTRACT_FILE = "contract.json"
#: Never copied from a package folder into a worker's runtime.
_NEVER_COPIED = ("__pycache__", "*.pyc", "*.pyo")
#: Site packages of the kernel runtime: NVRTC's library always; CuPy and its dependencies only
#: where a CUDA device exists (the kernels then run on it).
KERNEL_SITE = ("nvidia",)
KERNEL_SITE_GPU = ("cupy", "cupy_backends", "cupyx", "fastrlock", "cuda")


def package_folder(name: str) -> Path:
    """The folder of the installed package `name` (found without importing it)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError(f"the package {name} is not installed with the grader")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def _copy_package(src: Path, dest: Path, excluded=()) -> None:
    """`src` copied whole to `dest` (files only, no links followed), less `excluded` names at
    its top and bytecode everywhere."""
    shutil.copytree(src, dest, symlinks=False,
                    ignore=lambda d, names: [n for n in names if (
                        Path(d) == src and n in excluded)] + list(
                        shutil.ignore_patterns(*_NEVER_COPIED)(d, names)))


def _kernel_runtime(dest: Path, contract: dict | None) -> None:
    """Write the kernel runtime (andrea_gpu less KERNEL_RUNTIME_EXCLUDED) and the contract
    (JSON) into `dest` (runtime/kernel)."""
    import json

    _copy_package(package_folder("andrea_gpu"), dest / "andrea_gpu", KERNEL_RUNTIME_EXCLUDED)
    (dest / "andrea_gpu" / "__init__.py").write_text(
        '"""The kernel runtime of a grading worker (copied by the grader)."""\n')
    (dest / KERNEL_CONTRACT_FILE).write_text(json.dumps(contract or {}))


def _site_entries(kernel: bool) -> list[Path]:
    """What goes into the worker's site folder: for Python submissions every allowed installed
    package (``_package_dirs``); for kernel submissions NumPy, SciPy and the kernel runtime's."""
    if not kernel:
        return _package_dirs()
    out: list[Path] = []
    for p in _package_dirs(names=("numpy", "scipy")) + _kernel_site_dirs():
        if p.name not in {q.name for q in out}:
            out.append(p)
    return out


def _kernel_site_dirs() -> list[Path]:
    """Folders of the site packages the kernel runtime needs (see KERNEL_SITE)."""
    names = list(KERNEL_SITE)
    if any(Path("/dev").glob("nvidia[0-9]*")):
        names += KERNEL_SITE_GPU
    out = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for loc in spec.submodule_search_locations:
            out.append(Path(loc).resolve())
            break
    return out


def _site_args(entries: list[Path]) -> list[str]:
    """bubblewrap options that make /sandbox/site hold exactly `entries` (_site_entries).

    One bind mount per package costs bubblewrap about 0.35 ms (150 packages: 50 ms of every
    worker start), so each site-packages folder that holds entries is bound once, read-only,
    at /sandbox/pkgs/N, its entries that are not allowed (the kit, the test tooling, import
    hooks) covered by an empty read-only tmpfs or by /dev/null (which cannot be opened there),
    and site/ gets one symbolic link per allowed entry. An entry outside those folders, or in a
    folder most of which is left out (a kernel's worker), is bound on its own. Python does not resolve sys.path links: modules report /sandbox/site/... as
    their location, as before."""
    sites = {d: i for i, d in enumerate(_site_dirs())}
    allowed: dict[Path, set[str]] = {}
    for e in entries:
        if e.parent in sites:
            allowed.setdefault(e.parent, set()).add(e.name)
    left_out = {d: [o for o in sorted(d.iterdir()) if o.name not in names]
                for d, names in allowed.items()}
    # where most of a folder is left out (a kernel's worker: NumPy, SciPy, NVRTC), binding
    # its few entries one by one is cheaper than covering the rest
    allowed = {d: names for d, names in allowed.items() if len(left_out[d]) <= len(names)}
    args: list[str] = ["--perms", "0755", "--dir", f"{IN_SANDBOX}/pkgs"] if allowed else []
    for d in allowed:
        at = f"{IN_SANDBOX}/pkgs/{sites[d]}"
        args += ["--ro-bind", str(d), at]
        for other in left_out[d]:
            if other.is_symlink():
                continue   # a link in site-packages leads where nothing is bound, or to an entry
            hidden = f"{at}/{other.name}"
            if other.is_dir():
                args += _empty_ro(hidden)
            else:
                args += ["--ro-bind", "/dev/null", hidden]
    for e in entries:
        inside = f"{IN_SANDBOX}/site/{e.name}"
        if e.parent in allowed:
            args += ["--symlink", f"{IN_SANDBOX}/pkgs/{sites[e.parent]}/{e.name}", inside]
        else:
            args += ["--ro-bind", str(e), inside]
    return args


def _bwrap_prefix(exe: str, dirs: dict, site: list[str], *, disk_bytes: int,
                  gpu: bool = False, info_fd: int | None = None) -> list[str]:
    """bubblewrap's options: read-only system and runtime, one size-limited writable tmpfs."""
    is_root = os.geteuid() == 0
    cmd = [exe, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
           "--die-with-parent", "--new-session"]
    if _has("--unshare-cgroup-try"):
        cmd.append("--unshare-cgroup-try")
    if not is_root:
        cmd.append("--unshare-user")
    if info_fd is not None and _has("--info-fd"):
        cmd += ["--info-fd", str(info_fd)]
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    # /etc/fonts: the system's font configuration (matplotlib's fontconfig prints an error into
    # the submission's output without it, which the student would read as theirs); /etc is
    # made searchable for the worker's own uid (bubblewrap would create it 0700)
    cmd += ["--perms", "0755", "--dir", "/etc"]
    for etc in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
                "/etc/fonts"):
        cmd += ["--ro-bind-try", etc, etc]
    _, prefix = _python()
    if not prefix.startswith("/usr/"):
        for anc in reversed(Path(prefix).parents[:-1]):  # created searchable, not 0700
            cmd += ["--perms", "0755", "--dir", str(anc)]
        cmd += ["--ro-bind", prefix, prefix]
    # The kit itself (reference, spec, grader, reference kernels) where it lies inside a folder
    # bound above, as after `pip install .` into the system's or the interpreter's own Python:
    # covered by an empty, read-only tmpfs, so that it does not exist in the sandbox either.
    # So are the package folders of every Python installation in them (the interpreter's own
    # site-packages, the system's dist-packages): pip puts pytest and hypothesis there too, and
    # a submission could put such a folder on sys.path itself. The allowed packages reach the
    # worker only through /sandbox/site (bound from the host's paths, which this cannot hide).
    bound = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", prefix]
    hide: list[Path] = []
    for h in sorted(_kit_locations(bound) + _package_folders(bound), key=lambda p: len(p.parts)):
        if not any(h == o or o in h.parents for o in hide):   # one tmpfs covers what is inside
            hide.append(h)
    for hidden in hide:
        cmd += _empty_ro(str(hidden))
    for d in (IN_SANDBOX, f"{IN_SANDBOX}/site", f"{IN_SANDBOX}/project"):
        cmd += ["--perms", "0755", "--dir", d]
    # The only writable places, new for every worker start: a tmpfs of bounded size holding
    # the home folder and /tmp, and a smaller one for /dev/shm; together `disk_bytes`.
    shm = max(disk_bytes // 4, 1 << 16)
    work = f"{IN_SANDBOX}/work"
    cmd += _writable_tmpfs(work, disk_bytes - shm)
    cmd += ["--perms", "01777", "--dir", f"{work}/tmp", "--symlink", f"{work}/tmp", "/tmp",
            "--proc", "/proc", "--dev", "/dev"]
    cmd += _writable_tmpfs("/dev/shm", shm)
    if gpu:
        for dev in sorted(Path("/dev").glob("nvidia*")):
            cmd += ["--dev-bind-try" if _has("--dev-bind-try") else "--dev-bind", str(dev),
                    str(dev)]
    if "runtime" in dirs:
        cmd += ["--ro-bind", str(dirs["runtime"]), f"{IN_SANDBOX}/runtime"]
    if "submission" in dirs:
        cmd += ["--ro-bind", str(dirs["submission"]), f"{IN_SANDBOX}/submission"]
    cmd += site
    # nothing else is writable, not even bubblewrap's own root and /dev (a user namespace
    # would own them)
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", work]
    return cmd


# ----------------------------------------------------------------------------- a prepared run
@dataclass
class Scratch:
    """The scratch folder of one submission, owned by the grader and never writable by a
    worker: runtime/ (the worker's two files), submission/ (a copy), site/ (in rlimits mode,
    links to the whitelisted packages) and, in rlimits mode only, one fresh work-N/ per worker start."""

    root: Path
    module_rel: str               # the module file, relative to submission/
    kernel: bool = False
    uid: int | None = None        # the uid the worker drops to (root only)
    dirs: dict = field(default_factory=dict)
    cells: str = ""               # a notebook: its cells' line ranges in the module (2-5,7-9)

    def cleanup(self) -> None:
        # rmtree works through directory descriptors: a symlink a worker left is removed,
        # never followed
        shutil.rmtree(self.root, ignore_errors=True)


#: The notebook's cell ranges (sources.format_ranges), in the worker's runtime folder.
CELLS_FILE = "cells.txt"


def prepare(files: dict[str, bytes], module_rel: str, *, kernel: bool = False,
            kernel_contract: dict | None = None, cells: str = "") -> Scratch:
    """Write a submission's files into a fresh scratch folder (read-only for the worker).

    kernel=True: also the kernel runtime and `kernel_contract` (the spec's ``kernels:``
    mapping) into runtime/kernel (its site packages, NVRTC's among them, are made visible at
    each worker start: _site_args, _link_site). cells: a notebook's cell
    ranges (sources.format_ranges), which the worker runs one by one.
    """
    root = Path(tempfile.mkdtemp(prefix="andrea-grade-"))
    os.chmod(root, 0o755)
    dirs = {name: root / name for name in ("runtime", "submission", "site")}
    for d in dirs.values():
        d.mkdir()
        os.chmod(d, 0o755)
    _copy_package(package_folder(RUNTIME_PACKAGE), dirs["runtime"] / RUNTIME_PACKAGE)
    base = dirs["submission"].resolve()
    for rel, data in files.items():
        target = (base / rel).resolve()
        if base not in target.parents:
            continue  # a path that would leave the folder
        for parent in reversed(target.relative_to(base).parents):
            d = base / parent
            if not d.is_dir():
                d.mkdir(mode=0o755)
                os.chmod(d, 0o755)
        target.write_bytes(data)
        os.chmod(target, 0o444)
    if kernel:
        _kernel_runtime(dirs["runtime"] / "kernel", kernel_contract)
    if cells:   # a file, not an argument: a notebook of 20,000 cells is more than argv takes
        (dirs["runtime"] / CELLS_FILE).write_text(cells, encoding="ascii")
    for d in dirs["runtime"].rglob("*"):   # read-only for everyone, the grader included
        os.chmod(d, 0o555 if d.is_dir() else 0o444)
    os.chmod(dirs["runtime"], 0o555)
    return Scratch(root=root, module_rel=module_rel, kernel=kernel, dirs=dirs, cells=cells)


def _link_site(scratch: Scratch) -> None:
    """rlimits mode: site/ as links to the allowed packages (made at the first worker start;
    under bubblewrap site/ is made inside the sandbox, see _site_args)."""
    site = scratch.dirs["site"]
    if any(site.iterdir()):
        return
    for pkg in _site_entries(scratch.kernel):
        (site / pkg.name).symlink_to(pkg)


def _fresh_work_dir(scratch: Scratch, uid: int | None) -> Path:
    """rlimits mode: a new work folder (with tmp/) for one worker start, created through a
    directory descriptor and handed to the worker's uid before the worker exists."""
    name = f"work-{next(_WORK_DIRS)}"
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    root_fd = os.open(scratch.root, flags)
    try:
        os.mkdir(name, 0o700, dir_fd=root_fd)
        work_fd = os.open(name, flags, dir_fd=root_fd)
        try:
            os.mkdir("tmp", 0o700, dir_fd=work_fd)
            if uid is not None:
                os.chown("tmp", uid, uid, dir_fd=work_fd, follow_symlinks=False)
                os.fchown(work_fd, uid, uid)
        finally:
            os.close(work_fd)
    finally:
        os.close(root_fd)
    return scratch.root / name


def _traversable(path: str) -> bool:
    """Every folder from / down to `path` is searchable by others (o+x)."""
    p = Path(path)
    for anc in [p, *p.parents]:
        try:
            if not os.stat(anc).st_mode & 0o001:
                return False
        except OSError:
            return False
    return True


# ----------------------------------------------------------------------------- processes
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


@dataclass
class LaunchPlan:
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
        base = _bwrap_prefix(bwrap_path(), scratch.dirs, site, gpu=scratch.kernel,
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
    argv = base + [exe, *flags, f"{inside['runtime']}/{WORKER}",
                   "--runtime", inside["runtime"],
                   "--module", f"{inside['submission']}/{scratch.module_rel}",
                   "--site", inside["site"], "--functions", ",".join(functions)]
    if uid is not None:
        argv += ["--drop-uid", str(uid)]
    # the seccomp filter (worker.confine: no sockets, namespaces, mounts, ptrace); required
    # in bubblewrap (probed: libseccomp), where it can be installed otherwise
    argv += ["--confine" if mode in ("bwrap", "container") else "--confine-if-possible"]
    if scratch.cells:
        argv += ["--cells-file", f"{inside['runtime']}/{CELLS_FILE}"]
    if scratch.kernel:
        argv += ["--kernel", "--forbid", ",".join(KERNEL_FORBIDDEN)]
    else:
        argv += ["--forbid", ",".join(FORBIDDEN_MODULES),
                 "--allow", ",".join(ALLOWED_PACKAGES)]
    work = inside["work"]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "HOME": work, "TMPDIR": f"{work}/tmp", "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1", "MPLBACKEND": "Agg", MARKER: marker,
    }
    nproc = limits.max_processes
    if uid is None and not is_root:
        nproc += sum(os.getuid() in p.uids for p in _processes())
    cgroup = MemoryCgroup.create(limits.memory_mb << 20)
    preexec = _make_preexec(limits, nproc, cgroup)
    return LaunchPlan(argv=argv, env=env, cwd=cwd, preexec=preexec, mode=mode, uid=uid,
                      marker=marker, work=work_host, cgroup=cgroup)


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


# ----------------------------------------------------------------------------- memory cgroup
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


# ----------------------------------------------------------------------------- cleanup
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
    """Kill the worker and everything it started, and confirm they are gone.

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
