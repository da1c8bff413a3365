// andrea_gpu CPU executor: the CUDA dialect the ANDREA kernels use, for the host C++ compiler.
//
// The executor compiles a kernel .cu file unchanged, with this header in front of it, into a
// shared library. Each CUDA thread of a block runs as a fiber (its own stack) on one OS thread;
// __syncthreads() suspends the fiber until every live thread of the block has reached it.
// Blocks run one after the other, so a function-local `static` is exactly one block's
// __shared__ memory. See docs/gpu.md for what is and is not modelled.
#pragma once

#include <assert.h>   // the executor's (include/assert.h): assert() as a trap, as NVRTC has it
#include <cfloat>
#include <climits>
#include <cfenv>
#include <cmath>
#include <limits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>  // the launch stubs behind the kernel source
#include <type_traits>
#include <utility>

// ----------------------------------------------------------------------------- qualifiers
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
#define __constant__ static const
// Function-local statics of the section "andrea_shared" are one block's shared memory; the
// executor fills the whole section with 0xFF bytes (NaN as float) before every block so that a
// read before the write of another thread is visible. `extern __shared__ T name[];` (dynamic
// shared memory) is rewritten by the build step into a pointer to the launch's dynamic buffer.
#define __shared__ __attribute__((section("andrea_shared"))) static

// ----------------------------------------------------------------------------- vector types
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
#define ANDREA_VEC2(T, N, A) struct alignas(A) N { T x, y; }; \
    static inline N make_##N(T x, T y) { N v; v.x = x; v.y = y; return v; }
#define ANDREA_VEC4(T, N, A) struct alignas(A) N { T x, y, z, w; }; \
    static inline N make_##N(T x, T y, T z, T w) { N v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define ANDREA_VEC1(T, N, A) struct alignas(A) N { T x; }; \
    static inline N make_##N(T x) { N v; v.x = x; return v; }
#define ANDREA_VEC3(T, N, A) struct alignas(A) N { T x, y, z; }; \
    static inline N make_##N(T x, T y, T z) { N v; v.x = x; v.y = y; v.z = z; return v; }
