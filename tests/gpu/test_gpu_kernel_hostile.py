"""Kernels that attack the CPU executor or the grader (tests/attacks/kernels/): each is
refused before it runs, or stopped with a finding, a time limit or an output limit, and the
grader goes on. A kernel is native code in the grading worker: what it can reach there is the
sandbox's business (tests/grade/), these are the executor's own defences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from andrea_gpu import nvrtc
from andrea_gpu.backend import kernel_source
from andrea_gpu.executor import KernelError
from andrea_gpu.submission import SubmissionError, compile_kernel_source, load_kernel_submission
from spec import load_spec
from tests.attacks import CORPUS
from tests.gpu.branching import gpu_branch_finding
from tests.helpers import TEST_SANDBOX, fast_limits

HOSTILE = CORPUS


def _nvrtc_loads() -> bool:
    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable:
        return False
    return True


def test_every_hostile_kernel_says_what_it_tries():
    files = HOSTILE.glob("*.cu")      # every kernel attack: tests/attacks/kernels/
    assert len(files) >= 9
    for p in files:
        assert p.read_text().lower().startswith("// hostile ("), p.name


def test_inline_assembly_pasted_by_a_macro_does_not_build():
    """`CAT(as, m)(".incbin ...")` passes the word check; the executor's prelude makes the pasted
    name a compile error, so no file is read into the library."""
    with pytest.raises(SubmissionError, match=r"does not build") as exc:
        load_kernel_submission(HOSTILE / "asm_pasted.cu", backend="cpu")
    assert "asm_pasted.cu:3" in exc.value.log and "incbin" not in exc.value.log.split(":3:")[0]


def test_switching_the_race_checker_off_is_refused():
    with pytest.raises(SubmissionError, match=r"was refused") as exc:
        load_kernel_submission(HOSTILE / "no_sanitize.cu", backend="cpu")
    assert "no_sanitize.cu:32: error: 'no_sanitize' is not allowed" in exc.value.log


def test_a_pasted_sanitizer_attribute_is_no_attribute(tmp_path):
    """Pasted together, the attribute's name is a macro of the prelude: the race stays visible.
    (Written inside `__attribute__((...))`, any attribute but the few both compilers honour is
    refused first: test_gpu_names.py; here the attribute's parentheses are pasted too.)"""
    src = (HOSTILE / "no_sanitize.cu").read_text().replace(
        '__attribute__((no_sanitize("thread")))', 'CAT(_, _attribute__)((CAT(no_san, itize)("thread")))')
    path = tmp_path / "pasted.cu"
    path.write_text("#define CAT(a, b) a##b\n" + src)
    sub = load_kernel_submission(path, backend="cpu")
    with pytest.raises(KernelError, match=r"data race on argument 2 \(grad_token\)"):
        for _ in range(3):  # launch shapes: grid 1 (one block: no race), then grid 3
            sub.embed_backward(np.zeros(40, np.int64), np.ones((40, 3), np.float32), 2, 40)


def test_a_stack_overflow_is_named():
    sub = load_kernel_submission(HOSTILE / "stack_overflow.cu", backend="cpu")
    with pytest.raises(KernelError, match=r"kernel andrea_lookup: block \(0,0,0\) thread "
                                          r"\(\d+,0,0\): stack overflow: .* 32 KiB .* at "
                                          r"stack_overflow.cu:\d+"):
        sub.lookup(np.ones((4, 3), np.float32), [1, 2])


@pytest.mark.parametrize("name, said", [
    ("infinite_loop", r"did not finish within"),
    ("printf_flood", r"printed more than \d+ bytes"),
])
def test_a_kernel_that_never_ends_or_floods_output_is_stopped(name, said):
    from graders.grade.grading import grade, load_submission
    rep = grade(load_submission(HOSTILE / f"{name}.cu"), load_spec(), profile="dev",
                limits=fast_limits(call_timeout=1.0), select=["lookup_selects_row"],
                sandbox=TEST_SANDBOX)
    assert rep["import"]["ok"], rep["import"]
    (chk,) = rep["checks"]
    assert chk["status"] in ("error", "failed") and rep["score"] == 0
    import re
    assert re.search(said, chk["message"]), chk["message"]


def test_a_lost_update_through_atomic_exchange_is_a_race():
    """lost_update_exchange.cu: `atomicExch(g, *g + v)` for the scatter-add; two rows of one id
    (and every batch row of a position) read the same old value on a GPU."""
    sub = load_kernel_submission(HOSTILE / "lost_update_exchange.cu", backend="cpu")
    found = None
    try:
        for _ in range(3):  # launch shapes: grid 1 (one block), then several blocks
            sub.embed_backward(np.zeros(40, np.int64), np.ones((40, 3), np.float32), 2, 40)
    except KernelError as exc:
        found = str(exc)
    assert found is not None and "data race on argument 2 (grad_token)" in found, found
    # at the student's lines: the plain read of *g and the other thread's atomicExch (line 61)
    assert "lost_update_exchange.cu:61" in found and "updates it with an atomic" in found, found


def test_a_kernel_cannot_show_the_executor_other_code_than_a_gpu_runs():
    """cuda_arch_branch.cu: a racy `+=` and a position gradient that keeps the last batch row
    under `#ifdef __CUDA_ARCH__`, atomicAdd under `#else` (60 / 60 when the executor compiled
    without __CUDA_ARCH__; executor.build.DEVICE_MACROS)."""
    sub = load_kernel_submission(HOSTILE / "cuda_arch_branch.cu", backend="cpu")
    found = gpu_branch_finding(sub)
    assert found is not None, "the executor ran the #else branch"


def test_a_kernel_cannot_tell_the_executor_from_a_gpu_by_the_host_compilers_macros():
    """host_compiler_branch.cu: the racy device code under `#ifndef __GNUC__` (60 / 60 before):
    refused at the line, as every conditional naming a macro g++ and NVRTC define differently."""
    with pytest.raises(SubmissionError, match=r"was refused") as exc:
        load_kernel_submission(HOSTILE / "host_compiler_branch.cu", backend="cpu")
    assert "host_compiler_branch.cu:62: error: '__GNUC__' may not be tested" in exc.value.log
    assert "host_compiler_branch.cu:77: error: '__GNUC__'" in exc.value.log


@pytest.mark.parametrize("test", [
    "#ifndef __x86_64__", "#if !defined(__linux__)", "#ifndef __SANITIZE_THREAD__",
    "#ifndef atomicAdd_system", "#ifndef __syncthreads", "#ifdef NV_IF_TARGET", "#ifdef __EDG__",
    "#if __OPTIMIZE__ == 0", "#elif defined __GNUC__", "# /* */ ifndef \\\n __GNUC__"])
def test_every_macro_the_two_compilers_define_differently_is_refused_in_a_conditional(test):
    """Each family: g++'s predefined names, the prelude's macros, NVRTC's own (__EDG__, its
    headers' NV_IF_TARGET), values that differ; spelled with defined, a comment and a line
    splice."""
    from andrea_gpu.host import check_includes
    src = (HOSTILE / "host_compiler_branch.cu").read_text()
    src = src.replace("#ifndef __GNUC__", "#if 0\n" + test if test.startswith("#elif") else test)
    with pytest.raises(SubmissionError, match=r"was refused") as exc:
        check_includes(src, "k.cu")
    assert "may not be tested" in exc.value.log


def test_honest_device_guards_keep_working(tmp_path):
    """`#ifdef __CUDA_ARCH__`, `__CUDACC__`, `__CUDACC_RTC__` and NVRTC's version macros mean in
    the executor what they mean to NVRTC (the executor defines them with NVRTC's values)."""
    src = (HOSTILE / "host_compiler_branch.cu").read_text()
    src = src.replace("#ifndef __GNUC__", "#if !defined(__CUDA_ARCH__) || !defined(__CUDACC__) "
                      "|| !defined(__CUDACC_RTC__) || __CUDACC_VER_MAJOR__ < 12")
    src = src.replace("#if !defined(__GNUC__)", "#ifndef __CUDACC__")
    path = tmp_path / "honest_guards.cu"
    path.write_text(src.replace("HOSTILE", "honest"))
    sub = load_kernel_submission(path, backend="cpu")
    for _ in range(3):
        gt, gp = sub.embed_backward(np.zeros((2, 20), np.int64),
                                    np.ones((2, 20, 3), np.float32), 2, 20)
        assert np.all(gp == 2) and np.all(gt[0] == 40)


def test_a_kernel_cannot_tell_the_executor_from_a_gpu_by_the_preludes_declarations():
    """host_declaration_branch.cu: `sizeof(fopen("", ""))` is an int's size for NVRTC (a
    static_assert proves it: NVRTC compiles that branch), and now for the executor too: its
    kernel unit declares no fopen (executor/names.py); it judges the racy branch a GPU runs.
    The other tricks of the family: test_gpu_names.py."""
    from andrea_gpu import nvrtc
    from andrea_gpu.host import nvrtc_headers

    text = (HOSTILE / "host_declaration_branch.cu").read_text()
    try:
        gpu = nvrtc.compile_source(text + '\nstatic_assert(sizeof(fopen("", "")) == sizeof(int), '
                                   '"the GPU branch");\n', "h.cu", headers=nvrtc_headers())
    except nvrtc.NvrtcUnavailable:
        pytest.skip("NVRTC's library is not installed here")
    assert gpu.ok, gpu.log  # NVRTC compiles the racy branch (so an xfail here is the gap)
    sub = load_kernel_submission(HOSTILE / "host_declaration_branch.cu", backend="cpu")
    found = gpu_branch_finding(sub)
    assert found is not None, "the executor ran the branch only the host compiler picks"


# --- "define if missing" guards: `#ifndef M_PI` / `#define M_PI ...` / `#endif` is honest code.
# Neither compiler has M_PI or INFINITY (the executor's kernel unit reaches no C library header)
# and both read FLT_MAX from the same <cfloat> text, so both take the kernel's definition, and a
# wrong value is wrong on both sides: the check fails on values. (A guard of a name only the
# executor defines, the prelude's atomicAdd_system, is rewritten by host.executor_source.)
HONEST_GUARDS = (
    "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#endif\n"
    "#if !defined(M_PI_2)  // half of it\n#define M_PI_2 1.57079632679489661923\n#endif\n"
    "#ifndef INFINITY /* CUDA has\n   no INFINITY here */\n#define INFINITY __int_as_float(0x7f800000)\n"
    "#endif\n"
    "#if ! defined FLT_MAX\n#define FLT_MAX 3.402823466e+38f  /* float.h's */\n#endif /* FLT_MAX */\n")


def _sinusoidal_kernel(guards: str) -> str:
    """The project's embedding kernel with its position rows scaled by a sinusoidal factor that
    is exactly 1 when M_PI, M_PI_2, INFINITY and FLT_MAX mean what they should."""
    src = kernel_source("embedding.cu")
    unit = ("// sinusoidal-encoding style constants: 1 when pi is pi\n"
            "__device__ __forceinline__ double andrea_unit() {\n"
            "    return sin(M_PI / 2.0) * cos(2.0 * M_PI) * cos(M_PI_2 - M_PI / 2.0)\n"
            "           * (INFINITY > FLT_MAX ? 1.0 : 0.0);\n}\n")
    for old, new in (("xs[k] += ys[k];", "xs[k] += ys[k] * (T)andrea_unit();"),
                     ("o[c] = a[c] + p[c];", "o[c] = a[c] + p[c] * (T)andrea_unit();")):
        assert src.count(old) == 1
        src = src.replace(old, new)
    return guards + unit + src


def _embed_is_right(path) -> bool:
    sub = load_kernel_submission(path, backend="cpu")
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 11, (2, 5))
    tok = rng.standard_normal((11, 8)).astype(np.float32)
    pos = rng.standard_normal((5, 8)).astype(np.float32)
    right = True
    for _ in range(3):  # the contract's launch shapes
        got = sub.embed(ids, tok, pos)
        right &= bool(np.allclose(got, tok[ids] + pos[None, :5], rtol=1e-6, atol=1e-6))
    return right


