// BUG (bug_barrier_in_branch): the position backward's tree reduction (with its __syncthreads()) runs only in threads below batch.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
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
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
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
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    __shared__ float partial[1024];
    const int plane = seq_len * d_model;
    for (int e = blockIdx.x; e < plane; e += gridDim.x) {
        float acc = 0.0f;
        for (int b = threadIdx.x; b < batch; b += blockDim.x) acc += grad_out[(size_t)b * plane + e];
        partial[threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.x < batch) {  // only threads that summed something take part
            for (unsigned width = blockDim.x; width > 1;) {
                const unsigned half = (width + 1) / 2;
                if (threadIdx.x < width - half) partial[threadIdx.x] += partial[threadIdx.x + half];
                __syncthreads();
                width = half;
            }
        }
        if (threadIdx.x == 0) grad_position[e] = partial[0];
        __syncthreads();
    }
}