#define ANDREA_VECS(T, N, S) ANDREA_VEC1(T, N##1, S) ANDREA_VEC2(T, N##2, 2 * S) \
    ANDREA_VEC3(T, N##3, S) ANDREA_VEC4(T, N##4, (4 * S > 16 ? 16 : 4 * S))
ANDREA_VECS(signed char, char, 1)
ANDREA_VECS(unsigned char, uchar, 1)
ANDREA_VECS(short, short, 2)
ANDREA_VECS(unsigned short, ushort, 2)
ANDREA_VECS(int, int, 4)
ANDREA_VEC1(unsigned int, uint1, 4)
ANDREA_VEC2(unsigned int, uint2, 8)
ANDREA_VEC4(unsigned int, uint4, 16)
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { uint3 v; v.x = x; v.y = y; v.z = z; return v; }
ANDREA_VECS(float, float, 4)
ANDREA_VEC1(long long, longlong1, 8)
ANDREA_VEC2(long long, longlong2, 16)
ANDREA_VEC1(unsigned long long, ulonglong1, 8)
ANDREA_VEC2(unsigned long long, ulonglong2, 16)
ANDREA_VEC1(double, double1, 8)
ANDREA_VEC2(double, double2, 16)
ANDREA_VEC3(double, double3, 8)
#undef ANDREA_VECS
#undef ANDREA_VEC1
#undef ANDREA_VEC3
#undef ANDREA_VEC2
#undef ANDREA_VEC4

// ----------------------------------------------------------------------------- built-ins
extern "C" {
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
}
static const int warpSize = 32;

namespace andrea_exec {
void barrier(const char *file, int line);   // __syncthreads
[[noreturn]] void trap(const char *file, int line);
void *dynamic_shared();
}  // namespace andrea_exec

#define __syncthreads() ::andrea_exec::barrier(__FILE__, __LINE__)

// Warp-level primitives: lanes are threads flat-index / 32 of the block; each primitive waits
// until every live lane of the warp reaches one (the mask argument is not consulted).
namespace andrea_exec {
void warp_sync(const char *file, int line);
unsigned long long warp_exchange(unsigned long long value, int src, const char *file, int line);
unsigned warp_ballot(int pred, const char *file, int line);
inline unsigned lane_id() {
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u;
}
template <typename T> static T shfl(T var, int src, const char *file, int line) {
    static_assert(sizeof(T) <= 8, "__shfl_*: values of at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = warp_exchange(bits, src, file, line);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}
inline int shfl_src(int lane, int src, int width) {  // a source outside the lane's segment: itself
    const int seg = lane / width * width;
    return (src < seg || src >= seg + width) ? lane : src;
}
}  // namespace andrea_exec
#define __syncwarp(...) ::andrea_exec::warp_sync(__FILE__, __LINE__)
#define __activemask() 0xffffffffu
#define __shfl_sync(mask, var, src, ...) ::andrea_exec::andrea_shfl_idx(var, src, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_down_sync(mask, var, delta, ...) ::andrea_exec::andrea_shfl_down(var, delta, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_up_sync(mask, var, delta, ...) ::andrea_exec::andrea_shfl_up(var, delta, __FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_xor_sync(mask, var, lmask, ...) ::andrea_exec::andrea_shfl_xor(var, lmask, __FILE__, __LINE__, ##__VA_ARGS__)
#define __ballot_sync(mask, pred) ::andrea_exec::warp_ballot((pred), __FILE__, __LINE__)
#define __any_sync(mask, pred) (::andrea_exec::warp_ballot((pred), __FILE__, __LINE__) != 0u)
#define __all_sync(mask, pred) (::andrea_exec::warp_ballot(!(pred), __FILE__, __LINE__) == 0u)
namespace andrea_exec {
template <typename T> T andrea_shfl_idx(T v, int src, const char *f, int l, int width = 32) {
    const int lane = (int)lane_id();
    return shfl(v, lane / width * width + ((src % width) + width) % width, f, l);
}
template <typename T> T andrea_shfl_down(T v, unsigned d, const char *f, int l, int width = 32) {
    const int lane = (int)lane_id();
    return shfl(v, shfl_src(lane, lane + (int)d, width), f, l);
}
template <typename T> T andrea_shfl_up(T v, unsigned d, const char *f, int l, int width = 32) {
    const int lane = (int)lane_id();
    return shfl(v, shfl_src(lane, lane - (int)d, width), f, l);
}
template <typename T> T andrea_shfl_xor(T v, int m, const char *f, int l, int width = 32) {
    const int lane = (int)lane_id();
    return shfl(v, shfl_src(lane, lane ^ m, width), f, l);
}
}  // namespace andrea_exec
// sm_70 / sm_80 warp functions: every live lane's value at once.
namespace andrea_exec {
unsigned warp_gather(unsigned long long value, unsigned long long *all, const char *file, int line);
template <typename T> static unsigned long long bits_of(T v) {
    static_assert(sizeof(T) <= 8, "__match_*_sync: values of at most 8 bytes");
    unsigned long long b = 0; std::memcpy(&b, &v, sizeof(T)); return b;
}
template <typename T> static unsigned match_any(T v, const char *f, int l) {
    unsigned long long all[32]; const unsigned live = warp_gather(bits_of(v), all, f, l);
    const unsigned long long me = bits_of(v); unsigned m = 0;
    for (unsigned i = 0; i < 32; ++i) if ((live >> i & 1u) && all[i] == me) m |= 1u << i;
    return m;
}
template <typename T> static unsigned match_all(T v, int *pred, const char *f, int l) {
    unsigned long long all[32]; const unsigned live = warp_gather(bits_of(v), all, f, l);
    const unsigned long long me = bits_of(v);
    for (unsigned i = 0; i < 32; ++i) if ((live >> i & 1u) && all[i] != me) { *pred = 0; return 0; }
    *pred = 1; return live;
}
template <typename T> static T warp_reduce(T v, int op, const char *f, int l) {
    unsigned long long all[32]; const unsigned live = warp_gather((unsigned long long)(long long)v, all, f, l);
    T r = v; bool first = true;
    for (unsigned i = 0; i < 32; ++i) {
        if (!(live >> i & 1u)) continue;
        const T x = (T)(long long)all[i];
        if (first) { r = x; first = false; continue; }
        switch (op) { case 0: r = (T)(r + x); break; case 1: r = x < r ? x : r; break;
                      case 2: r = x > r ? x : r; break; case 3: r = r & x; break;
                      case 4: r = r | x; break; default: r = r ^ x; }
    }
    return r;
}
int barrier_reduce(int pred, int op, const char *file, int line);  // __syncthreads_count/and/or
}  // namespace andrea_exec
#define __match_any_sync(mask, v) ::andrea_exec::match_any((v), __FILE__, __LINE__)
#define __match_all_sync(mask, v, pred) ::andrea_exec::match_all((v), (pred), __FILE__, __LINE__)
#define __reduce_add_sync(mask, v) ::andrea_exec::warp_reduce((v), 0, __FILE__, __LINE__)
#define __reduce_min_sync(mask, v) ::andrea_exec::warp_reduce((v), 1, __FILE__, __LINE__)
#define __reduce_max_sync(mask, v) ::andrea_exec::warp_reduce((v), 2, __FILE__, __LINE__)
#define __reduce_and_sync(mask, v) ::andrea_exec::warp_reduce((unsigned)(v), 3, __FILE__, __LINE__)
#define __reduce_or_sync(mask, v) ::andrea_exec::warp_reduce((unsigned)(v), 4, __FILE__, __LINE__)
#define __reduce_xor_sync(mask, v) ::andrea_exec::warp_reduce((unsigned)(v), 5, __FILE__, __LINE__)
#define __syncthreads_count(pred) ::andrea_exec::barrier_reduce(!!(pred), 0, __FILE__, __LINE__)
#define __syncthreads_and(pred) ::andrea_exec::barrier_reduce(!!(pred), 1, __FILE__, __LINE__)
#define __syncthreads_or(pred) ::andrea_exec::barrier_reduce(!!(pred), 2, __FILE__, __LINE__)
#define __trap() ::andrea_exec::trap(__FILE__, __LINE__)
// Memory fences: fibers share one OS thread, so a fence only tells the race checker (a fence
// then an atomic is a release, runtime.cpp) and keeps the compiler from moving accesses across.
namespace andrea_exec { void fence(int device); }
#define __threadfence() (::andrea_exec::fence(1), __atomic_signal_fence(__ATOMIC_SEQ_CST))
#define __threadfence_block() (::andrea_exec::fence(0), __atomic_signal_fence(__ATOMIC_SEQ_CST))

// Atomics: fibers never run at the same time, so a read-modify-write is atomic as written.
// They are not instrumented by the compiler; each one tells the runtime its address and its
// caller's address first (atomic_begin), which records it for the race checker as an atomic
// (it never races with another atomic, but does with another thread's unordered plain read or
// write of the same word) and marks the launch as one whose float results may depend on the
// order of the threads: an access out of bounds, or a fault inside it, is reported at the
// student's call site, not here. The value's type may differ from the
// pointee's (atomicAdd(&count, 1) on an unsigned), as CUDA's overloads allow.
namespace andrea_exec {
extern int atomics_used;
// block_scope: atomicAdd_block and the like, atomic only among the threads of one block (they
// race with another block's atomic on the same word).
// cmp: atomicCAS's compare value (the race checker forgives the plain read it checks).
void atomic_begin(const void *p, size_t n, const void *site, int block_scope, const void *cmp);
void atomic_end();
template <typename T> struct same { typedef T type; };
}
#define ANDREA_ATOMIC template <typename T, typename U> __attribute__((no_sanitize_thread, noinline)) static T
#define ANDREA_BEGIN(S) ::andrea_exec::atomic_begin(p, sizeof(T), __builtin_return_address(0), S, nullptr)
#define ANDREA_RMW1(NAME, S, EXPR) \
    ANDREA_ATOMIC NAME(T *p, U u) { ANDREA_BEGIN(S); T v = (T)u; T old = *p; *p = (EXPR); ::andrea_exec::atomic_end(); return old; }
#define ANDREA_RMW(NAME, EXPR) ANDREA_RMW1(NAME, 0, EXPR) ANDREA_RMW1(NAME##_block, 1, EXPR)
ANDREA_RMW(atomicAdd, old + v)
ANDREA_RMW(atomicSub, old - v)
ANDREA_RMW(atomicExch, v)
ANDREA_RMW(atomicMin, v < old ? v : old)
ANDREA_RMW(atomicMax, v > old ? v : old)
ANDREA_RMW(atomicAnd, old & v)
ANDREA_RMW(atomicOr, old | v)
ANDREA_RMW(atomicXor, old ^ v)
ANDREA_RMW(atomicInc, old >= v ? 0 : old + 1)
ANDREA_RMW(atomicDec, (old == 0 || old > v) ? v : old - 1)
#define ANDREA_CAS(NAME, S) \
    template <typename T, typename U, typename V> __attribute__((no_sanitize_thread, noinline)) \
    static T NAME(T *p, U cmp, V val) { \
        const T c = (T)cmp; ::andrea_exec::atomic_begin(p, sizeof(T), __builtin_return_address(0), S, &c); \
        T old = *p; if (old == c) *p = (T)val; ::andrea_exec::atomic_end(); return old; \
    }
ANDREA_CAS(atomicCAS, 0)
ANDREA_CAS(atomicCAS_block, 1)
// sm_90: atomicAdd on float2 / float4 (each component atomically)
#define ANDREA_ADD_VEC(NAME, S) \
    __attribute__((no_sanitize_thread, noinline)) static float2 NAME(float2 *p, float2 v) { \
        typedef float2 T; ANDREA_BEGIN(S); float2 old = *p; p->x = old.x + v.x; p->y = old.y + v.y; \
        ::andrea_exec::atomic_end(); return old; \
    } \
    __attribute__((no_sanitize_thread, noinline)) static float4 NAME(float4 *p, float4 v) { \
        typedef float4 T; ANDREA_BEGIN(S); float4 old = *p; p->x = old.x + v.x; p->y = old.y + v.y; \
        p->z = old.z + v.z; p->w = old.w + v.w; ::andrea_exec::atomic_end(); return old; \
    }
ANDREA_ADD_VEC(atomicAdd, 0)
ANDREA_ADD_VEC(atomicAdd_block, 1)
#undef ANDREA_ADD_VEC
#undef ANDREA_CAS
#undef ANDREA_RMW
#undef ANDREA_RMW1
#undef ANDREA_BEGIN
#undef ANDREA_ATOMIC
// System-scoped atomics are device-scoped ones here (one process).
#define atomicAdd_system atomicAdd
#define atomicSub_system atomicSub
#define atomicExch_system atomicExch
#define atomicMin_system atomicMin
#define atomicMax_system atomicMax
#define atomicAnd_system atomicAnd
#define atomicOr_system atomicOr
#define atomicXor_system atomicXor
#define atomicInc_system atomicInc
#define atomicDec_system atomicDec
#define atomicCAS_system atomicCAS

// Loads and stores with cache hints (sm_32_intrinsics.h: read-only, cache-global, cache-all,
// streaming, last-use, volatile; write-back, cache-global, streaming, write-through): plain
// accesses here, for every scalar and vector type. Always inlined, so the race checker and the
// fault handler see the student's line.
#define ANDREA_LOAD(NAME) \
    template <typename T> static inline __attribute__((always_inline)) T NAME(const T *p) { return *p; }
ANDREA_LOAD(__ldg) ANDREA_LOAD(__ldcg) ANDREA_LOAD(__ldca) ANDREA_LOAD(__ldcs) ANDREA_LOAD(__ldlu)
ANDREA_LOAD(__ldcv)
#undef ANDREA_LOAD
#define ANDREA_STORE(NAME) \
    template <typename T> static inline __attribute__((always_inline)) void NAME(T *p, typename ::andrea_exec::same<T>::type v) { *p = v; }
ANDREA_STORE(__stwb) ANDREA_STORE(__stcg) ANDREA_STORE(__stcs) ANDREA_STORE(__stwt)
#undef ANDREA_STORE

// min/max for mixed argument types, as CUDA's overloads allow.
template <typename A, typename B> static inline auto min(A a, B b) -> decltype(a + b) { return b < a ? b : a; }
template <typename A, typename B> static inline auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }

// Math: the C library's float and double functions (glibc has exp10f, sincosf... and declares
// CUDA's fast intrinsics __expf, __sinf... as its internal names without exporting them: they are
// defined here), plus CUDA's own functions and intrinsics. Operations with a
// rounding mode (_rn nearest, _rz toward zero, _rd down, _ru up) round as the GPU does: the
// operation runs under that rounding mode of the CPU.
using std::sqrt; using std::fabs; using std::exp; using std::log; using std::fmin; using std::fmax;
using std::signbit; using std::isnan; using std::isinf; using std::isfinite;
namespace andrea_exec {
template <typename F> static inline auto rounded(int mode, F f) -> decltype(f()) {
    const int old = std::fegetround();
    std::fesetround(mode);
    volatile decltype(f()) r = f();
    std::fesetround(old);
    return r;
}
// float -> integer as the GPU converts: NaN gives 0, values out of range saturate.
template <typename I, typename F> static inline I sat(F x) {
    if (x != x) return 0;
    if (x <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (x >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)x;
}
template <typename F> static inline F volatile_(F x) { volatile F v = x; return v; }
}  // namespace andrea_exec
#define ANDREA_RN FE_TONEAREST
#define ANDREA_RZ FE_TOWARDZERO
#define ANDREA_RD FE_DOWNWARD
#define ANDREA_RU FE_UPWARD
#define ANDREA_ROUNDED4(M) M(rn, ANDREA_RN) M(rz, ANDREA_RZ) M(rd, ANDREA_RD) M(ru, ANDREA_RU)
#define ANDREA_BIN(NAME, T, OP, S, MODE) \
    static inline T NAME##_##S(T a, T b) { return ::andrea_exec::rounded(MODE, [&] { return ::andrea_exec::volatile_(a) OP ::andrea_exec::volatile_(b); }); }
#define ANDREA_F(S, MODE) \
    ANDREA_BIN(__fadd, float, +, S, MODE) ANDREA_BIN(__fsub, float, -, S, MODE) \
    ANDREA_BIN(__fmul, float, *, S, MODE) ANDREA_BIN(__fdiv, float, /, S, MODE) \
    ANDREA_BIN(__dadd, double, +, S, MODE) ANDREA_BIN(__dsub, double, -, S, MODE) \
    ANDREA_BIN(__dmul, double, *, S, MODE) ANDREA_BIN(__ddiv, double, /, S, MODE) \
    static inline float __fmaf_##S(float a, float b, float c) { return ::andrea_exec::rounded(MODE, [&] { return std::fma(::andrea_exec::volatile_(a), b, c); }); } \
    static inline float __fmaf_ieee_##S(float a, float b, float c) { return __fmaf_##S(a, b, c); } \
    static inline double __fma_##S(double a, double b, double c) { return ::andrea_exec::rounded(MODE, [&] { return std::fma(::andrea_exec::volatile_(a), b, c); }); } \
    static inline float __frcp_##S(float a) { return ::andrea_exec::rounded(MODE, [&] { return 1.0f / ::andrea_exec::volatile_(a); }); } \
    static inline double __drcp_##S(double a) { return ::andrea_exec::rounded(MODE, [&] { return 1.0 / ::andrea_exec::volatile_(a); }); } \
    static inline float __fsqrt_##S(float a) { return ::andrea_exec::rounded(MODE, [&] { return std::sqrt(::andrea_exec::volatile_(a)); }); } \
    static inline double __dsqrt_##S(double a) { return ::andrea_exec::rounded(MODE, [&] { return std::sqrt(::andrea_exec::volatile_(a)); }); } \
    static inline float __int2float_##S(int a) { return ::andrea_exec::rounded(MODE, [&] { return (float)::andrea_exec::volatile_(a); }); } \
    static inline float __uint2float_##S(unsigned a) { return ::andrea_exec::rounded(MODE, [&] { return (float)::andrea_exec::volatile_(a); }); } \
    static inline float __ll2float_##S(long long a) { return ::andrea_exec::rounded(MODE, [&] { return (float)::andrea_exec::volatile_(a); }); } \
    static inline float __ull2float_##S(unsigned long long a) { return ::andrea_exec::rounded(MODE, [&] { return (float)::andrea_exec::volatile_(a); }); } \
    static inline double __ll2double_##S(long long a) { return ::andrea_exec::rounded(MODE, [&] { return (double)::andrea_exec::volatile_(a); }); } \
    static inline double __ull2double_##S(unsigned long long a) { return ::andrea_exec::rounded(MODE, [&] { return (double)::andrea_exec::volatile_(a); }); } \
    static inline float __double2float_##S(double a) { return ::andrea_exec::rounded(MODE, [&] { return (float)::andrea_exec::volatile_(a); }); }
ANDREA_ROUNDED4(ANDREA_F)
#undef ANDREA_F
#undef ANDREA_BIN
// float/double -> integers: rn to nearest even, rz toward zero, rd down, ru up; saturating.
#define ANDREA_CVT(FROM, F, TO, I) \
    static inline I __##FROM##2##TO##_rn(F x) { return ::andrea_exec::sat<I>(std::nearbyint(x)); } \
    static inline I __##FROM##2##TO##_rz(F x) { return ::andrea_exec::sat<I>(std::trunc(x)); } \
    static inline I __##FROM##2##TO##_rd(F x) { return ::andrea_exec::sat<I>(std::floor(x)); } \
    static inline I __##FROM##2##TO##_ru(F x) { return ::andrea_exec::sat<I>(std::ceil(x)); }
ANDREA_CVT(float, float, int, int) ANDREA_CVT(float, float, uint, unsigned)
ANDREA_CVT(float, float, ll, long long) ANDREA_CVT(float, float, ull, unsigned long long)
ANDREA_CVT(double, double, int, int) ANDREA_CVT(double, double, uint, unsigned)
ANDREA_CVT(double, double, ll, long long) ANDREA_CVT(double, double, ull, unsigned long long)
#undef ANDREA_CVT
#undef ANDREA_ROUNDED4
static inline double __int2double_rn(int a) { return (double)a; }
static inline double __uint2double_rn(unsigned a) { return (double)a; }
static inline float rsqrtf(float x) { return (float)(1.0 / std::sqrt((double)x)); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float __frsqrt_rn(float x) { return rsqrtf(x); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float rcbrtf(float x) { return (float)(1.0 / std::cbrt((double)x)); }
static inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static inline float sinpif(float x) { return (float)std::sin(M_PI * (double)x); }
static inline float cospif(float x) { return (float)std::cos(M_PI * (double)x); }
static inline double sinpi(double x) { return std::sin(M_PI * x); }
static inline double cospi(double x) { return std::cos(M_PI * x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
static inline float normcdff(float x) { return (float)(0.5 * std::erfc(-(double)x / M_SQRT2)); }
static inline double normcdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }
namespace andrea_exec {
static inline double erfinv(double y) {  // Newton's method on erf, from a close first guess
    if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
    if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
    const double a = 0.147, l = std::log(1.0 - y * y), t = 2.0 / (M_PI * a) + l / 2.0;
    double x = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), y);
    for (int i = 0; i < 4; ++i) x -= (std::erf(x) - y) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
    return x;
}
}  // namespace andrea_exec
static inline float erfinvf(float y) { return (float)::andrea_exec::erfinv(y); }
static inline double erfinv(double y) { return ::andrea_exec::erfinv(y); }
static inline float erfcinvf(float y) { return (float)::andrea_exec::erfinv(1.0 - (double)y); }
static inline double erfcinv(double y) { return ::andrea_exec::erfinv(1.0 - y); }
static inline float normcdfinvf(float y) { return (float)(-M_SQRT2 * ::andrea_exec::erfinv(1.0 - 2.0 * (double)y)); }
static inline double normcdfinv(double y) { return -M_SQRT2 * ::andrea_exec::erfinv(1.0 - 2.0 * y); }
static inline float erfcxf(float x) { return (float)(std::exp((double)x * x) * std::erfc((double)x)); }
static inline double erfcx(double x) { return std::exp(x * x) * std::erfc(x); }
static inline float norm3df(float a, float b, float c) { return (float)std::sqrt((double)a * a + (double)b * b + (double)c * c); }
static inline float rnorm3df(float a, float b, float c) { return (float)(1.0 / std::sqrt((double)a * a + (double)b * b + (double)c * c)); }
static inline float norm4df(float a, float b, float c, float d) { return (float)std::sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d); }
static inline float rnorm4df(float a, float b, float c, float d) { return (float)(1.0 / std::sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d)); }
static inline float rhypotf(float a, float b) { return (float)(1.0 / std::hypot((double)a, (double)b)); }
static inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }
static inline double norm3d(double a, double b, double c) { return std::sqrt(a * a + b * b + c * c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline double norm4d(double a, double b, double c, double d) { return std::sqrt(a * a + b * b + c * c + d * d); }
static inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
static inline float normf(int n, const float *a) { double s = 0; for (int i = 0; i < n; ++i) s += (double)a[i] * a[i]; return (float)std::sqrt(s); }
static inline float rnormf(int n, const float *a) { return 1.0f / normf(n, a); }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
static inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
static inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
extern "C" {
float __expf(float x) noexcept { return std::exp(x); }
float __exp10f(float x) noexcept { return (float)std::pow(10.0, (double)x); }
float __logf(float x) noexcept { return std::log(x); }
float __log2f(float x) noexcept { return std::log2(x); }
float __log10f(float x) noexcept { return std::log10(x); }
float __powf(float x, float y) noexcept { return std::pow(x, y); }
float __sinf(float x) noexcept { return std::sin(x); }
float __cosf(float x) noexcept { return std::cos(x); }
float __tanf(float x) noexcept { return std::tan(x); }
void __sincosf(float x, float *s, float *c) noexcept { *s = std::sin(x); *c = std::cos(x); }
}
static inline int __double2hiint(double d) { return (int)(__double_as_longlong(d) >> 32); }
static inline int __double2loint(double d) { return (int)(unsigned)__double_as_longlong(d); }
static inline double __hiloint2double(int hi, int lo) { return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo)); }
// Integer intrinsics (device_functions.h, sm_32_intrinsics.h).
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1); x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4); return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x) { return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32)); }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x; unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return r;
}
static inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static inline unsigned __sad(int a, int b, unsigned c) { return (unsigned)(a > b ? (long long)a - b : (long long)b - a) + c; }
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)((v << (s & 31)) >> 32); }
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)((v << (s > 32 ? 32 : s)) >> 32); }
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)(v >> (s & 31)); }
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)(v >> (s > 32 ? 32 : s)); }
// Timing and scheduling hints: nothing to wait for here.
static inline void __nanosleep(unsigned) {}
static inline long long clock64() { static long long t = 0; return t += 1000; }
#define __threadfence_system() __threadfence()

// ----------------------------------------------------------------------------- refused words
// The kernel file is checked for these before it is compiled (andrea_gpu/host.py), but a macro
// can paste them together (`CAT(as, m)`): a pasted name is looked up as a macro again, so these
// definitions turn it into a compile error. Inline assembly can read files (.incbin) and run
// anything; the sanitizer attributes would switch the race checker off for a function.
#define asm andrea_refused_inline_assembly
#define __asm andrea_refused_inline_assembly
#define __asm__ andrea_refused_inline_assembly
#define no_sanitize andrea_refused_attribute
#define no_sanitize_thread andrea_refused_attribute
#define __no_sanitize__ andrea_refused_attribute
#define __no_sanitize_thread__ andrea_refused_attribute
#define disable_sanitizer_instrumentation andrea_refused_attribute
#define __disable_sanitizer_instrumentation__ andrea_refused_attribute
