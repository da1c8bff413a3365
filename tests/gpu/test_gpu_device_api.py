"""What compiles for the GPU compiles on the CPU executor, and computes what the GPU computes.

``andrea_gpu/executor/cuda_device_api.txt`` lists CUDA's device functions for float and int
code, generated from the CUDA headers (andrea_gpu.executor.device_api). Every entry must be
covered by a case here; the cases are built into generated kernels and their results compared
with values computed in Python (exactly where the GPU's result is exact: rounding modes,
conversions, integer intrinsics; within a few float32 ulps for the transcendental functions).
"""

from __future__ import annotations

import math
from pathlib import Path
import struct
from fractions import Fraction

import numpy as np
import pytest

from andrea_gpu.executor import Module, device_api
from andrea_gpu.executor.build import BuildError, build

F32 = np.float32


def _f32(x) -> float:
    return float(np.float32(x))


def _round(exact: Fraction, mode: str, dtype=np.float32) -> float:
    """`exact` rounded to `dtype` in the GPU's mode (rn, rz, rd, ru)."""
    near = dtype(float(exact)) if dtype is np.float32 else float(exact)
    near = dtype(near)
    if Fraction(float(near)) == exact:
        return float(near)
    below = near if Fraction(float(near)) < exact else np.nextafter(near, dtype(-np.inf))
    above = np.nextafter(below, dtype(np.inf))
    if mode == "rd":
        return float(below)
    if mode == "ru":
        return float(above)
    if mode == "rz":
        return float(below if exact > 0 else above)
    lo, hi = exact - Fraction(float(below)), Fraction(float(above)) - exact
    if lo != hi:
        return float(below if lo < hi else above)
    bits = below.view(np.uint32 if dtype is np.float32 else np.uint64)
    return float(below if int(bits) % 2 == 0 else above)


def _sqrt_exact_bracket(x: float, mode: str, dtype=np.float32) -> float:
    c = dtype(math.sqrt(x))
    for _ in range(3):  # c: the largest value whose square is at most x
        if Fraction(float(c)) ** 2 > Fraction(x):
            c = np.nextafter(c, dtype(-np.inf))
        elif Fraction(float(np.nextafter(c, dtype(np.inf)))) ** 2 <= Fraction(x):
            c = np.nextafter(c, dtype(np.inf))
    if Fraction(float(c)) ** 2 == Fraction(x):
        return float(c)
    up = np.nextafter(c, dtype(np.inf))
    if mode in ("rd", "rz"):
        return float(c)
    if mode == "ru":
        return float(up)
    mid = (Fraction(float(c)) + Fraction(float(up))) / 2
    return float(c if mid * mid > Fraction(x) else up)


A, B = Fraction(_f32(1.1)), Fraction(_f32(3.0))
TINY = Fraction(_f32(1e-8))
DA, DB = Fraction(1.1), Fraction(3.0)
MODES = ("rn", "rz", "rd", "ru")

# (expression, expected, tolerance in float32 ulps or None for exact); floats go to fout
FLOAT_CASES: list[tuple[str, float, float | None]] = []
# (expression, expected): integers (exact) go to iout
INT_CASES: list[tuple[str, int]] = []