def test_a_sinusoidal_kernel_defining_m_pi_if_missing_computes_right(tmp_path):
    path = tmp_path / "sinusoidal.cu"
    path.write_text(_sinusoidal_kernel(HONEST_GUARDS))
    assert _embed_is_right(path)
    if _nvrtc_loads():  # NVRTC, which has none of the four, compiles the same text
        ok, log = compile_kernel_source(path)
        assert ok, log


def test_a_guard_defining_a_wrong_value_gives_the_executor_that_value(tmp_path):
    """`#ifndef M_PI / #define M_PI 0`: NVRTC compiles the 0; the executor must not fall back
    on the C library's M_PI (which would grade right what a GPU gets wrong). Accepted, wrong on
    values."""
    path = tmp_path / "hostile_pi.cu"
    path.write_text(_sinusoidal_kernel(HONEST_GUARDS.replace("3.14159265358979323846", "0")))
    assert not _embed_is_right(path)
    path.write_text(_sinusoidal_kernel(HONEST_GUARDS.replace("3.402823466e+38f", "INFINITY")))
    assert not _embed_is_right(path)  # INFINITY > FLT_MAX no longer: the factor is 0


@pytest.mark.parametrize("guard", [
    "#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n#else\n#define PRELUDE 1\n#endif\n",
    "#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n#elif 1\n#endif\n",
    "#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n#define RACY 1\n#endif\n",
    "#ifndef atomicAdd_system\n__device__ int racy;\n#define atomicAdd_system atomicAdd\n#endif\n",
    "#ifndef atomicAdd_system\n#define SYSTEM_ADD atomicAdd\n#endif\n",
    "#if !defined(atomicAdd_system) || 1\n#define atomicAdd_system atomicAdd\n#endif\n",
    "#ifndef atomicAdd_system\n#undef atomicAdd_system\n#endif\n",
])
def test_a_guard_that_does_more_than_define_the_missing_name_is_refused(guard):
    """A guard of a macro only the executor defines (the prelude's atomicAdd_system; NVRTC's is
    a function) that does more than define it is refused."""
    from andrea_gpu.host import check_includes
    with pytest.raises(SubmissionError, match=r"was refused") as exc:
        check_includes(_sinusoidal_kernel(guard), "k.cu")
    assert "k.cu:1: error: 'atomicAdd_system' may not be tested" in exc.value.log


