"""CUDA's device functions and intrinsics for float and int code, and which of them the CPU
executor provides.

``cuda_device_api.txt`` (next to this file) lists them: one line per function, with the
header that declares it, and for the cache-hint loads and stores (``__ldcs``, ``__stcg``, ...)
one line per element type (``__ldcs float4``). It is generated from the CUDA headers by

    python -m andrea_gpu.executor.device_api [--include /usr/local/cuda/include]

(the NVRTC wheel carries no headers; a CUDA toolkit's ``include/`` or the runtime wheel's
does), keeping only what applies to float and int code: ``EXCLUDED`` names the families left
out and why. ``tests/gpu/test_gpu_device_api.py`` builds every listed function for the executor
and checks what it computes; the build step uses the list to tell a student that an unknown
CUDA identifier is a gap of the checker, not an error in the kernel (``missing_in_log``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = HERE / "cuda_device_api.txt"

#: Headers read (relative to the include folder), in order.
HEADERS = (
    "sm_32_intrinsics.h", "sm_30_intrinsics.h", "sm_20_intrinsics.h",
    "device_atomic_functions.h", "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
    "sm_60_atomic_functions.h", "crt/sm_70_rt.h", "crt/sm_80_rt.h", "crt/sm_90_rt.h",
    "crt/device_functions.h", "crt/device_double_functions.h", "crt/math_functions.h",
)

#: Families not for float/int kernels (regex on the name -> why); everything else in HEADERS
#: is listed and must build and behave on the executor.
EXCLUDED = {
    r"__v\w+": "SIMD on packed 8- and 16-bit lanes (video instructions)",
    r"__vi\w+|__vimax\w*|__vimin\w*|__vibm\w*": "SIMD on packed 16-bit lanes (sm_90 DPX)",
    r"__(cvta|isGlobal|isShared|isConstant|isLocal|isGridConstant)\w*": "address-space queries "
                                                                       "and conversions",
    r"__(pm[0-3]|prof_trigger|brkpt)": "profiler counters and breakpoints",
    r"__(shfl|shfl_up|shfl_down|shfl_xor|ballot|any|all)": "removed for sm_70 and later (use the "
                                                            "_sync form)",
    r"__(fns|uni_sync|barrier_sync\w*)": "rarely used warp internals",
    r"__nv_bswap\w+|__builtin\w+": "compiler built-ins",
    r"__(hadd|hsub|hmul|hfma|hdiv)2?\w*|\w*half\w*|\w*bf16\w*": "half and bfloat16 types",
    r"_(?:j[01n]|y[01n])f?|[jy][01n]f?|cyl_bessel\w+": "Bessel functions",
    r"_hypotf|__signbit\w*|__isnan\w*|__isinf\w*|__finite\w*|__isfinite\w*": "the C library's "
                                                                              "internal names",
    r"atomic\w*_(?:block|system)": "scoped atomics (aliases of the plain ones: listed as those)",
    r"__cluster\w+|__isCluster\w+|__isCtaShared|__threadfence_cluster": "thread-block clusters "
                                                                       "(sm_90), not modelled",
    r"__(stwb|stcg|stcs|stwt|ld\w+)": "listed per element type",
    r"__tanhf|__expf_|\w+_ieee_\w+": "internal variants",
    r"nanf?|modf|norm|rnorm|erf|normcdf": "double forms listed beside their float ones",
    r"__dp[24]a\w*|__dp4a": "byte and half dot products",
    r"__mulhi_lo\w*|__umulhi_lo\w*": "internal variants",
    r"atomic\w*_(?:relaxed|acquire|release)\w*|__nv_atomic\w*": "memory-order atomics",
    r"__u128\w+": "128-bit atomics (sm_90 unsigned __int128)",
    r"__nv_\w+|__cuda\w+|__libcpp\w+": "the toolkit's internals",
}
_NOT_FUNCTIONS = frozenset({"if", "elif", "defined", "while", "for", "return", "sizeof",
                            "switch", "__attribute__", "__declspec", "decltype"})

_DECL = re.compile(r"(?:^|[\s*&])((?:__|atomic)[A-Za-z_0-9]+|[a-z][a-z0-9_]*f?)\s*\(")
_LOADSTORE = re.compile(r"__(ld\w+|st\w+)\s*\(\s*(?:const\s+)?([A-Za-z_][A-Za-z_0-9 ]*?)\s*\*")


def find_include() -> Path | None:
    """A CUDA include folder: $CUDA_HOME/include, the toolkit's, or a wheel's (nvidia/*/include)."""
    cands = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(Path(os.environ[var]) / "include")
    cands.append(Path("/usr/local/cuda/include"))
    for p in map(Path, sys.path):
        cands.extend(sorted((p / "nvidia").glob("*/include")) if (p / "nvidia").is_dir() else [])
    for c in cands:
        if (c / "sm_32_intrinsics.h").is_file():
            return c
    return None


def _excluded(name: str) -> bool:
    return any(re.fullmatch(pat, name) for pat in EXCLUDED)


def _declarations(text: str) -> list[str]:
    """Function names declared by __device__-ish declarations of a header (comments dropped)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)  # directives
    names = []
    for stmt in re.split(r"[;{}]", text):
        if not re.search(r"__(DEVICE|SM_\d+|DEVICE_FUNCTIONS|device_builtin|device)\w*__|"
                         r"_CRTIMP|__MATH_FUNCTIONS_DECL__|extern", stmt):
            continue
        for m in re.finditer(r"([A-Za-z_][A-Za-z_0-9]*)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*"
                             r"(?=__DEF_IF_HOST|__THROW|throw\s*\(\s*\)|noexcept|__attribute__"
                             r"|__DEVICE|__SM_|_CRTIMP|extern|static|$)", stmt.strip()):
            if m.group(1) not in _NOT_FUNCTIONS:
                names.append(m.group(1))
    return names


def generate(include: Path) -> list[tuple[str, str]]:
    """(entry, header) pairs, sorted: every function of HEADERS not EXCLUDED, and the
    cache-hint loads and stores once per element type."""
    out: dict[str, str] = {}
    for h in HEADERS:
        path = include / h
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in _declarations(text):
            if name.startswith("_") and not name.startswith("__"):
                continue
            if (name.startswith("__") or name.startswith("atomic")
                    or (h.endswith("math_functions.h") and re.fullmatch(r"[a-z][a-z0-9]*", name))):
                if name.isupper() or _excluded(name) or "DECL" in name or name.startswith("__DEF"):
                    continue
                if h.endswith("math_functions.h") and not name.endswith("f") and name + "f" not in text:
                    continue
                out.setdefault(name, h)
        for m in _LOADSTORE.finditer(text):
            fn, typ = "__" + m.group(1), " ".join(m.group(2).split())
            if typ in ("long", "unsigned long") or "half" in typ or "bf16" in typ:
                continue
            out.setdefault(f"{fn} {typ}", h)
    return sorted(out.items())


@lru_cache(maxsize=1)
def listed() -> dict[str, str]:
    """The committed list: entry -> header."""
    out = {}
    try:
        text = LIST.read_text(encoding="utf-8")
    except OSError:  # an install without its data: no name is known to be CUDA's
        return out
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            entry, _, header = line.partition("\t")
            out[entry] = header
    return out


def names() -> frozenset[str]:
    """Every listed function name (without the element types of loads and stores)."""
    return frozenset(e.split()[0] for e in listed())


_UNDECLARED = re.compile(r"'(__\w+|atomic\w+|[a-z]\w*)' was not declared in this scope|"
                         r"no matching function for call to '(__\w+|atomic\w+)\(|"
                         r"'(__\w+|atomic\w+)' has not been declared")


def missing_in_log(log: str) -> list[str]:
    """CUDA functions the host compiler did not know in a build log (a gap of the executor)."""
    known = names() | _EXTRA_KNOWN
    found = []
    for m in _UNDECLARED.finditer(log):
        name = next(g for g in m.groups() if g)
        if (name in known or _excluded(name)) and name not in found:
            found.append(name)
    return found


def is_cuda(name: str) -> bool:
    """Whether `name` is one of CUDA's device functions (listed, or of a family left out; the
    compilers' own `__builtin_*` are not CUDA's)."""
    if name.startswith("__builtin"):
        return False
    return name in names() or name in _EXTRA_KNOWN or bool(_excluded(name))


#: CUDA device functions outside HEADERS that a kernel may name (for missing_in_log).
_EXTRA_KNOWN = frozenset({
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all",
    "__hadd2", "__float2half", "__half2float", "__float2bfloat16", "__bfloat162float",
    "__dp4a", "__dp2a_lo", "__dp2a_hi", "__cvta_generic_to_shared", "__isGlobal", "__isShared",
    "__fns", "__vadd2", "__vadd4", "__vsub4", "__vmaxs4",
})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--include", type=Path, default=None,
                    help="CUDA include folder (default: found as find_include() says)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed list instead of writing it")
    a = ap.parse_args(argv)
    inc = a.include or find_include()
    if inc is None or not (inc / "sm_32_intrinsics.h").is_file():
        print("no CUDA include folder with sm_32_intrinsics.h found: pass --include",
              file=sys.stderr)
        return 2
    rows = generate(inc)
    text = ("# CUDA device functions for float and int code (generated by "
            "python -m andrea_gpu.executor.device_api from the CUDA headers; do not edit)\n"
            + "".join(f"{e}\t{h}\n" for e, h in rows))
    if a.check:
        same = LIST.is_file() and LIST.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{LIST.name} differs from {inc}")
        return 0 if same else 1
    LIST.write_text(text, encoding="utf-8")
    print(f"{len(rows)} entries from {inc} -> {LIST}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
