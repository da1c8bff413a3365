// BUG (bug_int32_offset_check): the lookup computes each row's offset id * d_model in int and
// range-checks the offset instead of the id: an id past num_rows whose offset overflows 32 bits
// wraps to a small offset, passes the check and reads row 0 instead of being reported.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int offset = ids[row] * d_model;
        if (offset < 0 || offset >= num_rows * d_model) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[row * d_model + c] = table[offset + c];
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
    const int plane = seq_len * d_model;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[(size_t)b * plane + i];
        grad_position[i] = acc;
    }
}
