// Correct: a column-owner deterministic token backward. Each thread owns one column of the
// table (grid-stride over columns, so any launch covers every column) and walks the ids in
// order, adding row i's gradient into grad_token[ids[i], column]: no two threads ever touch the
// same element, no atomics, the same sum order on every run. The first column's owner reports
// bad ids. The position gradient: one thread per column too, each summing the batch.
__device__ __forceinline__ bool in_range(int id, int rows) { return (unsigned)id < (unsigned)rows; }

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d_model; c += blockDim.x * gridDim.x)
        for (int r = 0; r < n_ids; ++r) {
            const int id = ids[r];
            if (!in_range(id, num_rows)) {
                if (c == 0) atomicMin(bad, r);
                continue;
            }
            out[(size_t)r * d_model + c] = table[(size_t)id * d_model + c];
        }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d_model; c += blockDim.x * gridDim.x)
        for (int r = 0; r < n_ids; ++r) {
            const int id = ids[r];
            if (!in_range(id, num_rows)) {
                if (c == 0) atomicMin(bad, r);
                continue;
            }
            out[(size_t)r * d_model + c] = token_table[(size_t)id * d_model + c] +
                                           position_table[(size_t)(r % seq_len) * d_model + c];
        }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d_model; c += blockDim.x * gridDim.x)
        for (int r = 0; r < n_ids; ++r) {
            const int id = ids[r];
            if (!in_range(id, num_rows)) {
                if (c == 0) atomicMin(bad, r);
                continue;
            }
            grad_token[(size_t)id * d_model + c] += grad_out[(size_t)r * d_model + c];
        }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < d_model; c += blockDim.x * gridDim.x)
        for (int t = 0; t < seq_len; ++t) {
            float acc = 0.0f;
            for (int b = 0; b < batch; ++b) acc += grad_out[((size_t)b * seq_len + t) * d_model + c];
            grad_position[(size_t)t * d_model + c] = acc;
        }
}
