// Correct: the position gradient adds the batch rows into a __shared__ accumulator with
// atomicAdd_block (block scope is enough: only the block's threads touch it), between two
// __syncthreads(), then thread 0 stores it; the token gradient with atomicAdd.
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
        atomicAdd(grad_token + (long long)id * d_model + col, grad_out[e]);
    }
}

// One block per grad_position element (grid-stride): the block's threads add the batch rows
// into one __shared__ accumulator with a block-scoped atomic, then thread 0 stores it.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    __shared__ float acc;
    const long long plane = (long long)seq_len * d_model;
    for (long long e = blockIdx.x; e < plane; e += gridDim.x) {
        if (threadIdx.x == 0) acc = 0.0f;
        __syncthreads();
        for (int b = threadIdx.x; b < batch; b += blockDim.x)
            atomicAdd_block(&acc, grad_out[(long long)b * plane + e]);
        __syncthreads();
        if (threadIdx.x == 0) grad_position[e] = acc;
        __syncthreads();
    }
}
