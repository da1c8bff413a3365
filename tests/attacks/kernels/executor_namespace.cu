// HOSTILE (executor_namespace): as host_declaration_branch.cu, through the executor's own namespace.
// The prelude declared its helpers in `andrea_exec` (barrier(const char *, int), returning
// void); the kernel opens a namespace of that name with a catch-all `barrier` returning int,
// the only one NVRTC knows, so `decltype(andrea_exec::barrier("", 0))` is int on a GPU and void
// for the executor. A racy branch where it is int (a GPU), atomics otherwise.
// What it did: the right gradients, no finding.
// Expected: the executor's helpers are in the reserved namespace `__andrea_exec` (a kernel may
// not name it: a reserved name): the kernel's andrea_exec is its own for both compilers, and the
// executor judges the racy branch a GPU runs.
struct AndreaAny { template <class T> __device__ constexpr AndreaAny(T) {} };
namespace andrea_exec { static __device__ int barrier(AndreaAny, AndreaAny) { return 0; } }
template <class T> struct andrea_is_int { static constexpr bool value = false; };
template <> struct andrea_is_int<int> { static constexpr bool value = true; };
static __device__ constexpr bool andrea_on_gpu() {
    return andrea_is_int<decltype(andrea_exec::barrier("", 0))>::value;
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
