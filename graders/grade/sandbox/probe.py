"""Whether untrusted code can be isolated here, decided once per grader process.

``choose_mode`` returns ``bwrap`` where bubblewrap starts the interpreter as a worker would
(the probe runs in the background from the first call), ``rlimits`` for trusted code with
``--sandbox none``, and otherwise fails closed with :class:`IsolationUnavailable` and the one
paragraph that names the cause and its fix (:func:`refusal`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .container import prepare_container
from .errors import IsolationUnavailable
from . import features
from .features import BWRAP_ENV, _lacking
from .mounts import _bwrap_prefix, sandbox_python

_PROBE: dict[str, tuple[bool, str]] = {}
_PROBING: dict[str, subprocess.Popen] = {}     # a probe started, not yet asked for


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
    exe = features.bwrap_path()
    if exe is None:
        where = os.environ.get(BWRAP_ENV)
        _PROBE["bwrap"] = (False, f"{BWRAP_ENV}={where} is not an executable file" if where
                           else "bubblewrap (bwrap) is not installed")
        return
    lacking = _lacking(exe)
    if lacking:
        _PROBE["bwrap"] = (False, lacking)
        return
    python, env = sandbox_python()
    cmd = _bwrap_prefix(exe, {}, site=[], disk_bytes=1 << 20) + [
        python, "-I", "-S", "-c", "import ctypes; ctypes.CDLL('libseccomp.so.2')"]
    # (libseccomp: the worker's seccomp filter, worker.confine)
    try:
        _PROBING["bwrap"] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                             cwd="/", env={"PATH": "/usr/bin:/bin", **env})
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