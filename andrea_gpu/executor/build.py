"""Build a CUDA kernel source into a host shared library for the CPU executor.

The .cu text is compiled unchanged except for one rewrite (``extern __shared__ T name[];``
becomes a pointer to the launch's dynamic shared buffer), with ``prelude.h`` in front and one
launch stub per ``__global__`` function behind it. With ``checked=True`` (the default) that
translation unit is compiled with ``-fsanitize=thread`` so that every memory access of the
kernel calls the race checker's hooks; ``runtime.cpp`` (fibers, scheduler, checker) is compiled
once, without instrumentation, and linked into every build. Builds are cached by the SHA-256 of
everything that goes into them (sources, flags, compiler version) under ``$ANDREA_GPU_CACHE`` or
``$XDG_CACHE_HOME/andrea-conformance/executor`` (default ``~/.cache/andrea-conformance/executor``),
so a second run of the test suite compiles nothing.
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

from .macros import nvrtc_defines

HERE = Path(__file__).resolve().parent
PRELUDE = HERE / "prelude.h"
#: CUDA's headers (cuda_runtime.h, math_constants.h, ...) as the executor sees them.
INCLUDE = HERE / "include"
RUNTIME = HERE / "runtime.cpp"

#: Flags for the host compiler. -O1 keeps builds fast on 2 cores; -g1 keeps line tables (race
#: reports name source lines); _FORTIFY_SOURCE is off because its longjmp check rejects the jump
#: from a fiber's signal handler back to the launcher; stack-clash protection touches every page
#: of a large stack frame in order, so a thread whose locals outgrow its fiber stack faults on
#: that stack's guard page (a stack overflow) instead of writing into another thread's stack.
CXXFLAGS = ("-std=c++17", "-O1", "-g1", "-gdwarf-4", "-fPIC", "-U_FORTIFY_SOURCE",
            "-D_FORTIFY_SOURCE=0", "-fno-strict-aliasing", "-fstack-clash-protection", "-w")
#: Extra flags of a checked kernel unit: the compiler's ThreadSanitizer instrumentation (memory
#: accesses only; the hooks are runtime.cpp's, libtsan is not linked).
CHECK_FLAGS = ("-fsanitize=thread", "--param=tsan-instrument-func-entry-exit=0")
#: The kernel's unit reaches no system header: what it may include is executor/include/ (the
#: same texts NVRTC is given, host.nvrtc_headers), and prelude.h includes nothing else.
UNIT_FLAGS = ("-nostdinc", "-nostdinc++", f"-I{INCLUDE}")


def unit_flags(checked: bool = True) -> list[str]:
    """The host compiler's flags for a kernel's translation unit."""
    return [*CXXFLAGS, *(CHECK_FLAGS if checked else ()), *UNIT_FLAGS]

# __global__ and void in either order, with __launch_bounds__(...) or __attribute__((...))
# before, between or after them.
_ATTRS = (r"(?:(?:(?:__launch_bounds__|__maxnreg__|__cluster_dims__)\s*\([^)]*\)|"
          r"__attribute__\s*\(\(.*?\)\))\s*)*")
#: A kernel template (`template <int BLOCK> __global__ void k(...)`) has no function of its own to
#: launch: only its instantiations, which the contract's extern "C" entry points call.
_TEMPLATE_TAIL_RE = re.compile(r"template\s*<[^;{}]*>\s*(?:(?:static|inline)\s+)*$")
_KERNEL_RE = re.compile(
    rf"(?:__global__\s+{_ATTRS}void|void\s+{_ATTRS}__global__)\s+{_ATTRS}([A-Za-z_]\w*)\s*\(")
#: The entry points the kernel contract's generated signature checks name (host.py appends them):
#: a kernel defined through a macro has no __global__ in its text, but the check proves it is one.
_CONTRACT_RE = re.compile(r"static_assert\(andrea_contract_same<decltype\(&([A-Za-z_]\w*)\)")
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
    text = _strip_comments(source)
    kernels = [m for m in _KERNEL_RE.finditer(text)
               if not _TEMPLATE_TAIL_RE.search(text, max(0, m.start() - 400), m.start())]
    for m in [*kernels, *_CONTRACT_RE.finditer(text)]:
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def _rewrite(source: str) -> str:
    def dyn(m: re.Match) -> str:
        typ, name = " ".join(m.group(2).split()), m.group(3)
        return f"{typ} *{name} = ({typ} *)::__andrea_exec::dynamic_shared();"
    return _DYN_SHARED_RE.sub(dyn, source)


_STUBS = r"""
// Launch stubs: __andrea_launch__NAME(cfg, args, ranges, nranges, track) calls kernel NAME with
// args[i] pointing at the i-th argument's value; __andrea_sig__NAME(kinds, cap) describes the
// parameters (0 = pointer, 1 = pointer to const, 100 + size = floating point, 200 + size =
// signed integer, 300 + size = unsigned integer). Reserved names only, and no library: the
// kernel's translation unit declares nothing NVRTC does not (prelude.h).
extern "C" int __andrea_exec_launch(const unsigned long long *, const unsigned long long *, int,
                                    int, void (*)(void *), void *);
