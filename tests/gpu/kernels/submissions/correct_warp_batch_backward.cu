// Correct: token backward in the style of a warp-cooperative, deterministic embedding backward.
// Each block owns 32-column tiles of the table (grid-stride over tiles, one column per lane);
// the whole block loads a batch of blockDim.x ids into shared memory, then walks it in chunks
// of one id per warp. Warps whose ids are equal elect the first of them as the leader, which
// adds their gradient rows in warp order: no atomics, the same result on every run.
// The last chunk of a batch reads ids_s slots past the batch (never written in the first batch):
// the value is never used, because `src < batch_end` is tested first.
// A __syncthreads() ends every batch, before the next one reloads ids_s.
#define TILE 32

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = __ldg(&table[(size_t)id * d_model + c]);
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
        const float* tok = token_table + (size_t)id * d_model;
        const float* pos = position_table + (size_t)(row % seq_len) * d_model;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = __ldg(tok + c) + __ldg(pos + c);
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    __shared__ int ids_s[1024];
    __shared__ float g_s[1024];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    const int tiles = (d_model + TILE - 1) / TILE;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int f = tile * TILE + lane;
        for (int batch_start = 0; batch_start < n_ids; batch_start += blockDim.x) {
            if (batch_start + (int)threadIdx.x < n_ids)
                ids_s[threadIdx.x] = ids[batch_start + threadIdx.x];
            const int batch_end = min(batch_start + (int)blockDim.x, n_ids);
            for (int chunk = batch_start; chunk < batch_end; chunk += warps) {
                __syncthreads();  // ids_s is loaded; the leaders of the last chunk are done with g_s
                const int src = chunk + warp;
                const int dst = ids_s[src - batch_start];
                const bool live = src < batch_end;
                const bool ok = live && dst >= 0 && dst < num_rows;
                if (live && !ok && lane == 0) atomicMin(bad, src);
                if (ok && f < d_model) g_s[threadIdx.x] = grad_out[(size_t)src * d_model + f];
                __syncthreads();
                if (ok && f < d_model) {
                    bool leader = true;
                    for (int w = 0; w < warp; ++w)
                        if (ids_s[chunk - batch_start + w] == dst) { leader = false; break; }
                    if (leader) {
                        const int in_chunk = min(batch_end - chunk, warps);
                        float acc = 0.0f;
                        for (int w = warp; w < in_chunk; ++w)
                            if (ids_s[chunk - batch_start + w] == dst) acc += g_s[w * 32 + lane];
                        grad_token[(size_t)dst * d_model + f] += acc;
                    }
                }
            }
            __syncthreads();  // every warp is done with ids_s before the next batch reloads it
        }
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const int plane = seq_len * d_model;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += __ldg(&grad_out[(size_t)b * plane + i]);
        grad_position[i] = acc;
    }
}
