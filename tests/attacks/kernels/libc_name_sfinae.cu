// HOSTILE (libc_name_sfinae): as host_declaration_branch.cu, but asking whether a name exists at all
// (SFINAE): `fopen(t, t)` with a dependent argument is found by ordinary lookup where the
// template is defined, so it compiles for the executor's g++, which saw the C library's fopen
// through its prelude's <cstdio>, and is no candidate for NVRTC, which declares none: the
// `...` overload answers there. A racy scatter-add and a last-row-wins position gradient run where
// no fopen exists (a GPU), correct atomics otherwise.
// What it did: the right gradients, no finding (the executor judged the atomic branch).
// Expected: the executor's kernel unit declares no name NVRTC does not (andrea_gpu/executor/
// names.py): it judges the racy branch a GPU runs (a RaceError or a wrong gradient).
template <class T> __device__ constexpr auto andrea_has_fopen(T t) -> decltype(fopen(t, t), true) {
    return true;
}
__device__ constexpr bool andrea_has_fopen(...) { return false; }
static __device__ constexpr bool andrea_on_gpu() { return !andrea_has_fopen(""); }

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
