// BUG (bug_dynamic_shared_unsized): the position gradient stages each warp's partial sum in
// dynamic shared memory (extern __shared__), but the contract launches with no dynamic shared
// memory, so the array has no bytes.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = table[(size_t)id * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        const int t = row % seq_len;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] =
                token_table[(size_t)id * d_model + c] + position_table[(size_t)t * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);
    }
}

// One block per element, each warp sums a stride of the batch, warp leaders meet in smem.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    extern __shared__ float warp_sums[];
    const int plane = seq_len * d_model;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (int e = blockIdx.x; e < plane; e += gridDim.x) {
        float acc = 0.0f;
        for (int b = threadIdx.x; b < batch; b += blockDim.x) acc += grad_out[(size_t)b * plane + e];
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) warp_sums[warp] = acc;
        __syncthreads();
        if (threadIdx.x == 0) {
            float total = 0.0f;
            for (int w = 0; w < warps; ++w) total += warp_sums[w];
            grad_position[e] = total;
        }
        __syncthreads();
    }
}