template <int... __I> struct __andrea_seq {};
template <int __N, int... __I> struct __andrea_mkseq : __andrea_mkseq<__N - 1, __N - 1, __I...> {};
template <int... __I> struct __andrea_mkseq<0, __I...> { typedef __andrea_seq<__I...> type; };
template <class __T> struct __andrea_bare { typedef __T type; };
template <class __T> struct __andrea_bare<const __T> { typedef __T type; };
template <class __T> struct __andrea_bare<volatile __T> { typedef __T type; };
template <class __T> struct __andrea_bare<const volatile __T> { typedef __T type; };
template <class __T> struct __andrea_bare<__T &> : __andrea_bare<__T> {};
template <class __T> struct __andrea_bare<__T &&> : __andrea_bare<__T> {};
template <class... __A> struct __andrea_body {
    void (*f)(__A...);
    void **args;
    template <int... __I> void call(__andrea_seq<__I...>) {
        f(*static_cast<typename __andrea_bare<__A>::type *>(args[__I])...);
    }
    static void run(void *__p) {
        static_cast<__andrea_body *>(__p)->call(typename __andrea_mkseq<sizeof...(__A)>::type{});
    }
};
template <class... __A>
static int __andrea_launch(void (*__f)(__A...), const unsigned long long *__cfg, void **__args,
                           const unsigned long long *__ranges, int __nranges, int __track) {
    __andrea_body<__A...> __b{__f, __args};
    return __andrea_exec_launch(__cfg, __ranges, __nranges, __track,
                                &__andrea_body<__A...>::run, &__b);
}
template <class __T> struct __andrea_kind {
    static constexpr int value = !__is_enum(__T) && (__T)-1 < (__T)0 ? 200 + (int)sizeof(__T)
                                                                     : 300 + (int)sizeof(__T);
};
template <> struct __andrea_kind<float> { static constexpr int value = 100 + (int)sizeof(float); };
template <> struct __andrea_kind<double> { static constexpr int value = 100 + (int)sizeof(double); };
template <> struct __andrea_kind<long double> {
    static constexpr int value = 100 + (int)sizeof(long double);
};
template <class __T> struct __andrea_kind<__T *> { static constexpr int value = 0; };
template <class __T> struct __andrea_kind<const __T *> { static constexpr int value = 1; };
template <class __T> struct __andrea_kind<const volatile __T *> { static constexpr int value = 1; };
template <class __T> struct __andrea_kind<__T *const> : __andrea_kind<__T *> {};
template <class... __A>
static int __andrea_sig(void (*)(__A...), int *__kinds, int __cap) {
    const int __k[] = {__andrea_kind<typename __andrea_bare<__A>::type>::value..., -1};
    int __n = (int)sizeof...(__A);
    for (int __i = 0; __i < __n && __i < __cap; ++__i) __kinds[__i] = __k[__i];
    return __n;
}
#define __ANDREA_STUB(NAME)                                                                        \
    extern "C" int __andrea_launch__##NAME(const unsigned long long *cfg, void **args,             \
                                           const unsigned long long *ranges, int nranges,          \
                                           int track) {                                            \
        return __andrea_launch(NAME, cfg, args, ranges, nranges, track);                           \
    }                                                                                              \
    extern "C" int __andrea_sig__##NAME(int *kinds, int cap) { return __andrea_sig(NAME, kinds, cap); }