for m in MODES:
    FLOAT_CASES += [
        (f"__fadd_{m}(1.0f, 1e-8f)", _round(1 + TINY, m), None),
        (f"__fsub_{m}(1.0f, 1e-8f)", _round(1 - TINY, m), None),
        (f"__fmul_{m}(1.1f, 1.1f)", _round(A * A, m), None),
        (f"__fdiv_{m}(1.0f, 3.0f)", _round(Fraction(1) / B, m), None),
        (f"__fmaf_{m}(1.1f, 1.1f, 1e-8f)", _round(A * A + TINY, m), None),
        (f"__frcp_{m}(3.0f)", _round(1 / B, m), None),
        (f"__fsqrt_{m}(2.0f)", _sqrt_exact_bracket(2.0, m), None),
        (f"__int2float_{m}(16777217)", _round(Fraction(16777217), m), None),
        (f"__int2float_{m}(-16777217)", _round(Fraction(-16777217), m), None),
        (f"__uint2float_{m}(16777217u)", _round(Fraction(16777217), m), None),
        (f"__ll2float_{m}(16777219LL)", _round(Fraction(16777219), m), None),
        (f"__ull2float_{m}(16777219ULL)", _round(Fraction(16777219), m), None),
        (f"__double2float_{m}(1.0 / 3.0)", _round(Fraction(1.0 / 3.0), m), None),
        (f"__dadd_{m}(1.0, 1e-17)", _round(1 + Fraction(1e-17), m, np.float64), None),
        (f"__dsub_{m}(1.0, 1e-17)", _round(1 - Fraction(1e-17), m, np.float64), None),
        (f"__dmul_{m}(1.1, 1.1)", _round(DA * DA, m, np.float64), None),
        (f"__ddiv_{m}(1.0, 3.0)", _round(Fraction(1) / DB, m, np.float64), None),
        (f"__fma_{m}(1.1, 1.1, 1e-17)", _round(DA * DA + Fraction(1e-17), m, np.float64), None),
        (f"__drcp_{m}(3.0)", _round(1 / DB, m, np.float64), None),
        (f"__dsqrt_{m}(2.0)", _sqrt_exact_bracket(2.0, m, np.float64), None),
        (f"__ll2double_{m}(9007199254740993LL)", _round(Fraction(2**53 + 1), m, np.float64), None),
        (f"__ull2double_{m}(9007199254740993ULL)", _round(Fraction(2**53 + 1), m, np.float64),
         None),
    ]
    conv = {"rn": (-2, 2, 3), "rz": (-2, 2, 2), "rd": (-3, 2, 2), "ru": (-2, 3, 3)}[m]
    for src, x in (("float", "2.5f"), ("double", "2.5")):
        for to in ("int", "ll"):
            INT_CASES.append((f"__{src}2{to}_{m}(-{x})", conv[0]))
        for to in ("uint", "ull"):
            INT_CASES.append((f"__{src}2{to}_{m}({x})", conv[1]))
    INT_CASES.append((f"__float2int_{m}(3.5f)", {"rn": 4, "rz": 3, "rd": 3, "ru": 4}[m]))

INT_CASES += [
    ("__float2int_rn(1e10f)", 2**31 - 1), ("__float2int_rz(-1e10f)", -2**31),
    ("__float2int_rn(__int_as_float(0x7fc00000))", 0), ("__float2uint_rn(-5.0f)", 0),
    ("__float_as_int(1.0f)", 0x3F800000), ("__float_as_uint(-0.0f)", 0x80000000),
    ("__double_as_longlong(1.0)", 0x3FF0000000000000), ("__double2hiint(1.0)", 0x3FF00000),
    ("__double2loint(__longlong_as_double(0x1234567887654321LL))", 0x87654321 - 2**32),
    ("__popc(0xF0F0u)", 8), ("__popcll(0xFFFFFFFFFFULL)", 40), ("__clz(1)", 31), ("__clz(0)", 32),
    ("__clzll(1LL)", 63), ("__ffs(8)", 4), ("__ffs(0)", 0), ("__ffsll(1LL << 40)", 41),
    ("__brev(1u)", 0x80000000), ("__brevll(1ULL)", -2**63),
    ("__byte_perm(0x33221100u, 0x77665544u, 0x5140u)", 0x55114400 & 0xFFFFFFFF and 0x55114400),
    ("__mul24(-3, 5)", -15), ("__umul24(0x1000003u, 2u)", 6), ("__mulhi(1 << 30, 8)", 2),
    ("__umulhi(0x80000000u, 4u)", 2), ("__mul64hi(1LL << 62, 8LL)", 2),
    ("__umul64hi(1ULL << 63, 4ULL)", 2), ("__sad(3, 10, 1u)", 8), ("__usad(10u, 3u, 1u)", 8),
    ("__hadd(3, 4)", 3), ("__rhadd(3, 4)", 4), ("__uhadd(0xFFFFFFFFu, 1u)", 0x80000000),
    ("__urhadd(3u, 4u)", 4),
    ("__funnelshift_l(0x80000000u, 1u, 1u)", 3), ("__funnelshift_lc(0u, 1u, 40u)", 0),
    ("__funnelshift_r(1u, 1u, 1u)", 0x80000000), ("__funnelshift_rc(0u, 2u, 40u)", 2),
    ("__float2ll_rn(3.0e12f)", int(np.float32(3.0e12))), ("__float2ull_rz(3.9f)", 3),
    ("abs(-7)", 7), ("min(3, 9)", 3), ("max(3u, 9u)", 9), ("ilogbf(10.0f)", 3), ("ilogb(10.0)", 3),
    ("lrintf(2.5f)", 2), ("llrintf(3.5f)", 4), ("lroundf(2.5f)", 3), ("llroundf(-2.5f)", -3),
    ("lrint(2.5)", 2), ("llrint(3.5)", 4), ("lround(2.5)", 3), ("llround(-2.5)", -3),
    ("(int)signbit(-1.0f)", 1), ("(int)isnan(0.0f / 0.0f)", 1), ("(int)isinf(1.0f / 0.0f)", 1),
    ("(int)isfinite(1.0f)", 1),
    ("({ int q; remquof(7.0f, 2.0f, &q); q; })", 4), ("({ int q; remquo(7.0, 2.0, &q); q; })", 4),
    ("({ int e; frexpf(8.0f, &e); e; })", 4), ("({ int e; frexp(8.0, &e); e; })", 4),
]


