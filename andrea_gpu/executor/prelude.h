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
#include <cmath>
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
ANDREA_VEC2(float, float2, 8)
ANDREA_VEC4(float, float4, 16)
ANDREA_VEC2(double, double2, 16)
ANDREA_VEC2(int, int2, 8)
ANDREA_VEC4(int, int4, 16)
ANDREA_VEC2(unsigned int, uint2, 8)
ANDREA_VEC4(unsigned int, uint4, 16)
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
#define __trap() ::andrea_exec::trap(__FILE__, __LINE__)
// Memory fences order nothing on one OS thread; a compiler barrier keeps their meaning for -O2.
#define __threadfence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_signal_fence(__ATOMIC_SEQ_CST)

// Atomics: fibers never run at the same time, so a read-modify-write is atomic as written.
// They are not instrumented for the race checker (an atomic never races) and mark the launch
// as one whose float results may depend on the order of the threads.
namespace andrea_exec { extern int atomics_used; void atomic_touch(const void *p, size_t n); }
#define ANDREA_ATOMIC template <typename T> __attribute__((no_sanitize_thread, noinline)) static T
ANDREA_ATOMIC atomicAdd(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old + v; return old; }
ANDREA_ATOMIC atomicSub(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old - v; return old; }
ANDREA_ATOMIC atomicExch(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = v; return old; }
ANDREA_ATOMIC atomicMin(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = v < old ? v : old; return old; }
ANDREA_ATOMIC atomicMax(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = v > old ? v : old; return old; }
ANDREA_ATOMIC atomicAnd(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old & v; return old; }
ANDREA_ATOMIC atomicOr(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old | v; return old; }
ANDREA_ATOMIC atomicXor(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old ^ v; return old; }
ANDREA_ATOMIC atomicCAS(T *p, T cmp, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; if (old == cmp) *p = v; return old; }
ANDREA_ATOMIC atomicInc(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = old >= v ? 0 : old + 1; return old; }
ANDREA_ATOMIC atomicDec(T *p, T v) { andrea_exec::atomics_used = 1; andrea_exec::atomic_touch(p, sizeof(T)); T old = *p; *p = (old == 0 || old > v) ? v : old - 1; return old; }
#undef ANDREA_ATOMIC

// Loads through the read-only cache are plain loads here.
template <typename T> static inline T __ldg(const T *p) { return *p; }

// min/max for mixed argument types, as CUDA's overloads allow.
template <typename A, typename B> static inline auto min(A a, B b) -> decltype(a + b) { return b < a ? b : a; }
template <typename A, typename B> static inline auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }

// Math: the C library's float and double functions (glibc already has __expf, __logf), plus
// CUDA's intrinsics and casts.
using std::sqrt; using std::fabs; using std::exp; using std::log; using std::fmin; using std::fmax;
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
static inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
static inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
static inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }

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