@pytest.mark.parametrize("guard", [
    "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#else\n#define PI_FROM_LIBC 1\n#endif\n",
    "#if !defined(M_PI) || 1\n#define M_PI 3.14159265358979323846\n#endif\n",
    "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#define M_PI_2 1.57079632679489661923\n"
    "#define INFINITY __int_as_float(0x7f800000)\n#endif\n#include <cfloat>\n",
])
def test_a_conditional_on_a_c_library_constant_means_the_same_to_both(guard, tmp_path):
    """The C library's M_PI and INFINITY are neither compiler's (the executor's kernel unit
    reaches no C library header; both read <cfloat> from the same text): any conditional on
    them is accepted, and both compile the kernel's definitions."""
    path = tmp_path / "pi.cu"
    if "M_PI_2" not in guard:
        guard += ("#define M_PI_2 1.57079632679489661923\n"
                  "#define INFINITY __int_as_float(0x7f800000)\n#include <cfloat>\n")
    path.write_text(_sinusoidal_kernel(guard))
    assert _embed_is_right(path)


def test_findings_after_a_guard_name_the_students_line(tmp_path):
    """The executor's copy turns each guard's #if and #endif into other lines, never fewer:
    bug_grid_stride_bound.cu reads ids[n_ids] at its line 5, here 5 + the guards' 13 lines."""
    from andrea_gpu.executor import OutOfBoundsError
    bug = Path(__file__).parent / "kernels" / "submissions" / "bug_grid_stride_bound.cu"
    path = tmp_path / "guarded.cu"
    path.write_text(HONEST_GUARDS + bug.read_text())
    sub = load_kernel_submission(path, backend="cpu")
    with pytest.raises(OutOfBoundsError, match=r"argument 1 \(ids\) at guarded\.cu:18: "):
        for _ in range(3):  # the contract's launch shapes: one of them leaves a block over
            sub.lookup(np.ones((11, 8), np.float32), np.arange(5).reshape(1, 5))