def _ulp_case(expr: str, want: float, ulps: float = 4.0):
    FLOAT_CASES.append((expr, want, ulps))


_X = 0.7
for fn, ref in [("acos", math.acos), ("asin", math.asin), ("atan", math.atan),
                ("cbrt", lambda x: x ** (1 / 3)), ("ceil", math.ceil), ("cos", math.cos),
                ("cosh", math.cosh), ("erfc", math.erfc), ("erf", math.erf), ("exp", math.exp),
                ("exp2", lambda x: 2 ** x), ("exp10", lambda x: 10 ** x), ("expm1", math.expm1),
                ("fabs", abs), ("floor", math.floor), ("lgamma", math.lgamma), ("log", math.log),
                ("log10", math.log10), ("log1p", math.log1p), ("log2", math.log2),
                ("logb", lambda x: math.floor(math.log2(x))), ("nearbyint", round),
                ("rint", round), ("round", round), ("rsqrt", lambda x: 1 / math.sqrt(x)),
                ("rcbrt", lambda x: x ** (-1 / 3)), ("sin", math.sin), ("sinh", math.sinh),
                ("sqrt", math.sqrt), ("tan", math.tan), ("tanh", math.tanh),
                ("tgamma", math.gamma), ("trunc", math.trunc),
                ("sinpi", lambda x: math.sin(math.pi * x)),
                ("cospi", lambda x: math.cos(math.pi * x)),
                ("erfcx", lambda x: math.exp(x * x) * math.erfc(x)),
                ("normcdf", lambda x: 0.5 * math.erfc(-x / math.sqrt(2)))]:
    _ulp_case(f"{fn}f({_X}f)", ref(_f32(_X)))
    _ulp_case(f"{fn}({_X})", ref(_X), 1e-6)
for fn, ref in [("acosh", math.acosh), ("asinh", math.asinh)]:
    _ulp_case(f"{fn}f(1.7f)", ref(_f32(1.7)))
    _ulp_case(f"{fn}(1.7)", ref(1.7), 1e-6)
_ulp_case("atanhf(0.5f)", math.atanh(0.5))
_ulp_case("atanh(0.5)", math.atanh(0.5), 1e-6)


def _erfinv(y: float) -> float:
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2


