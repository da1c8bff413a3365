"""How a worker process is started: limits, scratch folder, environment, bubblewrap.

Two modes, chosen per grader process (``--sandbox auto`` picks the strongest that works):

* ``bwrap``: the worker runs in bubblewrap with new mount, PID, network, IPC and UTS
  namespaces: an empty root with read-only binds of /usr, the Python installation, the
  whitelisted packages and the submission copy, a writable scratch folder, a private /tmp and
  no network. The project, the spec, answers and result files do not exist in there. Run as
  root, the worker drops to a uid of its own before it imports the submission.
* ``rlimits``: no namespaces (bwrap missing or refused); the same limits, scratch folder,
  scrubbed environment and import guard, but the submission can read what the grader's user
  can read. The downgrade is logged and recorded in every report.

Both set rlimits (CPU seconds, address space, processes, file size, open files, no core
files), a parent-death signal, a new session, and kill what the worker leaves behind.
"""

from __future__ import annotations

import ctypes
import importlib.util
import itertools
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

log = logging.getLogger("andrea_grade")

HERE = Path(__file__).resolve().parent
RUNTIME_FILES = ("worker.py", "protocol.py")
ALLOWED_PACKAGES = ("numpy", "scipy")
FORBIDDEN_MODULES = ("andrea_ref", "andrea_gpu", "graders", "spec")
IN_SANDBOX = "/sandbox"
UID_BASE = 200_000
MARKER = "ANDREA_GRADE_WORKER"
_UID_SLOTS = itertools.count()


@dataclass
class Limits:
    """Every limit of a grading run; the defaults are for real grading."""

    call_timeout: float = 10.0       # wall seconds for one call into the submission
    check_timeout: float = 120.0     # wall seconds for one check (all its calls)
    total_timeout: float = 900.0     # wall seconds for the whole submission
    startup_timeout: float = 30.0    # wall seconds to start a worker and import the submission
    memory_mb: int = 2048            # address space of the worker
    cpu_seconds: int = 600           # CPU seconds of one worker
    max_processes: int = 32          # processes and threads of the worker's uid
    max_file_mb: int = 16            # largest file the worker may write
    max_open_files: int = 64
    max_output_bytes: int = 1 << 20  # printing more than this is an output flood
    keep_output_bytes: int = 4096    # how much of the submission's output the report shows
    max_message_mb: int = 512        # largest reply accepted from the worker
    max_timeouts_per_function: int = 3  # after this many timeouts a function is not called again

    @classmethod
    def for_tests(cls, **over) -> "Limits":
        base = dict(call_timeout=2.5, check_timeout=30.0, total_timeout=120.0,
                    startup_timeout=10.0, memory_mb=1024, cpu_seconds=60,
                    max_timeouts_per_function=1)
        base.update(over)
        return cls(**base)


# ----------------------------------------------------------------------------- probing
_PROBE: dict[str, tuple[bool, str]] = {}


