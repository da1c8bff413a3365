"""Hostile (information): look for the host's paths from inside the sandbox.

Everything a process can read about itself and its sandbox: /proc's mount table
(`mountinfo` names the source of every bind mount in its file system: the checkout's virtual
environment, the grader's scratch folder), the memory map, the environment and command line of
itself and of the sandbox's first process (bubblewrap's own command line, every bound path on
it), its cgroup, its links (exe, cwd, fds), and Python's own view (sys.executable, sys.prefix,
sys.path, the modules' files). The test writes the strings to look for into NEEDLES (the
checkout, the virtual environment, the interpreter's installation, the home folder, the
temporary folder's scratch names, /work); it prints, for each place, the needles found there.
norm() is correct.

Expected: nothing found anywhere (/proc is not mounted in the sandbox; the interpreter and the
packages are mounted under neutral names) and norm passes.
"""
import json
import os
import re
import sys

NEEDLES = []

_found = {}
_read = []


def _look(where, text):
    # a needle counts where a path starts with it (/work, not /sandbox/work)
    hits = sorted({n for n in NEEDLES if n and re.search(r"(?<![\w.~/-])" + re.escape(n), text)})
    if hits:
        _found[where] = hits


_files = ["/proc/self/mountinfo", "/proc/self/mounts", "/proc/self/maps", "/proc/self/smaps",
          "/proc/self/environ", "/proc/self/cmdline", "/proc/self/cgroup", "/proc/self/status",
          "/proc/1/cmdline", "/proc/1/environ", "/proc/1/mountinfo", "/proc/1/maps",
          "/proc/mounts", "/etc/mtab"]
# every process of a sandbox (a few); on a host (the test's run without a sandbox) the first 64
_pids = sorted(int(p) for p in (os.listdir("/proc") if os.path.isdir("/proc") else [])
               if p.isdigit())[:64]
for _pid in _pids:
    _files += [f"/proc/{_pid}/cmdline", f"/proc/{_pid}/environ", f"/proc/{_pid}/mountinfo"]
for _name in _files:
    try:
        with open(_name, "rb") as _f:
            _look(_name, _f.read(1 << 20).decode("utf-8", "replace"))
        _read.append(_name)
    except OSError:
        pass
for _name in ("/proc/self/exe", "/proc/self/cwd", "/proc/self/root", "/proc/1/exe",
              *(f"/proc/self/fd/{fd}" for fd in range(64))):
    try:
        _look(_name, os.readlink(_name))
        _read.append(_name)
    except OSError:
        pass
_look("sys", json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix,
                         sys.path, getattr(sys, "_base_executable", ""), os.getcwd(),
                         dict(os.environ)]))
import numpy  # noqa: E402

_look("modules", json.dumps(sorted(str(getattr(m, "__file__", "") or "")
                                   for m in list(sys.modules.values()))))
print("PATHS-REPORT " + json.dumps({"found": _found, "read": len(_read)}, sort_keys=True),
      flush=True)


def norm(v):
    return float(numpy.linalg.norm(numpy.asarray(v, dtype=numpy.float64)))