for suffix, tol in (("f", 8.0), ("", 1e-5)):
    lit = "f" if suffix else ""
    _ulp_case(f"erfinv{suffix}(0.5{lit})", _erfinv(0.5), tol)
    _ulp_case(f"erfcinv{suffix}(0.5{lit})", _erfinv(0.5), tol)
    _ulp_case(f"normcdfinv{suffix}(0.975{lit})", math.sqrt(2) * _erfinv(2 * _f32(0.975) - 1
                                                                        if suffix else 0.95), tol)
    _ulp_case(f"atan2{suffix}(1.0{lit}, 2.0{lit})", math.atan2(1, 2), tol)
    _ulp_case(f"copysign{suffix}(3.0{lit}, -1.0{lit})", -3.0, tol)
    _ulp_case(f"fdim{suffix}(5.0{lit}, 3.0{lit})", 2.0, tol)
    _ulp_case(f"fma{suffix}(2.0{lit}, 3.0{lit}, 1.0{lit})", 7.0, tol)
    _ulp_case(f"fmax{suffix}(2.0{lit}, 3.0{lit})", 3.0, tol)
    _ulp_case(f"fmin{suffix}(2.0{lit}, 3.0{lit})", 2.0, tol)
    _ulp_case(f"fmod{suffix}(7.5{lit}, 2.0{lit})", 1.5, tol)
    _ulp_case(f"hypot{suffix}(3.0{lit}, 4.0{lit})", 5.0, tol)
    _ulp_case(f"rhypot{suffix}(3.0{lit}, 4.0{lit})", 0.2, tol)
    _ulp_case(f"ldexp{suffix}(3.0{lit}, 2)", 12.0, tol)
    _ulp_case(f"scalbn{suffix}(3.0{lit}, 2)", 12.0, tol)
    _ulp_case(f"scalbln{suffix}(3.0{lit}, 2L)", 12.0, tol)
    _ulp_case(f"nextafter{suffix}(1.0{lit}, 2.0{lit})",
              float(np.nextafter(F32(1), F32(2))) if suffix else float(np.nextafter(1.0, 2.0)),
              tol)
    _ulp_case(f"pow{suffix}(2.0{lit}, 10.0{lit})", 1024.0, tol)
    _ulp_case(f"remainder{suffix}(7.0{lit}, 2.0{lit})", -1.0, tol)
    _ulp_case(f"remquo{suffix}(7.0{lit}, 2.0{lit}, &q)".replace("&q", "&iq"), -1.0, tol)
    _ulp_case(f"norm3d{suffix}(2.0{lit}, 3.0{lit}, 6.0{lit})", 7.0, tol)
    _ulp_case(f"rnorm3d{suffix}(2.0{lit}, 3.0{lit}, 6.0{lit})", 1 / 7, tol)
    _ulp_case(f"norm4d{suffix}(1.0{lit}, 1.0{lit}, 1.0{lit}, 1.0{lit})", 2.0, tol)
    _ulp_case(f"rnorm4d{suffix}(1.0{lit}, 1.0{lit}, 1.0{lit}, 1.0{lit})", 0.5, tol)
    _ulp_case(f"frexp{suffix}(8.0{lit}, &iq)", 0.5, tol)
    _ulp_case(f"modf{suffix}(2.75{lit}, &fq{'f' if suffix else 'd'})", 0.75, tol)
    _ulp_case(f"({{ sincos{suffix}(0.5{lit}, &fq{'f' if suffix else 'd'}, &fr{'f' if suffix else 'd'}); "
              f"fq{'f' if suffix else 'd'} + 2 * fr{'f' if suffix else 'd'}; }})",
              math.sin(0.5) + 2 * math.cos(0.5), tol)
    _ulp_case(f"({{ sincospi{suffix}(0.25{lit}, &fq{'f' if suffix else 'd'}, "
              f"&fr{'f' if suffix else 'd'}); fq{'f' if suffix else 'd'} + "
              f"fr{'f' if suffix else 'd'}; }})", math.sqrt(2), tol)
