// Correct: a backward without atomics for the sums: one block per vocabulary row (grid-stride
// over num_rows) scans every id and adds the rows of grad_out whose id is its own, in order
// (bit-identical from run to run). The position gradient is a block-wide reduction over the
// batch: warp shuffles (xor butterfly), then one value per warp in static shared memory.
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        #pragma unroll 4
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
        const size_t t = row % seq_len;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] =
                token_table[(size_t)id * d_model + c] + position_table[t * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    if (blockIdx.x == 0)
        for (int i = threadIdx.x; i < n_ids; i += blockDim.x)
            if (ids[i] < 0 || ids[i] >= num_rows) atomicMin(bad, i);
    for (int v = blockIdx.x; v < num_rows; v += gridDim.x) {
        for (int i = 0; i < n_ids; ++i) {
            if (ids[i] != v) continue;
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                grad_token[(size_t)v * d_model + c] += grad_out[(size_t)i * d_model + c];
        }
    }
}

__device__ float warp_sum(float v) {
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    __shared__ float per_warp[32];
    const int plane = seq_len * d_model;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (int e = blockIdx.x; e < plane; e += gridDim.x) {
        float acc = 0.0f;
        for (int b = threadIdx.x; b < batch; b += blockDim.x) acc += grad_out[(size_t)b * plane + e];
        acc = warp_sum(acc);
        if (lane == 0) per_warp[warp] = acc;
        __syncthreads();
        if (warp == 0) {
            float s = lane < warps ? per_warp[lane] : 0.0f;
            s = warp_sum(s);
            if (lane == 0) grad_position[e] = s;
        }
        __syncthreads();  // per_warp is rewritten for the next element
    }
}