"""


_WARP_RE = re.compile(r"\b(__shfl\w*_sync|__syncwarp|__ballot_sync|__any_sync|__all_sync|"
                      r"__match_\w+_sync|__reduce_\w+_sync|__activemask|tiled_partition)\b")


#: What CUDA's compilers define for device code (nvcc's device pass and NVRTC, for the arch the
#: contract's NVRTC check uses), defined after the prelude: a kernel's `#ifdef __CUDA_ARCH__`
#: branch is what a GPU runs, and the executor must judge that branch, not the host fallback
#: (tests/attacks/kernels/cuda_arch_branch.cu: a racy device branch and a correct #else scored
#: 60 / 60).
#: NVRTC's other macros that honest code tests (`__CUDACC__`, `__CUDACC_RTC__`, its version) come
#: with NVRTC's values (executor/nvrtc_macros.txt); the macros g++ defines and NVRTC does not
#: cannot be taken away, so a kernel's conditionals may not name them (executor/macros.py,
#: host.check_includes; tests/attacks/kernels/host_compiler_branch.cu).
CUDA_ARCH_MACRO = "#define __CUDA_ARCH__ 900\n"
DEVICE_MACROS = CUDA_ARCH_MACRO + nvrtc_defines()


def translation_unit(source: str, name: str, prelude: Path = PRELUDE) -> str:
    """The C++ text the host compiler sees for one kernel source (runtime.cpp is linked in)."""
    stubs = "\n".join(f"__ANDREA_STUB({k})" for k in kernel_names(source))
    if _WARP_RE.search(_strip_comments(source)):  # the runtime then runs every thread as a fiber
        stubs += '\nextern "C" const int __andrea_exec_uses_warps = 1;'
    safe = name.replace("\\", "/").replace('"', "")
    return (f'#include "{prelude}"\n{DEVICE_MACROS}#line 1 "{safe}"\n{_rewrite(source)}\n'
            f'#line 1 "andrea_exec_stubs.cpp"\n{_STUBS}\n{stubs}\n')


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


def _compile(cxx: str, args: list[str], name: str) -> None:
    env = {**os.environ, "LC_ALL": "C"}  # plain ASCII quotes in the log, whatever the locale
    proc = subprocess.run([cxx, *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise BuildError(name, proc.stderr or proc.stdout)


def _store(tmp_out: Path, out: Path) -> None:
    partial = out.with_suffix(f".{os.getpid()}.tmp")
    shutil.copyfile(tmp_out, partial)
    os.replace(partial, out)  # atomic: concurrent builders never see half a file


#: Context switches runtime.cpp can be built with: "asm" (a few instructions, x86-64; elsewhere
#: it falls back to ucontext) or "ucontext" (swapcontext: a system call per switch; kept as the
#: benchmark's peer).
SWITCHES = {"asm": (), "ucontext": ("-DANDREA_EXEC_UCONTEXT=1",)}


def _runtime_object(cxx: str, version: str, switch: str = "asm") -> Path:
    """runtime.cpp compiled once (no instrumentation), cached like the libraries."""
    flags = [*CXXFLAGS, *SWITCHES[switch]]
    key = hashlib.sha256("\0".join([RUNTIME.read_text(), " ".join(flags), version]).encode()
                         ).hexdigest()[:24]
    out = cache_dir() / f"runtime-{key}.o"
    if not out.exists():
        with tempfile.TemporaryDirectory(prefix="andrea-exec-") as tmp:
            obj = Path(tmp) / "runtime.o"
            _compile(cxx, [*flags, "-c", "-o", str(obj), str(RUNTIME)], "runtime.cpp")
            _store(obj, out)
    return out


_BUILDS = 0  # libraries compiled by this process


def _precompiled_prelude(cxx: str, version: str, flags: list[str]) -> Path | None:
    """prelude.h precompiled (GCC's .gch next to a copy of it), cached; None if it cannot be.

    Only from a process's second build on: a grading worker builds one library, for which
    precompiling would cost more than it saves; the test suite builds dozens.
    """
    key = hashlib.sha256("\0".join([PRELUDE.read_text(), " ".join(flags), version]).encode()
                         ).hexdigest()[:24]
    final = cache_dir() / f"prelude-{key}"
    if (final / "prelude.h.gch").exists():
        return final / "prelude.h"
    try:
        tmp = Path(tempfile.mkdtemp(prefix="prelude-", dir=cache_dir()))
        shutil.copyfile(PRELUDE, tmp / "prelude.h")
        _compile(cxx, [*flags, "-x", "c++-header", "-o", str(tmp / "prelude.h.gch"),
                       str(tmp / "prelude.h")], "prelude.h")
        try:
            os.rename(tmp, final)  # atomic; a concurrent builder may have won
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    except (BuildError, OSError):
        return None
    return final / "prelude.h" if (final / "prelude.h.gch").exists() else None


def build(source: str, name: str = "kernel.cu", *, checked: bool = True,
          switch: str = "asm") -> Path:
    """Compile `source` (CUDA text) for the executor; return the cached shared library's path.

    checked=True instruments every memory access of the kernel for the race checker; `switch`
    picks the fibers' context switch (see SWITCHES).
    Raises BuildError with the compiler's log when the source does not compile.
    """
    if switch not in SWITCHES:
        raise ValueError(f"switch must be one of {sorted(SWITCHES)}, got {switch!r}")
    cxx, version = _compiler()
    unit = translation_unit(source, name)
    flags = unit_flags(checked)
    runtime = _runtime_object(cxx, version, switch)
    headers = "".join(p.read_text() for p in sorted(INCLUDE.iterdir()) if p.is_file())
    key = hashlib.sha256("\0".join(
        [unit, PRELUDE.read_text(), headers, runtime.name, " ".join(flags), version]).encode()
    ).hexdigest()[:24]
    out = cache_dir() / f"{Path(name).stem}-{key}.so"
    if out.exists():
        return out
    global _BUILDS
    pch = _precompiled_prelude(cxx, version, flags) if _BUILDS else None
    _BUILDS += 1
    with tempfile.TemporaryDirectory(prefix="andrea-exec-") as tmp:
        src = Path(tmp) / "unit.cpp"
        src.write_text(translation_unit(source, name, pch) if pch else unit)
        obj, lib = Path(tmp) / "unit.o", Path(tmp) / "lib.so"
        _compile(cxx, [*flags, "-c", "-o", str(obj), str(src)], name)
        _compile(cxx, ["-shared", "-fPIC", "-Wl,-z,defs", "-o", str(lib), str(obj), str(runtime),
                       "-ldl"], name)
        _store(lib, out)
    return out
