// Correct: a row-scan token backward (the style of a "get_rows" backward): one thread per
// element of grad_token, flat over the grid; each walks every id in order and adds the rows
// whose id is its row. No atomics and deterministic, but O(num_rows * d_model * n_ids) work:
// slow on the CPU executor, cheap on a GPU at the course's sizes. Bad ids are reported by a
// separate flat pass over the ids.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    const long total = (long)n_ids * d_model;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long)blockDim.x * gridDim.x) {
        const int r = (int)(i / d_model), c = (int)(i % d_model);
        const int id = ids[r];
        if (id < 0 || id >= num_rows) {
            if (c == 0) atomicMin(bad, r);
            continue;
        }
        out[i] = table[(long)id * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    const long total = (long)n_ids * d_model;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long)blockDim.x * gridDim.x) {
        const int r = (int)(i / d_model), c = (int)(i % d_model);
        const int id = ids[r];
        if (id < 0 || id >= num_rows) {
            if (c == 0) atomicMin(bad, r);
            continue;
        }
        out[i] = token_table[(long)id * d_model + c] + position_table[(long)(r % seq_len) * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    const long stride = (long)blockDim.x * gridDim.x;
    const long first = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long i = first; i < n_ids; i += stride)
        if (ids[i] < 0 || ids[i] >= num_rows) atomicMin(bad, (int)i);
    const long total = (long)num_rows * d_model;
    for (long e = first; e < total; e += stride) {
        const int v = (int)(e / d_model), c = (int)(e % d_model);
        float acc = 0.0f;
        for (int r = 0; r < n_ids; ++r)
            if (ids[r] == v) acc += grad_out[(long)r * d_model + c];
        grad_token[e] = acc;
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long plane = (long)seq_len * d_model;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (long)blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[b * plane + i];
        grad_position[i] = acc;
    }
}
