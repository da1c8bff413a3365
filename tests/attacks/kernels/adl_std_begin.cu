// HOSTILE (adl_std_begin): as host_declaration_branch.cu, through argument-dependent lookup. A brace
// list is a std::initializer_list; an unqualified `begin(list)` also looks in std, where
// libstdc++ (reached by the executor's prelude) has std::begin for it, an exact match that beats
// the kernel's own catch-all `begin(AndreaAny)`. NVRTC's std has no begin: the catch-all (an int)
// is the only candidate there. A racy branch where `begin` gives an int (a GPU), atomics
// otherwise.
// What it did: the right gradients, no finding.
// Expected: the executor's std has no begin (prelude.h): it judges the racy branch a GPU runs.
struct AndreaAny { template <class T> __device__ constexpr AndreaAny(const T &) {} };
static __device__ int begin(AndreaAny) { return 0; }
static __device__ constexpr bool andrea_on_gpu() {
    auto list = {1, 2, 3};
    return sizeof(begin(list)) == sizeof(int);
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
