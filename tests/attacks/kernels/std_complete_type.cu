// HOSTILE (std_complete_type): as host_declaration_branch.cu, through the std namespace. The kernel
// declares `std::numeric_limits` itself (a legal redeclaration for both compilers) and asks
// whether `std::numeric_limits<int>` is complete: libstdc++ (reached by the executor's prelude)
// defines it, NVRTC's std has only align_val_t, forward, move and initializer_list, so the type
// stays incomplete there. A racy branch where it is incomplete (a GPU), atomics otherwise.
// What it did: the right gradients, no finding.
// Expected: the executor's std holds only NVRTC's four names (prelude.h): the executor judges
// the racy branch a GPU runs.
namespace std { template <class T> struct numeric_limits; }
template <class T, class = void> struct andrea_complete { static constexpr bool value = false; };
template <class T> struct andrea_complete<T, decltype(void(sizeof(T)))> {
    static constexpr bool value = true;
};
static __device__ constexpr bool andrea_on_gpu() {
    return !andrea_complete<std::numeric_limits<int>>::value;
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
