"""Build a CUDA kernel source into a host shared library for the CPU executor.

The .cu text is compiled unchanged except for one rewrite (``extern __shared__ T name[];``
becomes a pointer to the launch's dynamic shared buffer), with ``prelude.h`` in front and
``runtime.cpp`` plus one launch stub per ``__global__`` function behind it. Builds are cached
by the SHA-256 of everything that goes into them (sources, flags, compiler version) under
``$ANDREA_GPU_CACHE`` or ``$XDG_CACHE_HOME/andrea-conformance/executor`` (default
``~/.cache/andrea-conformance/executor``), so a second run of the test suite compiles nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
PRELUDE = HERE / "prelude.h"
RUNTIME = HERE / "runtime.cpp"

#: Flags for the host compiler. -O1 keeps builds fast on 2 cores; _FORTIFY_SOURCE is off because
#: its longjmp check rejects the jump from a fiber's signal handler back to the launcher.
CXXFLAGS = ("-std=c++17", "-O1", "-g0", "-fPIC", "-shared", "-U_FORTIFY_SOURCE",
            "-D_FORTIFY_SOURCE=0", "-fno-strict-aliasing", "-w")

_KERNEL_RE = re.compile(
    r"__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(")
_DYN_SHARED_RE = re.compile(
    r"extern\s+__shared__\s+((?:__align__\s*\(\s*\d+\s*\)\s*)?)([A-Za-z_][\w\s]*?)\s+"
    r"([A-Za-z_]\w*)\s*\[\s*\]\s*;")


class BuildError(RuntimeError):
    """The host compiler rejected a kernel source; ``log`` holds its output."""

    def __init__(self, name: str, log: str):
        self.log = log
        super().__init__(f"the CPU executor could not compile {name}:\n{log.strip()}")


def kernel_names(source: str) -> list[str]:
    """Names of the ``__global__`` functions of a CUDA source, in order of appearance."""
    names = []
    for m in _KERNEL_RE.finditer(_strip_comments(source)):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def _rewrite(source: str) -> str:
    def dyn(m: re.Match) -> str:
        typ, name = " ".join(m.group(2).split()), m.group(3)
        return f"{typ} *{name} = ({typ} *)::andrea_exec::dynamic_shared();"
    return _DYN_SHARED_RE.sub(dyn, source)


def translation_unit(source: str, name: str) -> str:
    """The C++ text the host compiler sees for one kernel source."""
    stubs = "\n".join(f"ANDREA_STUB({k})" for k in kernel_names(source))
    safe = name.replace("\\", "/").replace('"', "")
    return (f'#include "{PRELUDE}"\n#line 1 "{safe}"\n{_rewrite(source)}\n'
            f'#line 1 "andrea_exec_runtime.cpp"\n#include "{RUNTIME}"\n{stubs}\n')


def cache_dir() -> Path:
    """Where built libraries are kept (created on first use).

    A sandboxed grading worker may have no writable home: then a per-user folder under the
    system's temporary directory is used instead.
    """
    if os.environ.get("ANDREA_GPU_CACHE"):
        base = Path(os.environ["ANDREA_GPU_CACHE"])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = Path(xdg) / "andrea-conformance" / "executor"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"andrea-conformance-executor-{os.getuid()}"
    fallback.mkdir(mode=0o700, exist_ok=True)
    st = fallback.stat()
    if st.st_uid != os.getuid() or st.st_mode & 0o022:  # someone else's: never load from it
        return Path(tempfile.mkdtemp(prefix="andrea-conformance-executor-"))
    return fallback


@lru_cache(maxsize=None)
def _compiler() -> tuple[str, str]:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise BuildError("(no compiler)", "no C++ compiler found: install g++ or set CXX")
    ver = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return cxx, ver.splitlines()[0] if ver else cxx


def build(source: str, name: str = "kernel.cu") -> Path:
    """Compile `source` (CUDA text) for the executor; return the cached shared library's path.

    Raises BuildError with the compiler's log when the source does not compile.
    """
    cxx, version = _compiler()
    unit = translation_unit(source, name)
    key = hashlib.sha256("\0".join(
        [unit, PRELUDE.read_text(), RUNTIME.read_text(), " ".join(CXXFLAGS), version]).encode()
    ).hexdigest()[:24]
    out = cache_dir() / f"{Path(name).stem}-{key}.so"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(prefix="andrea-exec-") as tmp:
        src = Path(tmp) / "unit.cpp"
        src.write_text(unit)
        tmp_out = Path(tmp) / "lib.so"
        env = {**os.environ, "LC_ALL": "C"}  # plain ASCII quotes in the log, whatever the locale
        proc = subprocess.run([cxx, *CXXFLAGS, "-o", str(tmp_out), str(src)],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise BuildError(name, proc.stderr or proc.stdout)
        partial = out.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(tmp_out, partial)
        os.replace(partial, out)  # atomic: concurrent builders never see half a library
    return out