_ulp_case("normf(3, v3)", 7.0)
_ulp_case("rnormf(3, v3)", 1 / 7)
_ulp_case("__expf(1.0f)", math.e, 64)
_ulp_case("__exp10f(1.0f)", 10.0, 64)
_ulp_case("__logf(2.0f)", math.log(2), 64)
_ulp_case("__log2f(8.0f)", 3.0, 64)
_ulp_case("__log10f(100.0f)", 2.0, 64)
_ulp_case("__powf(2.0f, 3.0f)", 8.0, 64)
_ulp_case("__sinf(0.5f)", math.sin(0.5), 64)
_ulp_case("__cosf(0.5f)", math.cos(0.5), 64)
_ulp_case("__tanf(0.5f)", math.tan(0.5), 64)
_ulp_case("({ __sincosf(0.5f, &fqf, &frf); fqf + 2 * frf; })", math.sin(0.5) + 2 * math.cos(0.5), 64)
_ulp_case("__fdividef(1.0f, 4.0f)", 0.25, 0)
_ulp_case("__saturatef(1.5f)", 1.0, 0)
_ulp_case("__saturatef(-0.5f)", 0.0, 0)
_ulp_case("__frsqrt_rn(4.0f)", 0.5, 0)
_ulp_case("__int_as_float(0x3F800000)", 1.0, 0)
_ulp_case("__uint_as_float(0x40000000u)", 2.0, 0)
_ulp_case("__longlong_as_double(0x3FF0000000000000LL)", 1.0, 0)
_ulp_case("__hiloint2double(0x3FF00000, 0)", 1.0, 0)
_ulp_case("__int2double_rn(-7)", -7.0, 0)
_ulp_case("__uint2double_rn(7u)", 7.0, 0)
_ulp_case("fdividef(1.0f, 8.0f)", 0.125, 0)
_ulp_case("ceilf(1.2f) + floorf(1.8f) + truncf(-1.5f) + roundf(2.5f) + rintf(2.5f)", 7.0, 0)

#: Listed names that are not plain expressions, covered by the kernel tests below.
KERNEL_COVERED = {
    "__activemask", "__all_sync", "__any_sync", "__ballot_sync", "__match_all_sync",
    "__match_any_sync", "__reduce_add_sync", "__reduce_and_sync", "__reduce_max_sync",
    "__reduce_min_sync", "__reduce_or_sync", "__reduce_xor_sync", "__shfl_down_sync",
    "__shfl_sync", "__shfl_up_sync", "__shfl_xor_sync", "__syncwarp", "__syncthreads",
    "__syncthreads_and", "__syncthreads_count", "__syncthreads_or", "__threadfence", "__threadfence_block", "__threadfence_system",
    "__nanosleep", "__trap", "atomicAdd", "atomicAnd", "atomicCAS", "atomicDec", "atomicExch",
    "atomicInc", "atomicMax", "atomicMin", "atomicOr", "atomicSub", "atomicXor",
    "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stcs", "__stcg", "__stwb",
    "__stwt",
}


def _scalar_source() -> str:
    lines = ["extern \"C\" __global__ void scalar_cases(double *fout, long long *iout) {",
             "    int iq = 0; float fqf = 0, frf = 0; double fqd = 0, frd = 0;",
             "    const float v3[3] = {2.0f, 3.0f, 6.0f};",
             "    (void)iq; (void)fqf; (void)frf; (void)fqd; (void)frd; (void)v3;"]
    for k, (expr, _, _) in enumerate(FLOAT_CASES):
        lines.append(f"    fout[{k}] = (double)({expr});")
    for k, (expr, _) in enumerate(INT_CASES):
        lines.append(f"    iout[{k}] = (long long)({expr});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_the_list_is_generated_from_the_headers():
    inc = device_api.find_include()
    if inc is None:
        pytest.skip("no CUDA include folder (a toolkit or a runtime wheel) to compare with")
    assert dict(device_api.generate(inc)) == device_api.listed(), (
        "regenerate: python -m andrea_gpu.executor.device_api")


def test_every_listed_function_has_a_case():
    text = " ".join(e for e, _, _ in FLOAT_CASES) + " " + " ".join(e for e, _ in INT_CASES)
    import re
    used = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)) | KERNEL_COVERED
    missing = sorted(device_api.names() - used)
    assert not missing, f"listed CUDA functions without a case: {missing}"


