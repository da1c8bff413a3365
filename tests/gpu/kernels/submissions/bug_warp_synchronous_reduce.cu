// BUG (bug_warp_synchronous_reduce): the position gradient's shared-memory tree ends with the
// pre-Volta warp-synchronous unrolled loop over a volatile pointer, with no __syncwarp() between
// its steps: since Volta the lanes of a warp are not in lock-step, so each step races with the
// next (CUDA's programming guide: use __syncwarp() or the __shfl_*_sync primitives).
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids;
         row += blockDim.x * gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { atomicMin(bad, row); continue; }
        for (int c = 0; c < d_model; ++c) out[row * d_model + c] = table[id * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids;
         row += blockDim.x * gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { atomicMin(bad, row); continue; }
        const float* p = position_table + (row % seq_len) * d_model;
        for (int c = 0; c < d_model; ++c) out[row * d_model + c] = token_table[id * d_model + c] + p[c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids;
         row += blockDim.x * gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { atomicMin(bad, row); continue; }
        for (int c = 0; c < d_model; ++c)
            atomicAdd(&grad_token[id * d_model + c], grad_out[row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    __shared__ float partial[1024];
    const int plane = seq_len * d_model;
    for (int e = blockIdx.x; e < plane; e += gridDim.x) {
        float acc = 0.0f;
        for (int b = threadIdx.x; b < batch; b += blockDim.x) acc += grad_out[b * plane + e];
        partial[threadIdx.x] = acc;
        __syncthreads();
        unsigned width = blockDim.x;
        for (; width > 32; width = (width + 1) / 2) {
            if (threadIdx.x < width / 2) partial[threadIdx.x] += partial[threadIdx.x + (width + 1) / 2];
            __syncthreads();
        }
        if (threadIdx.x < 32) {   // the last warp "runs in lock-step": no __syncwarp()
            volatile float* v = partial;
            for (; width > 1; width = (width + 1) / 2) {
                if (threadIdx.x < width / 2) v[threadIdx.x] += v[threadIdx.x + (width + 1) / 2];
            }
        }
        if (threadIdx.x == 0) grad_position[e] = partial[0];
        __syncthreads();
    }
}
