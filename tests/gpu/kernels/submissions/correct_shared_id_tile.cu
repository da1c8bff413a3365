// Correct, tiled style: each block stages a tile of 32 ids in static shared memory (one
// __syncthreads after the stores, one before the tile is reused), then its threads copy the
// tile's rows column by column; the position gradient is one thread per (t, column) over the
// batch; the bad-id flag is set by the thread that staged the id.
#define TILE 32

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    __shared__ int tile[TILE];
    for (int base = blockIdx.x * TILE; base < n_ids; base += gridDim.x * TILE) {
        if (threadIdx.x < TILE) {
            const int row = base + threadIdx.x;
            int id = -1;
            if (row < n_ids) {
                id = ids[row];
                if (id < 0 || id >= num_rows) {
                    atomicMin(bad, row);
                    id = -1;
                }
            }
            tile[threadIdx.x] = id;
        }
        __syncthreads();
        const int rows = min(TILE, n_ids - base);
        for (int k = 0; k < rows; ++k) {
            const int id = tile[k];
            if (id < 0) continue;
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                out[(size_t)(base + k) * d_model + c] = table[(size_t)id * d_model + c];
        }
        __syncthreads();
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    __shared__ int tile[TILE];
    for (int base = blockIdx.x * TILE; base < n_ids; base += gridDim.x * TILE) {
        if (threadIdx.x < TILE) {
            const int row = base + threadIdx.x;
            int id = -1;
            if (row < n_ids) {
                id = ids[row];
                if (id < 0 || id >= num_rows) {
                    atomicMin(bad, row);
                    id = -1;
                }
            }
            tile[threadIdx.x] = id;
        }
        __syncthreads();
        const int rows = min(TILE, n_ids - base);
        for (int k = 0; k < rows; ++k) {
            const int id = tile[k];
            if (id < 0) continue;
            const int t = (base + k) % seq_len;
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                out[(size_t)(base + k) * d_model + c] =
                    token_table[(size_t)id * d_model + c] + position_table[(size_t)t * d_model + c];
        }
        __syncthreads();
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    __shared__ int tile[TILE];
    for (int base = blockIdx.x * TILE; base < n_ids; base += gridDim.x * TILE) {
        if (threadIdx.x < TILE) {
            const int row = base + threadIdx.x;
            int id = -1;
            if (row < n_ids) {
                id = ids[row];
                if (id < 0 || id >= num_rows) {
                    atomicMin(bad, row);
                    id = -1;
                }
            }
            tile[threadIdx.x] = id;
        }
        __syncthreads();
        const int rows = min(TILE, n_ids - base);
        for (int k = 0; k < rows; ++k) {
            const int id = tile[k];
            if (id < 0) continue;
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                atomicAdd(&grad_token[(size_t)id * d_model + c],
                          grad_out[(size_t)(base + k) * d_model + c]);
        }
        __syncthreads();
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
