"""The macros a kernel may not branch on (andrea_gpu/executor/macros.py): the stored lists are what
the two compilers say on this machine, and the executor sees NVRTC's macros as NVRTC does."""

from __future__ import annotations

import importlib

import pytest

from andrea_gpu import nvrtc
from andrea_gpu.host import SubmissionError, check_includes

macros = importlib.import_module("andrea_gpu.executor.macros")
build = importlib.import_module("andrea_gpu.executor.build")


def _nvrtc_loads() -> bool:
    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable:
        return False
    return True


@pytest.mark.skipif(not _nvrtc_loads(), reason="NVRTC's library is not installed here")
def test_the_stored_lists_are_what_the_two_compilers_define():
    differ, nv_only = macros.measure(macros.nvrtc_candidates())
    stored = [f"{k} {v}" for k, v in sorted(macros._listed().items())]
    assert stored == differ, (
        "g++ or NVRTC changed: regenerate with `python -m andrea_gpu.executor.macros` "
        f"(new: {sorted(set(differ) - set(stored))[:20]}, gone: "
        f"{sorted(set(stored) - set(differ))[:20]})")
    assert macros.nvrtc_defines() == "".join(f"#define {k} {v}\n"
                                             for k, v in sorted(nv_only.items()))


def test_the_lists_hold_what_the_attacks_use_and_not_what_honest_code_tests():
    refused = macros.refused()
    for name in ("__GNUC__", "__x86_64__", "__linux__", "__SANITIZE_THREAD__", "__OPTIMIZE__",
                 "atomicAdd_system", "__syncthreads", "__EDG__", "__DATE__", "NV_IF_TARGET",
                 "va_start"):
        assert name in refused, name
    # the executor's kernel unit reaches no C library header: M_PI and INFINITY are neither's,
    # INT_MAX and FLT_MAX come from the same header text for both; NULL is NVRTC's 0 for both
    for name in ("__CUDA_ARCH__", "__CUDACC__", "__CUDACC_RTC__", "__CUDACC_VER_MAJOR__",
                 "__cplusplus", "__LINE__", "__FILE__", "__COUNTER__", "M_PI", "INFINITY",
                 "INT_MAX", "FLT_MAX", "NULL", "CUDART_VERSION", "ANDREA_RN"):
        assert name not in refused, name
    assert "#define NULL 0\n" in build.DEVICE_MACROS
    assert "#define __CUDACC__ 1\n" in build.DEVICE_MACROS
    assert "#define __CUDA_ARCH__ 900\n" in build.DEVICE_MACROS


def test_a_refused_macro_is_refused_only_where_it_is_tested():
    """In code and comments the prelude's names are the CUDA API (`__syncthreads()`); a string
    or comment mentioning __GNUC__ is no conditional."""
    ok = ('// works with #ifdef __GNUC__ too\n'
          'extern "C" __global__ void k(float* a) { __syncthreads(); a[0] = 1.0f; }\n'
          '#if defined(__CUDA_ARCH__) && __CUDACC_VER_MAJOR__ >= 12 /* not __GNUC__ */\n'
          '#endif\n')
    check_includes(ok, "ok.cu")
    with pytest.raises(SubmissionError) as exc:
        check_includes(ok + "#ifdef __CUDA_ARCH__\n#elif __GNUC__ > 3 // host\n#endif\n", "k.cu")
    assert exc.value.log.startswith("k.cu:6: error: '__GNUC__' may not be tested")


