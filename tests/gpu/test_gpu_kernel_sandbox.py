"""Kernel submissions never see the reference: refused includes, and a sandbox without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from andrea_gpu.host import SubmissionError, check_includes
from graders.grade.grading import grade, load_submission
from graders.grade.sandbox import probe_bwrap
from spec import load_spec
from tests.helpers import fast_limits

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("line", [
    '#include "/proc/self/cwd/../project/andrea_gpu/kernels/embedding.cu"',
    '#include "embedding.cu"',
    "#include <../../andrea_ref/embedding.py>",
    '#include "./cuda_runtime.h"',
    '#include "../executor/include/cuda.h"',
    "#include </etc/passwd>",
    "#  include <stdlib.h>",
    "%:include \"x.cu\"",
    '#/* comment */include "x.cu"',
    '#define F "/etc/passwd"\n#include F',
    '#inc\\\nlude "x.cu"',
    '#include_next <cstdio>',
    '#import "x.cu"',
    '#embed "x.bin"',
    '#pragma GCC dependency "/etc/passwd"',
    'asm(".incbin \\"/etc/passwd\\"");',
    '__asm__ volatile("nop");',
    '#if __has_include("/proc/self/cwd/../project/spec/andrea-120m.yaml")\n#endif',
    '_Pragma("GCC dependency \\"/etc/passwd\\"")',
    'const char *s = "/*"; \n#include "x.cu"\n// */',
    # a digit separator must not open a character literal that hides a comment start
    "int x = 1'2 + '/*';\n#include \"x.cu\"\n// */",
    "int x = 1'2 + '/*';\nasm(\".incbin \\\"/etc/passwd\\\"\");\n// */",
    # a raw string spanning lines could hide what follows
    'const char *s = R"x(\n/*\n)x";\n#include "x.cu"\n// */',
    # a line that looks like a directive is checked even inside a block comment
    '/*\n#include "x.cu"\n*/',
    # backslash-space-newline: a splice for g++, maybe not for NVRTC
    '// a comment \\ \n#include "x.cu"',
])
def test_ways_to_reach_other_files_are_refused(line):
    with pytest.raises(SubmissionError, match=r"refused") as err:
        check_includes(f"// student kernels\n{line}\n", "student.cu")
    assert "student.cu:" in err.value.log and ": error: " in err.value.log


@pytest.mark.parametrize("line", [
    "#include <cstdint>", "#include <cuda_runtime.h>", "#include <math_constants.h>",
    '#include "cuda_runtime.h"',
    "#pragma unroll", "#pragma unroll 4", "#define N 32\n#ifdef N\n#endif",
    'const char *s = "#include \\"x.cu\\" asm";', "// #include \"x.cu\"",
    "/* asm(\".incbin\") */", "int assembly = 1; float asm_like = 2.0f;",
    "int big = 1'000'000; char c = 'x'; char q = '\\'';", "float f = .5'0f; // '",
    "#define STR(x) \\\n    #x",
])
def test_ordinary_kernel_text_is_accepted(line):
    check_includes(f"{line}\n", "student.cu")


# The same text for both compilers (the executor defines __CUDACC_RTC__ as NVRTC does): a
# catch-all overload of fopen/fclose that NVRTC (no <cstdio> of its own) calls, and that the
# executor's g++, whose prelude declares the C library's, passes over for the real ones. So in
# the executor's native code the lookup opens the reference files, on a GPU it opens nothing.
PROBE = r'''
// The kernel's unit declares no C library function NVRTC lacks (executor/names.py), and NVRTC
// refuses an unresolved extern one; native code reaches the C library's fopen all the same,
// from the address of memcpy (which both declare) and the offset this machine's C library has.
typedef void *(*andrea_fopen_t)(const char *, const char *);
typedef int (*andrea_fclose_t)(void *);
static __device__ void *fopen(const char *p, const char *m) {
    return ((andrea_fopen_t)((const char *)&memcpy + FOPEN_OFFSET))(p, m);
}
static __device__ int fclose(void *f) {
    return ((andrea_fclose_t)((const char *)&memcpy + FCLOSE_OFFSET))(f);
}
// Counts the reference files this thread can open: 0 inside the grading sandbox.
static __device__ int andrea_seen() {
    const char *paths[] = {ROOT "/andrea_gpu/kernels/embedding.cu", ROOT "/andrea_ref/embedding.py",
                           ROOT "/spec/andrea-120m.yaml",
                           "/proc/self/cwd/../project/andrea_gpu/kernels/embedding.cu",
                           "/sandbox/project/andrea_ref/embedding.py",
                           "/sandbox/runtime/kernel/andrea_gpu/kernels/embedding.cu",
                           "/sandbox/runtime/kernel/andrea_ref/embedding.py"};
    int n = 0;
    for (const char *p : paths) {
        auto f = fopen(p, "r");
        if (f) { ++n; fclose(f); }
    }
    return n;
}
'''


@pytest.mark.skipif(not probe_bwrap()[0], reason="bubblewrap is not usable here")
def test_a_kernel_submission_cannot_open_the_reference(tmp_path):
    good = (ROOT / "andrea_gpu" / "kernels" / "embedding.cu").read_text()
    # the lookup gives wrong rows as soon as any reference file can be opened
    import ctypes
    libc = ctypes.CDLL(None)
    at = {n: ctypes.cast(getattr(libc, n), ctypes.c_void_p).value for n in ("memcpy", "fopen",
                                                                          "fclose")}
    probe = (PROBE.replace("FOPEN_OFFSET", f"({at['fopen'] - at['memcpy']}LL)")
             .replace("FCLOSE_OFFSET", f"({at['fclose'] - at['memcpy']}LL)"))
    text = probe.replace("ROOT", f'"{ROOT}"') + good.replace(
        "const int id = ids[row];", "const int id = ids[row] + andrea_seen();", 1)
    assert text.count("+ andrea_seen();") == 1
    cu = tmp_path / "probe.cu"
    cu.write_text(text)
    # the probe works: loaded next to the project (no sandbox), its lookup is wrong
    import numpy as np
    from andrea_gpu.submission import load_kernel_submission
    tab = np.arange(12, dtype=np.float32).reshape(6, 2)
    from andrea_gpu.host import KernelContractError
    with pytest.raises(KernelContractError, match="although every id is in range"):
        load_kernel_submission(cu, backend="cpu").lookup(tab, np.arange(6))
    rep = grade(load_submission(cu), load_spec(), profile="dev", limits=fast_limits(),
                sandbox="bwrap", select=["lookup_selects_row"])
    assert rep["import"]["ok"], rep["import"]
    assert rep["score"] == rep["max_score"] > 0, [c["message"] for c in rep["checks"]]


def test_every_allowed_header_compiles_with_nvrtc_and_the_executor(tmp_path):
    """A student's usual includes (<cuda_runtime.h>, <cstdint>, ...) work on both compilers:
    NVRTC has no header files, so it gets the grader's own versions in memory."""
    import numpy as np

    from andrea_gpu.host import ALLOWED_HEADERS
    from andrea_gpu.nvrtc import NvrtcUnavailable
    from andrea_gpu.submission import compile_kernel_source, load_kernel_submission

    good = (ROOT / "andrea_gpu" / "kernels" / "embedding.cu").read_text()
    uses = ("static __device__ int32_t andrea_i32(size_t n) { return (int32_t)(n % INT_MAX) + "
            "(int)(FLT_EPSILON * CUDART_PI_F) + (int)UINT8_MAX * 0; }\n")
    text = "".join(f"#include <{h}>\n" for h in sorted(ALLOWED_HEADERS)) + uses + good
    cu = tmp_path / "includes.cu"
    cu.write_text(text)
    try:
        ok, log = compile_kernel_source(cu)
    except NvrtcUnavailable as exc:
        pytest.skip(str(exc))
    assert ok, log
    sub = load_kernel_submission(cu, backend="cpu")
    tab = np.arange(8, dtype=np.float32).reshape(4, 2)
    assert sub.lookup(tab, np.array([3, 0])).tolist() == [[6.0, 7.0], [0.0, 1.0]]
