// Correct: one thread per row (grid-stride over rows by global thread id), an inner loop over
// the columns; unsigned comparison catches negative ids too.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    const int stride = blockDim.x * gridDim.x;
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids; row += stride) {
        const unsigned id = (unsigned)ids[row];
        if (id >= (unsigned)num_rows) { atomicMin(bad, row); continue; }
        const float* src = table + (size_t)id * d_model;
        float* dst = out + (size_t)row * d_model;
        for (int c = 0; c < d_model; ++c) dst[c] = src[c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    const int stride = blockDim.x * gridDim.x;
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids; row += stride) {
        const unsigned id = (unsigned)ids[row];
        if (id >= (unsigned)num_rows) { atomicMin(bad, row); continue; }
        const float* tok = token_table + (size_t)id * d_model;
        const float* pos = position_table + (size_t)(row % seq_len) * d_model;
        float* dst = out + (size_t)row * d_model;
        for (int c = 0; c < d_model; ++c) dst[c] = tok[c] + pos[c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    const int stride = blockDim.x * gridDim.x;
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < n_ids; row += stride) {
        const unsigned id = (unsigned)ids[row];
        if (id >= (unsigned)num_rows) { atomicMin(bad, row); continue; }
        for (int c = 0; c < d_model; ++c)
            atomicAdd(grad_token + (size_t)id * d_model + c, grad_out[(size_t)row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const int stride = blockDim.x * gridDim.x;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < seq_len; t += stride) {
        for (int c = 0; c < d_model; ++c) {
            float acc = 0.0f;
            for (int b = 0; b < batch; ++b)
                acc += grad_out[((size_t)b * seq_len + t) * d_model + c];
            grad_position[(size_t)t * d_model + c] = acc;
        }
    }
}