REFUSED = {
    "a macro of the kernel's own reaching g++'s": "#define HOST __x86_64__ + 0\n#if HOST\n#endif\n",
    "through two of its own": "#define A atomicAdd_system\n#define B A\n#ifdef B\n#endif\n#if B\n#endif\n",
    "NVRTC's target macros": "#ifdef NV_IF_TARGET\n#endif\n",
    "stringified in code": ("#define S(x) #x\n#define X(x) S(x)\n"
                            "__device__ const char* s = X(__GNUC__);\n"),
    "NVRTC's own front end": "#ifdef __EDG__\n#endif\n",
    "the time of the compile": "#if __TIME__[7] == '1'\n#endif\n",
    "the time of the compile in code": "__device__ char c = __TIME__[7];\n",
    "undefined where it never happens": "#if 0\n#undef __GNUC__\n#endif\n#ifndef __GNUC__\n#endif\n",
    "between digit separators": ("#define S(x) #x\n#define X(x) S(x)\n"
                                 "int a = 1'0; const char* b = X(__GNUC__); int c = 2'0;\n"),
    "defined without parentheses": "#if defined __SANITIZE_THREAD__\n#endif\n",
    "a guard with an #else": ("#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n"
                              "#else\n#endif\n"),
    "a guard with more in its body": ("#ifndef atomicAdd_system\n#define atomicAdd_system "
                                      "atomicAdd\n#define X 1\n#endif\n"),
    "a guard of another name": "#ifndef atomicAdd_system\n#define atomicSub_system atomicSub\n#endif\n",
    "a guard of a name NVRTC defines alone": "#ifndef NV_IS_HOST\n#define NV_IS_HOST 0\n#endif\n",
    "a second guard after one in an #if region": (
        "#ifdef __CUDA_ARCH__\n#ifndef atomicOr_system\n#define atomicOr_system atomicAdd\n"
        "#endif\n#endif\n#ifndef atomicOr_system\n#define atomicOr_system atomicOr\n#endif\n"),
    "a guard opened inside a comment": ("/* x\n */ #ifndef atomicAdd_system\n"
                                        "#define atomicAdd_system atomicAdd\n#endif\n"),
}
ACCEPTED = {
    "a name the kernel defines itself": ("#define M_PI 3.14159265f\n#ifdef M_PI\n#endif\n"
                                         "__device__ float f = M_PI;\n"),
    "a name the kernel undefines": "#undef __GNUC__\n#ifndef __GNUC__\n#endif\n",
    "a header's constant after its include": ("#include <climits>\n#ifndef INT_MAX\n#endif\n"
                                              "__device__ int m = INT_MAX;\n"),
    # the same header text for both compilers (the executor reaches no C library header)
    "a header's constant before its include": "#ifndef INT_MAX\n#endif\n#include <climits>\n",
    "a guard whose name the header defines again later": (
        "#ifndef FLT_MAX\n#define FLT_MAX 0\n#endif\n#include <cfloat>\n"),
    "a name neither compiler defines": ("#ifndef M_PI\n#define M_PI 3.14f\n#else\n#endif\n"
                                        "#if !defined(INFINITY) || 1\n#endif\n"),
    "NVRTC's NULL and runtime version, the executor's too": (
        "#ifdef NULL\n#endif\n#if CUDART_VERSION >= 12000\n#endif\n"),
    "whether a macro of its own is defined": ("#define SYNC __syncthreads()\n#ifdef SYNC\n"
                                              "#endif\n#if defined(SYNC)\n#endif\n"),
    "CUDA's spellings in code": ('extern "C" __global__ void __launch_bounds__(256) '
                                 'k(float* __restrict__ a) { __syncthreads(); a[0] = 1; }\n'),
    "character literals and digit separators": "char c = u8'a'; int n = 1'000'000;\n",
    "NVRTC's version": "#if defined(__CUDACC_RTC__) && __CUDACC_VER_MAJOR__ >= 12\n#endif\n",
    "define if missing": "#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n#endif\n",
    "define if missing, then tested": ("#ifndef atomicOr_system\n#define atomicOr_system atomicOr\n"
                                       "#endif\n#ifdef atomicOr_system\n#endif\n"
                                       "#if defined(atomicOr_system)\n#endif\n"),
    "define if missing, with defined()": ("#if !defined(atomicSub_system)\n"
                                          "#define atomicSub_system atomicSub\n#endif\n"),
    "define if missing, defined without parentheses": (
        "#if ! defined atomicMin_system // min's\n#define atomicMin_system atomicMin\n"
        "#endif  // atomicMin_system\n"),
    "define if missing, with comments and a splice": (
        "# ifndef /* sys */ atomicAdd_system \\\n  \n\n// the prelude's\n"
        "#define atomicAdd_system \\\n atomicAdd\n#endif /* runs on\n   over lines */\n"),
    "define if missing, a function-like macro": "#ifndef __syncthreads\n#define __syncthreads() \\\n"
                                                "  __syncwarp()\n#endif\n",
    "define if missing, inside a region both see alike": (
        "#ifdef __CUDA_ARCH__\n#ifndef atomicAdd_system\n#define atomicAdd_system atomicAdd\n"
        "#endif\n#endif\n"),
    "define if missing, after the header": "#include <cfloat>\n#ifndef FLT_MAX\n#define FLT_MAX 0\n#endif\n",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_ways_to_reach_a_macro_the_compilers_define_differently_are_refused(case):
    with pytest.raises(SubmissionError) as exc:
        check_includes(REFUSED[case], "k.cu")
    assert "may not be tested" in exc.value.log or "may not use it" in exc.value.log


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_both_compilers_see_alike_is_accepted(case):
    check_includes(ACCEPTED[case], "k.cu")


@pytest.mark.parametrize("case", sorted(k for k in ACCEPTED if k.startswith("define if missing")))
def test_the_executor_takes_the_kernels_definition_on_the_same_lines(case):
    """host.executor_source: each guard's #if becomes `#undef NAME` (the prelude's
    atomicAdd_system macro gives way to the kernel's, as NVRTC has none), its #endif an empty line (or a comment's opening again);
    every other line stays where it was, so the executor's findings name the student's lines."""
    from andrea_gpu.host import _logical_lines, executor_source
    text = ACCEPTED[case] + "__device__ float f = 1.0f;\n"
    out = executor_source(text)
    assert out.count("\n") == text.count("\n")
    assert out.split("\n")[-2] == "__device__ float f = 1.0f;"
    code = [line.strip() for _, line in _logical_lines(out) if line.strip()]
    if case == "define if missing, after the header":  # an ordinary test of NVRTC's FLT_MAX
        assert out == text
        return
    assert code[0 if "region" not in case else 1].startswith("#undef ")
    assert not any(c.startswith("#endif") for c in code[:3] if "region" not in case)
    assert any(c.startswith("#define") for c in code)