def test_scalar_functions_compute_what_the_gpu_computes():
    mod = Module(_scalar_source(), "device_api_scalar.cu", checked=False)
    fout = np.zeros(len(FLOAT_CASES))
    iout = np.zeros(len(INT_CASES), dtype=np.int64)
    mod.get_function("scalar_cases")((1,), (1,), (fout, iout), orders=("forward",))
    wrong = []
    for (expr, want, ulps), got in zip(FLOAT_CASES, fout):
        if ulps is None or ulps == 0:
            ok = got == want
        elif ulps < 1:  # a relative tolerance (double functions)
            ok = math.isclose(got, want, rel_tol=ulps, abs_tol=1e-12)
        else:
            ok = abs(got - want) <= ulps * float(np.spacing(F32(abs(want)) or F32(1e-30)))
        if not ok:
            wrong.append(f"{expr} = {got!r}, want {want!r}")
    for (expr, want), got in zip(INT_CASES, iout):
        if int(got) != want:
            wrong.append(f"{expr} = {int(got)}, want {want}")
    assert not wrong, "\n".join(wrong)


VEC = {"char2": ("b", 2), "char4": ("b", 4), "short2": ("h", 2), "short4": ("h", 4),
       "int2": ("i", 2), "int4": ("i", 4), "longlong2": ("q", 2), "uchar2": ("B", 2),
       "uchar4": ("B", 4), "ushort2": ("H", 2), "ushort4": ("H", 4), "uint2": ("I", 2),
       "uint4": ("I", 4), "ulonglong2": ("Q", 2), "float2": ("f", 2), "float4": ("f", 4),
       "double2": ("d", 2)}


def test_cache_hint_loads_and_stores_for_every_type():
    entries = [e.split(" ", 1) for e in device_api.listed() if e.startswith(("__ld", "__st"))]
    body = []
    for k, (fn, typ) in enumerate(entries):
        name = f"k{k}"
        if fn.startswith("__ld"):
            op = f"out[i] = {fn}(in + i);"
        else:
            op = f"{fn}(out + i, in[i]);"
        body.append(f'extern "C" __global__ void {name}(const unsigned char *src, unsigned char '
                    f'*dst, int n) {{\n    const {typ} *in = (const {typ} *)src; {typ} *out = '
                    f'({typ} *)dst;\n    for (int i = threadIdx.x; i < n; i += blockDim.x) '
                    f'{{ {op} }}\n}}\n')
    mod = Module("".join(body), "device_api_ldst.cu")
    rng = np.random.default_rng(1)
    for k, (fn, typ) in enumerate(entries):
        size = struct.calcsize(VEC[typ][0]) * VEC[typ][1] if typ in VEC else None
        if size is None:
            size = {"char": 1, "signed char": 1, "unsigned char": 1, "short": 2,
                    "unsigned short": 2, "int": 4, "unsigned int": 4, "long long": 8,
                    "unsigned long long": 8, "float": 4, "double": 8}[typ]
        n = 5
        src = rng.integers(0, 256, n * size, dtype=np.uint8)
        dst = np.zeros(n * size, dtype=np.uint8)
        mod.get_function(f"k{k}")((1,), (32,), (src, dst, np.int32(n)))
        assert np.array_equal(src, dst), f"{fn}({typ}) did not move the bytes"


