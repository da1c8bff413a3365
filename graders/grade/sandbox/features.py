"""What this machine offers a sandbox: the base interpreter and bubblewrap's options.

bubblewrap is probed by feature, never by version (``bwrap --help`` lists the options the
installed one has); ``ANDREA_BWRAP`` names the bwrap to use, else PATH's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from .limits import MemoryCgroup


def _python() -> tuple[str, str]:
    """(real path of the base interpreter, its installation prefix)."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)

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
