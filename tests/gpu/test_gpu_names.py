"""C++ name lookup sees the same names in the CPU executor's compile as in NVRTC's
(andrea_gpu/executor/names.py): a kernel cannot tell the two apart by which names exist, which
overload wins or how large a declared type is, so the executor judges the code a GPU runs.

The attacks (tests/attacks/kernels/): each picks a racy scatter-add and a last-row-wins position
gradient where it believes it runs on a GPU, correct atomics otherwise; each scored 60 / 60 on
the executor whose prelude reached the C library and libstdc++, or would have."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from andrea_gpu import nvrtc
from andrea_gpu.host import nvrtc_headers
from andrea_gpu.submission import SubmissionError, compile_kernel_source, load_kernel_submission
from tests.attacks import CORPUS
from tests.gpu.branching import gpu_branch_finding

names = importlib.import_module("andrea_gpu.executor.names")


def _nvrtc_loads() -> bool:
    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable:
        return False
    return True


needs_nvrtc = pytest.mark.skipif(not _nvrtc_loads(), reason="NVRTC's library is not installed here")


@needs_nvrtc
@pytest.mark.parametrize("kind", sorted(names.PROBES))
def test_the_executor_declares_no_name_nvrtc_does_not(kind):
    """Every word of the preprocessed prelude that g++ finds at namespace scope (in std, as a
    namespace), NVRTC finds too; reserved names (`__andrea_exec`, `__builtin_*`) aside."""
    words = sorted(w for w in names.prelude_words() if not names.RESERVED.match(w))
    mine = names.executor_declared(words, kind)
    assert len(mine) > {"": 100, "std::": 2, "namespace ": 0}[kind]  # the probe finds them
    extra = mine - names.nvrtc_declared(words, kind)
    assert not extra, f"prelude.h declares what NVRTC does not ({kind or 'global'}): {sorted(extra)}"


@needs_nvrtc
def test_the_stored_list_holds_names_only_nvrtc_declares():
    """nvrtc_only_names.txt (regenerate: `python -m andrea_gpu.executor.names`): each is a name
    NVRTC finds and the executor does not, and the list has the families the attacks use."""
    listed = names.nvrtc_only()
    for name in ("tex1Dfetch", "surf2Dwrite", "cudaError_t", "cudaSuccess", "dadd"):
        assert name in listed, name
    plain = sorted(n for n in listed if "::" not in n)
    nv = names.nvrtc_declared(plain, "") | names.nvrtc_declared(plain, "namespace ")
    assert set(plain) <= nv, sorted(set(plain) - nv)[:20]
    assert not names.executor_declared(plain, ""), "the executor declares a listed name"


# ----------------------------------------------------------------------------- result types
#: Calls whose result type a kernel could branch on (decltype): the math API for float, double
#: and int arguments, min/max mixes, abs. Each must have the same type (or be ill-formed) for both.
_ARGS = {1: ("float", "double", "int"),
         2: ("float, float", "double, double", "float, int", "int, unsigned", "int, long long",
             "unsigned, unsigned long long", "float, double")}
_MATH = {1: """acos asin atan acosh asinh atanh cbrt ceil cos cosh erf erfc exp exp2 exp10 expm1
            fabs floor lgamma log log10 log1p log2 logb nearbyint rint round sin sinh sqrt tan
            tanh tgamma trunc rsqrt ilogb llrint llround lrint lround isnan isinf isfinite
            signbit abs sinpi cospi erfinv erfcinv normcdf normcdfinv erfcx rcbrt""".split(),
         2: "atan2 copysign fdim fmax fmin fmod hypot nextafter pow remainder min max".split()}
_TYPES = ("float", "double", "int", "unsigned", "long", "long long", "unsigned long long", "bool",
          "unsigned long", "void")


def _type_probe() -> tuple[list[str], str]:
    """A source whose array andrea_types holds, for each call, the id of its result type (1..,
    99 another type, 0 no call), each call made with arguments of the types named (dependent,
    so an ambiguous or missing overload is no call rather than an error)."""
    calls = [(f, a) for n, fs in _MATH.items() for f in fs for a in _ARGS[n]]
    calls += [(f + "f", a) for f in _MATH[1][:34] for a in _ARGS[1]]
    lines = ["template <class T> struct andrea_tid { enum { v = 99 }; };",
             "template <class T> __device__ T andrea_mk();"]
    lines += [f"template <> struct andrea_tid<{t}> {{ enum {{ v = {i + 1} }}; }};"
              for i, t in enumerate(_TYPES)]
    for i, (f, a) in enumerate(calls):
        lines.append(f"template <class... A> __device__ constexpr auto andrea_p{i}(int) -> "
                     f"decltype((void){f}(andrea_mk<A>()...), 0) {{ "
                     f"return andrea_tid<decltype({f}(andrea_mk<A>()...))>::v; }}")
        lines.append(f"template <class... A> __device__ constexpr int andrea_p{i}(...) "
                     f"{{ return 0; }}")
    lines.append('extern "C" __device__ const int andrea_types[] = {'
                 + ", ".join(f"andrea_p{i}<{a}>(0)" for i, (_, a) in enumerate(calls)) + "};")
    return [f"{f}({a})" for f, a in calls], "\n".join(lines) + "\n"


@needs_nvrtc
def test_calls_have_the_same_result_types_for_both_compilers(tmp_path):
    """overload_abs_float.cu's family: `abs(-0.5f)` was an int for the executor (the C
    library's abs) and a float for NVRTC. Every call of _MATH has the same result type (or is
    no call at all) for both, read back from NVRTC's PTX and from a g++ build."""
    calls, probe = _type_probe()
    nv, ex = _nvrtc_ints(probe, "andrea_types"), _executor_ints(probe, "andrea_types", tmp_path)
    assert len(nv) == len(ex) == len(calls)
    assert sum(v != 0 for v in nv) > len(calls) // 2  # the probe does call things
    differ = [(c, n, e) for c, n, e in zip(calls, nv, ex) if n != e]
    assert not differ, f"(call, NVRTC's type, the executor's): {differ}"


