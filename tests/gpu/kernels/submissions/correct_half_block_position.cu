// Correct: in the forward the first half of the block copies the token row into out, then
// (after a barrier) the second half adds the position row; lookup and backward as usual, with a
// deterministic token gradient: one thread per column walks every id in order (no atomics).
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
    const int half = blockDim.x / 2;
    const bool copier = threadIdx.x < half;
    const int lane = copier ? threadIdx.x : threadIdx.x - half;
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        float* dst = out + (size_t)row * d_model;
        if (copier)
            for (int c = lane; c < d_model; c += half) dst[c] = token_table[(size_t)id * d_model + c];
        __syncthreads();
        if (!copier)
            for (int c = lane; c < d_model; c += half)
                dst[c] += position_table[(size_t)(row % seq_len) * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    const int threads = blockDim.x * gridDim.x, me = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = me; i < n_ids; i += threads) {
        const int id = ids[i];
        if (id < 0 || id >= num_rows) atomicMin(bad, i);
    }
    for (int c = me; c < d_model; c += threads) {
        for (int i = 0; i < n_ids; ++i) {
            const int id = ids[i];
            if (id < 0 || id >= num_rows) continue;
            grad_token[(size_t)id * d_model + c] += grad_out[(size_t)i * d_model + c];
        }
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const int plane = seq_len * d_model;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[(size_t)b * plane + i];
        grad_position[i] = acc;
    }
}
