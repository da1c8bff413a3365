// Bug: a helper function without __device__ (inline float add_rows) called from a kernel:
// g++ builds it for the CPU executor, NVRTC refuses it (a host function in JIT mode).
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = table[(size_t)id * d_model + c];
    }
}

inline float add_rows(float a, float b) { return a + b; }

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        int t = row % seq_len;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = add_rows(token_table[(size_t)id * d_model + c], position_table[(size_t)t * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    int plane = seq_len * d_model;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += blockDim.x * gridDim.x) {
        float acc = 0.f;
        for (int b = 0; b < batch; ++b) acc += grad_out[(size_t)b * plane + i];
        grad_position[i] = acc;
    }
}