_VECTORS = [f"{t}{n}" for t in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                  "longlong", "ulonglong", "float", "double") for n in (1, 2, 3, 4)]
_VECTORS += [f"{t}4_{a}a" for t in ("long", "ulong", "longlong", "ulonglong", "double")
             for a in (16, 32)]
#: Expressions on CUDA's types whose value (or whether they compile) a kernel could branch on.
_FACTS = ([f"sizeof({v})" for v in _VECTORS] + [f"alignof({v})" for v in _VECTORS]
          + ["sizeof(dim3)", "sizeof(uint3)", "sizeof(size_t)", "sizeof(ptrdiff_t)",
             "sizeof(va_list)", "sizeof(clock_t)", "sizeof(warpSize)", "sizeof(threadIdx.x)",
             "sizeof(dim3(uint3{1, 2, 3}))", "sizeof((uint3)dim3(1))", "dim3().y",
             "dim3(uint3{4, 5, 6}).z", "sizeof(make_float4(0, 0, 0, 0))",
             "sizeof(make_uint3(0, 0, 0))", "sizeof(std::initializer_list<int>)"])


def _fact_probe() -> str:
    """Each fact's value in one array (each must compile for both: one that does not for the
    executor fails the test with g++'s error)."""
    return ('extern "C" __device__ const int andrea_facts[] = {'
            + ", ".join(f"(int)({e})" for e in _FACTS) + "};\n")


def _nvrtc_ints(src: str, array: str) -> list[int]:
    import re

    from andrea_gpu.executor.macros import _nvrtc_ptx
    ptx, log = _nvrtc_ptx(src)
    assert ptx is not None, log
    found = re.search(rf"\.b(8|32) {array}\[\d+\] = \{{([\d, ]*)\}}", ptx)
    nv = [int(x) for x in found.group(2).split(",")]
    if found.group(1) == "8":  # bytes, little-endian
        nv = [int.from_bytes(bytes(nv[i:i + 4]), "little") for i in range(0, len(nv), 4)]
    return nv


def _executor_ints(src: str, array: str, tmp_path) -> list[int]:
    import subprocess
    B = importlib.import_module("andrea_gpu.executor.build")
    f = tmp_path / f"{array}.cpp"
    f.write_text(f'#include "{B.PRELUDE}"\n{B.DEVICE_MACROS}' + src
                 + f"int main() {{ for (int v : {array}) printf(\"%d \", v); }}\n")
    exe = tmp_path / array
    subprocess.run(["g++", *B.unit_flags(checked=False), "-o", str(exe), str(f), "-lm"],
                   check=True, capture_output=True)
    return [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                           check=True).stdout.split()]


@needs_nvrtc
def test_cudas_types_have_the_same_sizes_and_members_for_both_compilers(tmp_path):
    """sizeof and alignof of every vector type, dim3's constructors and conversion, the
    built-ins' types: the same value (or the same refusal) for both compilers."""
    src = _fact_probe()
    nv, ex = _nvrtc_ints(src, "andrea_facts"), _executor_ints(src, "andrea_facts", tmp_path)
    assert len(nv) == len(ex) == len(_FACTS)
    differ = [(e, n, x) for e, n, x in zip(_FACTS, nv, ex) if n != x]
    assert not differ, f"(expression, NVRTC's value, the executor's): {differ}"


# ----------------------------------------------------------------------------- the attacks
#: Judged as a GPU runs them: a finding or a wrong gradient.
JUDGED = ["host_declaration_branch.cu", "libc_name_sfinae.cu", "std_complete_type.cu",
          "adl_std_begin.cu", "executor_namespace.cu", "va_list_size.cu",
          "overload_abs_float.cu"]