def _python() -> tuple[str, str]:
    """(real path of the base interpreter, its installation prefix)."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def _package_dirs(names=ALLOWED_PACKAGES) -> list[Path]:
    """Folders of the whitelisted packages, with their bundled-library folders (numpy.libs)."""
    out = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        pkg = Path(list(spec.submodule_search_locations)[0]).resolve()
        out.append(pkg)
        for libs in (pkg.parent / f"{name}.libs", pkg.parent / f"{name.capitalize()}.libs"):
            if libs.is_dir():
                out.append(libs.resolve())
    return out


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def probe_bwrap() -> tuple[bool, str]:
    """Whether bubblewrap can start the interpreter here (cached per process)."""
    if "bwrap" in _PROBE:
        return _PROBE["bwrap"]
    exe = bwrap_path()
    if exe is None:
        result = (False, "bwrap is not installed")
    else:
        with tempfile.TemporaryDirectory(prefix="andrea-probe-") as tmp:
            cmd = _bwrap_prefix(exe, {"work": Path(tmp)}, site=[]) + [
                _python()[0], "-I", "-S", "-c", "import os; os.getpid()"]
            try:
                p = subprocess.run(cmd, capture_output=True, timeout=20,
                                   env={"PATH": "/usr/bin:/bin"})
                ok = p.returncode == 0
                why = "" if ok else (p.stderr.decode(errors="replace").strip().splitlines()
                                     or [f"exit status {p.returncode}"])[-1]
                result = (ok, why[:300])
            except (OSError, subprocess.TimeoutExpired) as exc:
                result = (False, f"{type(exc).__name__}: {exc}")
    _PROBE["bwrap"] = result
    return result


def choose_mode(requested: str = "auto") -> tuple[str, str]:
    """(mode, note): 'bwrap' or 'rlimits', with why a requested/automatic bwrap was not used."""
    if requested == "none" or requested == "rlimits":
        return "rlimits", "namespaces disabled by --sandbox none"
    ok, why = probe_bwrap()
    if ok:
        return "bwrap", ""
    if requested == "bwrap":
        raise RuntimeError(f"--sandbox bwrap requested but bubblewrap cannot run here: {why}")
    note = f"bubblewrap unavailable ({why}); isolation downgraded to rlimits only"
    if "downgrade" not in _PROBE:
        _PROBE["downgrade"] = (True, note)
        log.warning("andrea-grade: %s", note)
    return "rlimits", note


#: What a kernel submission's worker gets of the project: the kernel runtime (host code that
#: compiles and launches a .cu, and the CPU executor), never the reference kernels, andrea_ref
#: or the spec. Paths relative to the project root -> paths inside runtime/kernel/.
KERNEL_RUNTIME = {
    "andrea_gpu/host.py": "andrea_gpu/host.py",
    "andrea_gpu/backend.py": "andrea_gpu/backend.py",
    "andrea_gpu/nvrtc.py": "andrea_gpu/nvrtc.py",
    "andrea_gpu/executor/__init__.py": "andrea_gpu/executor/__init__.py",
    "andrea_gpu/executor/build.py": "andrea_gpu/executor/build.py",
    "andrea_gpu/executor/launch.py": "andrea_gpu/executor/launch.py",
    "andrea_gpu/executor/prelude.h": "andrea_gpu/executor/prelude.h",
    "andrea_gpu/executor/runtime.cpp": "andrea_gpu/executor/runtime.cpp",
    # argument checks only (the contract's errors); no reference computation in this file
    "andrea_ref/validate.py": "andrea_validate.py",
}
KERNEL_CONTRACT_FILE = "contract.json"
#: Site packages of the kernel runtime: NVRTC's library always; CuPy and its dependencies only
#: where a CUDA device exists (the kernels then run on it).
KERNEL_SITE = ("nvidia",)
KERNEL_SITE_GPU = ("cupy", "cupy_backends", "cupyx", "fastrlock", "cuda")


def _kernel_runtime(dest: Path, contract: dict | None) -> None:
    """Write the kernel runtime and the contract (JSON) into `dest` (runtime/kernel)."""
    import json

    root = HERE.parent.parent
    for src, rel in KERNEL_RUNTIME.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / src, target)
    (dest / "andrea_gpu" / "__init__.py").write_text(
        '"""The kernel runtime of a grading worker (copied by the grader)."""\n')
    (dest / KERNEL_CONTRACT_FILE).write_text(json.dumps(contract or {}))
    for d in [dest, *dest.rglob("*")]:
        os.chmod(d, 0o755 if d.is_dir() else 0o644)


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


def _bwrap_prefix(exe: str, dirs: dict, site: list[tuple[Path, str]],
                  gpu: bool = False) -> list[str]:
    is_root = os.geteuid() == 0
    cmd = [exe, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
           "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if not is_root:
        cmd.append("--unshare-user")
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        cmd += ["--ro-bind-try", etc, etc]
    _, prefix = _python()
    if not prefix.startswith("/usr/"):
        for anc in reversed(Path(prefix).parents[:-1]):  # created searchable, not 0700
            cmd += ["--perms", "0755", "--dir", str(anc)]
        cmd += ["--ro-bind", prefix, prefix]
    for d in (IN_SANDBOX, f"{IN_SANDBOX}/site", f"{IN_SANDBOX}/project"):
        cmd += ["--perms", "0755", "--dir", d]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    if gpu:
        for dev in sorted(Path("/dev").glob("nvidia*")):
            cmd += ["--dev-bind-try", str(dev), str(dev)]
    if "runtime" in dirs:
        cmd += ["--ro-bind", str(dirs["runtime"]), f"{IN_SANDBOX}/runtime"]
    if "submission" in dirs:
        cmd += ["--ro-bind", str(dirs["submission"]), f"{IN_SANDBOX}/submission"]
    for host, inside in site:
        cmd += ["--ro-bind", str(host), inside]
    cmd += ["--bind", str(dirs["work"]), f"{IN_SANDBOX}/work", "--chdir", f"{IN_SANDBOX}/work"]
    return cmd


# ----------------------------------------------------------------------------- a prepared run
@dataclass
class Scratch:
    """The scratch folder of one submission: runtime/, submission/ (a copy), work/, site/."""

    root: Path
    module_rel: str               # the module file, relative to submission/
    kernel: bool = False
    uid: int | None = None        # the uid the worker drops to (root only)
    dirs: dict = field(default_factory=dict)

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def prepare(files: dict[str, bytes], module_rel: str, *, kernel: bool = False,
            kernel_contract: dict | None = None) -> Scratch:
    """Write a submission's files into a fresh scratch folder.

    kernel=True: also the kernel runtime and `kernel_contract` (the spec's ``kernels:``
    mapping) into runtime/kernel, and NVRTC's package into site/.
    """
    root = Path(tempfile.mkdtemp(prefix="andrea-grade-"))
    os.chmod(root, 0o755)
    dirs = {name: root / name for name in ("runtime", "submission", "work", "site")}
    for d in dirs.values():
        d.mkdir()
        os.chmod(d, 0o755)
    for name in RUNTIME_FILES:
        shutil.copyfile(HERE / name, dirs["runtime"] / name)
        os.chmod(dirs["runtime"] / name, 0o644)
    for rel, data in files.items():
        target = (dirs["submission"] / rel).resolve()
        if dirs["submission"].resolve() not in target.parents:
            continue  # a path that would leave the folder
        for parent in reversed(target.relative_to(dirs["submission"].resolve()).parents):
            d = dirs["submission"].resolve() / parent
            if not d.is_dir():
                d.mkdir(mode=0o755)
                os.chmod(d, 0o755)
        target.write_bytes(data)
        os.chmod(target, 0o644)
    for pkg in _package_dirs() + (_kernel_site_dirs() if kernel else []):
        (dirs["site"] / pkg.name).symlink_to(pkg)
    if kernel:
        _kernel_runtime(dirs["runtime"] / "kernel", kernel_contract)
    (dirs["work"] / "tmp").mkdir()
    sc = Scratch(root=root, module_rel=module_rel, kernel=kernel, dirs=dirs)
    return sc


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


def _user_process_count(uid: int) -> int:
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n


@dataclass
class LaunchPlan:
    argv: list[str]
    env: dict
    cwd: str
    preexec: object
    mode: str
    uid: int | None
    marker: str


def plan(scratch: Scratch, limits: Limits, mode: str, functions: list[str]) -> LaunchPlan:
    """The command line, environment and pre-exec limits of one worker."""
    exe, prefix = _python()
    is_root = os.geteuid() == 0
    uid = None
    if is_root and (mode == "bwrap" or _traversable(prefix)):
        uid = UID_BASE + os.getpid() * 64 + next(_UID_SLOTS) % 64
    extra_sites: list[str] = []
    if mode == "bwrap":
        site = [(pkg, f"{IN_SANDBOX}/site/{pkg.name}") for pkg in _package_dirs()]
        if scratch.kernel:  # the kernel runtime is in runtime/kernel; NVRTC (and CuPy) in site
            site += [(p, f"{IN_SANDBOX}/site/{p.name}") for p in _kernel_site_dirs()]
        base = _bwrap_prefix(bwrap_path(), scratch.dirs, site, gpu=scratch.kernel)
        inside = {k: f"{IN_SANDBOX}/{k}" for k in ("runtime", "submission", "work", "site")}
    else:
        base = []
        inside = {k: str(v) for k, v in scratch.dirs.items()}
    if uid is not None:
        os.chown(scratch.dirs["work"], uid, uid)
        os.chown(scratch.dirs["work"] / "tmp", uid, uid)
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    # -s -S -P: no user or site packages, no script folder on sys.path; unlike -I the
    # environment (which we build from scratch) still counts, for PYTHONHASHSEED and friends.
    argv = base + [exe, "-s", "-S", "-P", f"{inside['runtime']}/worker.py",
                   "--runtime", inside["runtime"],
                   "--module", f"{inside['submission']}/{scratch.module_rel}",
                   "--site", inside["site"], "--functions", ",".join(functions)]
    for extra in extra_sites:
        argv += ["--site", extra]
    if uid is not None:
        argv += ["--drop-uid", str(uid)]
    if scratch.kernel:
        argv += ["--kernel", "--forbid", "andrea_ref,graders,spec"]
    work = inside["work"]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "HOME": work, "TMPDIR": f"{work}/tmp", "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1", "MPLBACKEND": "Agg", MARKER: marker,
    }
    nproc = limits.max_processes
    if uid is None:
        nproc += _user_process_count(os.getuid()) if not is_root else 0
    preexec = _make_preexec(limits, nproc)
    return LaunchPlan(argv=argv, env=env, cwd=str(scratch.dirs["work"]), preexec=preexec,
                      mode=mode, uid=uid, marker=marker)


def _make_preexec(limits: Limits, nproc: int):
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

    def preexec():  # runs in the child between fork and exec: no allocation-heavy work
        if libc is not None:
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        for res, lim in settings:
            try:
                resource.setrlimit(res, lim)
            except (ValueError, OSError):
                pass

    return preexec


# ----------------------------------------------------------------------------- cleanup
def kill_leftovers(proc: subprocess.Popen, launch: LaunchPlan) -> None:
    """Kill the worker, its process group and whatever it left behind."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if launch.uid is not None:
        _kill_uid(launch.uid)
    _kill_marked(launch.marker)


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


def _kill_marked(marker: str) -> None:
    """Processes that still carry the worker's environment marker (rlimits mode)."""
    needle = f"{MARKER}={marker}".encode()
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