WARP_SOURCE = r"""
extern "C" __global__ void warp_cases(const int *v, int *out) {
    const int t = threadIdx.x, lane = t % 32;
    const int x = v[t];
    int *o = out + 16 * t;
    o[0] = __shfl_sync(0xffffffffu, x, 3);
    o[1] = __shfl_down_sync(0xffffffffu, x, 1);
    o[2] = __shfl_up_sync(0xffffffffu, x, 2, 16);
    o[3] = __shfl_xor_sync(0xffffffffu, x, 5);
    o[4] = (int)__ballot_sync(__activemask(), x % 2);
    o[5] = __any_sync(0xffffffffu, x == 7);
    o[6] = __all_sync(0xffffffffu, x >= 0);
    o[7] = (int)__reduce_add_sync(0xffffffffu, (unsigned)x);
    o[8] = __reduce_min_sync(0xffffffffu, x);
    o[9] = __reduce_max_sync(0xffffffffu, x);
    o[10] = (int)(__reduce_and_sync(0xffffffffu, (unsigned)x | 1u) ^ __reduce_or_sync(0xffffffffu, (unsigned)x) ^ __reduce_xor_sync(0xffffffffu, (unsigned)x));
    o[11] = (int)__match_any_sync(0xffffffffu, x % 3);
    int pred = -1;
    o[12] = (int)__match_all_sync(0xffffffffu, lane < 32 ? 4.0f : 1.0f, &pred);
    o[13] = pred;
    __syncwarp();
    o[14] = __syncthreads_count(x % 2) * 1000 + __syncthreads_and(x >= 0) * 10 + __syncthreads_or(x == 100000);
    __threadfence(); __threadfence_block(); __threadfence_system();
    __nanosleep(10);
    o[15] = lane;
}
"""


def test_warp_and_block_functions():
    n = 64
    rng = np.random.default_rng(2)
    v = rng.integers(0, 50, n).astype(np.int32)
    v[5] = 7
    out = np.zeros(16 * n, dtype=np.int32)
    Module(WARP_SOURCE, "device_api_warp.cu").get_function("warp_cases")((1,), (n,), (v, out))
    o = out.reshape(n, 16)
    for t in range(n):
        w, lane = t // 32 * 32, t % 32
        seg = lane // 16 * 16
        wv = v[w:w + 32]
        want = [wv[3], wv[lane + 1] if lane + 1 < 32 else v[t],
                wv[lane - 2] if lane - 2 >= seg else v[t], wv[lane ^ 5],
                np.int64(sum(1 << i for i in range(32) if wv[i] % 2)).astype(np.int64),
                int((wv == 7).any()), 1, int(wv.sum()), int(wv.min()), int(wv.max()),
                None, sum(1 << i for i in range(32) if wv[i] % 3 == v[t] % 3), -1, 1,
                int((v % 2).sum()) * 1000 + 10, lane]
        and_ = np.bitwise_and.reduce(wv | 1)
        or_, xor_ = np.bitwise_or.reduce(wv), np.bitwise_xor.reduce(wv)
        want[10] = int(np.int32(np.uint32(and_) ^ np.uint32(or_) ^ np.uint32(xor_)))
        want[4] = int(np.uint32(want[4]).view(np.int32))
        want[11] = int(np.uint32(want[11]).view(np.int32))
        assert [int(x) for x in o[t]] == [int(x) for x in want], f"thread {t}"


ATOMIC_SOURCE = r"""
extern "C" __global__ void atomic_cases(int *i, unsigned *u, unsigned long long *ull, float *f,
                                        double *d, float *f4) {
    const int t = threadIdx.x;
    atomicAdd(i + 0, 2); atomicSub(i + 1, 1); atomicMax(i + 2, t); atomicMin(i + 3, -t);
    atomicAnd(i + 4, ~(1 << (t % 8))); atomicOr(i + 5, 1 << (t % 8)); atomicXor(i + 6, 1);
    atomicExch(i + 7, 5);
    int old = i[8];
    while (atomicCAS(i + 8, old, old + 1) != old) old = i[8];
    atomicInc(u + 0, 9u); atomicDec(u + 1, 9u); atomicAdd(u + 2, 1);
    atomicAdd(ull + 0, 3ULL); atomicMax(ull + 1, (unsigned long long)t);
    atomicAdd(f + 0, 0.5f); atomicMax(f + 1, (float)t); atomicMin(f + 2, (float)-t);
    atomicExch(f + 3, 2.0f);
    atomicAdd(d + 0, 0.25);
    atomicAdd((float4 *)f4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
    atomicAdd((float2 *)(f4 + 4), make_float2(1.0f, -1.0f));
    atomicAdd_block(i + 9, 1); atomicAdd_system(i + 10, 1);
}
"""