#: Refused before any compile: {file: (lines, what the message says)}.
REFUSED = {"reserved_name_probe.cu": ((13, 14, 18), "is a reserved name"),
           "nvrtc_only_overload.cu": ((12, 14), "does not provide"),
           "attribute_vector_size.cu": ((11,), "'vector_size' is not allowed"),
           "has_builtin_probe.cu": ((9,), "'__has_builtin' is a reserved name")}


def test_every_name_attack_is_in_the_corpus_and_says_what_it_does():
    for name in [*JUDGED, *REFUSED]:
        text = (CORPUS / name).read_text()
        assert text.startswith(f"// HOSTILE ({name[:-3]})") and "Expected:" in text, name


@pytest.mark.parametrize("name", JUDGED)
def test_a_kernel_that_asks_which_names_exist_is_judged_as_a_gpu_runs_it(name):
    text = (CORPUS / name).read_text()
    if _nvrtc_loads() and "constexpr bool andrea_on_gpu" in text:  # NVRTC takes the GPU branch
        gpu = nvrtc.compile_source(text + '\nstatic_assert(andrea_on_gpu(), "GPU branch");\n',
                                   name, headers=nvrtc_headers())
        assert gpu.ok, gpu.log
    sub = load_kernel_submission(CORPUS / name, backend="cpu")
    found = gpu_branch_finding(sub)
    assert found is not None, "the executor ran the branch a GPU does not"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_kernel_naming_what_only_one_compiler_declares_is_refused(name):
    lines, says = REFUSED[name]
    with pytest.raises(SubmissionError, match=r"was refused") as exc:
        load_kernel_submission(CORPUS / name, backend="cpu")
    for line in lines:  # (check_includes, before any compiler, or check_names, after NVRTC)
        assert f"{name}:{line}: error: " in exc.value.log, exc.value.log
    assert says in exc.value.log
    ok, log = compile_kernel_source(CORPUS / name)  # andrea-conform and the grader alike
    assert not ok and f"{name}:{lines[0]}: error: " in log


# ----------------------------------------------------------------------------- honest code
HONEST = r"""
#include <cstdint>
#include <cmath>
#include <cstdio>
// Honest code that meets the names: locals named like CUDA functions (norm, any, y0, clock),
// NULL, size_t, printf under a flag, math overloads, a brace list, std::move.
struct __attribute__((aligned(16))) andrea_pair { float a, b; };
[[nodiscard]] __device__ __attribute__((always_inline)) inline float andrea_scale(float v) {
    float norm = fabsf(v) + abs(-0.0f) + sqrt(1.0f) - 1.0f;  // a local hides ::norm alike
    bool any = norm >= 0.0f;
    int y0 = 0, clock = 0;
    for (int k : {1, 2}) y0 += k;
    float moved = std::move(norm);
    return any && y0 == 3 && clock == 0 ? fmaxf(moved, 0.0f) * 0.0f + 1.0f : 0.0f;
}
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    const int* none = NULL;
    const size_t total = (size_t)n_ids * d_model;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (size_t)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows || none != NULL) {
            atomicMin(bad, row);
            if (none != NULL) printf("never\n");
            continue;
        }
        out[e] = table[(size_t)id * d_model + col] * andrea_scale(table[0]);
    }
}
"""


def test_honest_kernels_that_meet_the_names_compile_and_compute_right(tmp_path):
    from andrea_gpu.executor import Module
    if _nvrtc_loads():
        res = nvrtc.compile_source(HONEST, "honest.cu", headers=nvrtc_headers())
        assert res.ok, res.log
    from andrea_gpu.host import check_includes
    check_includes(HONEST, "honest.cu")
    k = Module(HONEST, "honest.cu").get_function("andrea_lookup")
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([2, 0], np.int32)
    out = np.zeros((2, 3), np.float32)
    bad = np.array([2 ** 31 - 1], np.int32)
    k((1,), (32,), (table, ids, out, np.int32(2), np.int32(3), np.int32(4), bad))
    assert np.array_equal(out, table[ids]) and bad[0] == 2 ** 31 - 1


def test_a_pasted_layout_attribute_is_ignored_as_nvrtc_ignores_it():
    """`int __attribute__((vector_size(16)))` pasted together escapes the written-attribute
    check; the prelude makes the pasted name an unknown attribute, which g++ ignores as NVRTC
    ignores vector_size: an int for both (test_gpu_kernel_hostile.py: no_sanitize alike)."""
    from andrea_gpu.executor import Module
    src = ("#define CAT(a, b) a##b\n"
           "typedef int andrea_v4 CAT(_, _attribute__)((CAT(vector_, size)(16)));\n"
           'extern "C" __global__ void k(int* o) {\n'
           "    if (threadIdx.x == 0) o[0] = (int)sizeof(andrea_v4);\n}\n")
    if _nvrtc_loads():
        res = nvrtc.compile_source(src + 'static_assert(sizeof(andrea_v4) == sizeof(int), "");\n',
                                   "pasted.cu")
        assert res.ok, res.log
    out = np.zeros(1, np.int32)
    Module(src, "pasted.cu").get_function("k")((1,), (32,), (out,))
    assert out[0] == 4
