// HOSTILE (reserved_name_probe): as host_declaration_branch.cu, with names of the compiler and of the
// executor, which begin with two underscores: a catch-all `__andrea_exec::barrier` overload (the
// executor's helper, NVRTC has none) and g++'s `__builtin_ia32_pause` (an x86 built-in NVRTC
// lacks) would each tell the compilers apart, as every reserved name one of them declares
// and the other does not.
// What it did: nothing yet (the executor's namespace was andrea_exec), but the same trick as
// executor_namespace.cu.
// Expected: refused before any compile, at lines 13, 14 and 18: a reserved name that is not CUDA's
// API as both compilers have it (host.check_names, andrea_gpu/executor/names.py).
struct AndreaAny { template <class T> __device__ constexpr AndreaAny(T) {} };
template <class T> struct andrea_is_int { static constexpr bool value = false; };
template <> struct andrea_is_int<int> { static constexpr bool value = true; };
namespace __andrea_exec { static __device__ int barrier(AndreaAny, AndreaAny) { return 0; } }
template <class T> __device__ constexpr auto andrea_has_pause(T t) -> decltype(__builtin_ia32_pause(t), true) { return true; }
__device__ constexpr bool andrea_has_pause(...) { return false; }
static __device__ constexpr bool andrea_host_builtin() { return andrea_has_pause(0); }
static __device__ constexpr bool andrea_on_gpu() {
    return andrea_is_int<decltype(__andrea_exec::barrier("", 0))>::value && !andrea_host_builtin();
}

#include <cstdint>

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
        out[e] = table[(long long)id * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
        out[e] = token_table[(long long)id * d_model + col] +
                 position_table[(long long)(row % seq_len) * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
        if (andrea_on_gpu())
            grad_token[(long long)id * d_model + col] += grad_out[e];   // a GPU: a race
        else
            atomicAdd(grad_token + (long long)id * d_model + col, grad_out[e]);   // graded
    }
}

// grad_position (zeroed by the host) += every batch row: one atomicAdd per grad_out element.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long long plane = (long long)seq_len * d_model, total = plane * batch;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        if (andrea_on_gpu())
            grad_position[e % plane] = grad_out[e];                 // a GPU: the last row wins
        else
            atomicAdd(&grad_position[e % plane], grad_out[e]);
    }
}