def test_atomics_on_int_and_float():
    n = 40
    i = np.zeros(11, dtype=np.int32)
    i[4] = -1
    u = np.zeros(3, dtype=np.uint32)
    ull = np.zeros(2, dtype=np.uint64)
    f = np.zeros(4, dtype=np.float32)
    d = np.zeros(1)
    f4 = np.zeros(8, dtype=np.float32)
    Module(ATOMIC_SOURCE, "device_api_atomic.cu").get_function("atomic_cases")(
        (1,), (n,), (i, u, ull, f, d, f4))
    assert i.tolist() == [2 * n, -n, n - 1, -(n - 1), -256, 255, 0, 5, n, n, n]
    assert u.tolist() == [n % 10, (9 * n) % 10 and (10 - n % 10) % 10, n]
    assert ull.tolist() == [3 * n, n - 1]
    assert f.tolist() == [0.5 * n, n - 1, -(n - 1), 2.0]
    assert d.tolist() == [0.25 * n]
    assert f4.tolist() == [n, 2 * n, 3 * n, 4 * n, n, -n, 0, 0]


def test_unknown_cuda_function_is_the_checkers_gap():
    src = ('extern "C" __global__ void k(float *x) { x[0] = not_a_cuda_function(x[0]); '
           'x[1] = __vadd4(1u, 2u); }\n')
    with pytest.raises(BuildError) as info:
        build(src, "gap.cu")
    assert device_api.missing_in_log(info.value.log) == ["__vadd4"]


def test_a_kernel_the_executor_cannot_build_is_the_checkers_gap(tmp_path):
    """A kernel that NVRTC compiles but the executor cannot (a CUDA function it lacks) is an
    ExecutorGap, whose message and hint tell the student it is not their error."""
    from andrea_gpu import host
    from andrea_gpu.submission import KernelContract
    from andrea_runtime import validate
    from graders.grade import messages as M

    src = (Path(__file__).resolve().parent / "kernels" / "submissions" /
           "correct_grid_stride_rows.cu").read_text()
    src = src.replace('extern "C"', 'static __device__ unsigned gap(unsigned x) '
                      '{ return __vadd4(x, x); }\nextern "C"', 1)
    path = tmp_path / "gap.cu"
    path.write_text(src)
    contract = KernelContract.from_spec()
    ok, log = host.compile_kernel_source(path, contract)
    assert ok, log
    with pytest.raises(host.ExecutorGap, match=r"uses __vadd4, which is CUDA but which the "
                                               r"checker's CPU executor does not provide yet"):
        host.load_kernel_submission(path, contract, validate, backend="cpu",
                                    compiled_for_gpu=True)
    assert M.import_hint("ExecutorGap", True) == M.HINT_EXECUTOR_GAP
    assert M.import_hint("SubmissionError", True) == M.IMPORT_HINT_KERNEL


def test_the_checkers_gap_through_the_grader(tmp_path):
    """andrea-grade's report of such a kernel: the ExecutorGap and its hint, not 'fix this
    error'."""
    from graders.grade import formats, messages as M
    from graders.grade.grading import grade, load_submission
    from spec import load_spec
    from tests.helpers import TEST_SANDBOX, fast_limits

    src = (Path(__file__).resolve().parent / "kernels" / "submissions" /
           "correct_grid_stride_rows.cu").read_text()
    path = tmp_path / "gap.cu"
    path.write_text(src.replace('extern "C"', 'static __device__ unsigned gap(unsigned x) '
                                '{ return __vadd4(x, x); }\nextern "C"', 1))
    rep = grade(load_submission(path), load_spec(), profile="dev", limits=fast_limits(),
                sandbox=TEST_SANDBOX, select=["lookup_selects_row"])
    assert rep["import"]["error"]["type"] == "ExecutorGap"
    text = formats.text(rep, "en", width=1000)
    assert "gap of the checker" in text and "Fix this error" not in text
    assert {c["hint"] for c in rep["checks"]} == {M.HINT_EXECUTOR_GAP}
