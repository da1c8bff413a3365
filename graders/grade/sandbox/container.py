"""The container mode (``--sandbox container``): for disposable containers that grade one
submission and are thrown away, where bubblewrap cannot run. The worker runs under a uid of
its own; the grader's files are made root-only and the shared writable folders closed to
others, and a process under a worker uid checks both before anything of a submission runs.
Never chosen unless asked for (``choose_mode('container')``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from .errors import IsolationUnavailable
from .features import _python
from .mounts import PROJECT_ROOT, _site_dirs, kit_package_locations
from .processes import _allocate_uid
from .scratch import _traversable

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
    the checks, the spec, the grader), the installed package's metadata, the project's source
    tree where the grader runs from one (`_checkout_entries`), `protect` and the paths of
    ``$ANDREA_PROTECT``; each once, those that exist."""
    import glob

    cands: list[str] = [str(p) for p in kit_package_locations()]
    for site in _site_dirs():
        cands += glob.glob(str(site / "andrea_conformance*"))
    cands += _checkout_entries()
    cands += [str(p) for p in protect if p]
    cands += [p for p in os.environ.get(PROTECT_ENV, "").split(":") if p]
    out: list[Path] = []
    for c in cands:
        p = Path(os.path.realpath(c))
        if p.exists() and p not in out:
            out.append(p)
    return out


def _checkout_entries() -> list[str]:
    """Where the grader runs from the project's source tree (a checkout with an editable
    install): every top-level entry of that tree but the folders the worker's interpreter and
    packages lie in (a virtual environment inside it) and links (a link's target is not the
    tree's). The tree holds whole correct solutions (examples/submissions, tests/corpus), the
    mutants, and in .git every version of the reference: a container-mode worker found the
    tree from the grader's command line in /proc and ran correct_student.py as its own."""
    import sys

    root = PROJECT_ROOT
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if 'name = "andrea-conformance"' not in text:
        return []
    needed = [Path(os.path.realpath(p)) for p in (_python()[1], sys.prefix, *_site_dirs())]
    out: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.is_symlink():
            continue
        real = Path(os.path.realpath(entry))
        if not any(real == n or real in n.parents for n in needed):
            out.append(str(entry))
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
