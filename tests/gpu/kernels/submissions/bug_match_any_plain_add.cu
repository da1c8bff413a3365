// BUG (bug_match_any_plain_add): correct_warp_aggregated.cu's token backward merges the equal ids
// of a warp with __match_any_sync and then adds with a plain += instead of atomicAdd: the same id
// in two warps (or two blocks) is still added twice at once.
#include <cstdint>

static __device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

static __device__ __forceinline__ void flag_bad_aggregated(int* bad, int row) {
    const unsigned active = __activemask();
    const unsigned first = __reduce_min_sync(active, (unsigned)row);
    if (lane_id() == (unsigned)(__ffs(active) - 1)) atomicMin(bad, (int)first);
}

extern "C" __global__ void __launch_bounds__(256, 2)
andrea_lookup(const float* __restrict__ table, const int* __restrict__ ids,
              float* __restrict__ out, const __grid_constant__ int n_ids,
              const __grid_constant__ int d_model, const __grid_constant__ int num_rows,
              int* __restrict__ bad) {
    for (int64_t row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(ids + row);
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x < 32) flag_bad_aggregated(bad, (int)row);
            continue;
        }
        const float* src = table + (int64_t)id * d_model;
        float* dst = out + row * d_model;
        for (int64_t c = threadIdx.x; c < d_model; c += blockDim.x) dst[c] = __ldg(src + c);
    }
}

extern "C" __global__ void __launch_bounds__(256, 2)
andrea_embed_forward(const int* __restrict__ ids, const float* __restrict__ token_table,
                     const float* __restrict__ position_table, float* __restrict__ out,
                     const __grid_constant__ int n_ids, const __grid_constant__ int seq_len,
                     const __grid_constant__ int d_model, const __grid_constant__ int num_rows,
                     int* __restrict__ bad) {
    for (int64_t row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(ids + row);
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x < 32) flag_bad_aggregated(bad, (int)row);
            continue;
        }
        const int64_t t = row % seq_len;
        for (int64_t c = threadIdx.x; c < d_model; c += blockDim.x)
            out[row * d_model + c] = __ldg(token_table + (int64_t)id * d_model + c)
                                     + __ldlu(position_table + t * d_model + c);
    }
}

// One lane per row, the warp walking its 32 rows column by column.
extern "C" __global__ void __launch_bounds__(256, 2)
andrea_embed_backward_token(const int* __restrict__ ids, const float* __restrict__ grad_out,
                            float* __restrict__ grad_token, const __grid_constant__ int n_ids,
                            const __grid_constant__ int d_model,
                            const __grid_constant__ int num_rows, int* __restrict__ bad) {
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
    const int64_t warp = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    for (int64_t base = warp * 32; base < n_ids; base += warps * 32) {
        const int64_t row = base + lane_id();
        const bool in = row < n_ids;
        const int id = in ? __ldg(ids + row) : -1;
        const bool good = in && id >= 0 && id < num_rows;
        if (in && !good) flag_bad_aggregated(bad, (int)row);
        const unsigned peers = __match_any_sync(0xffffffffu, good ? id : -1);
        const bool leader = good && lane_id() == (unsigned)(__ffs(peers) - 1);
        for (int c = 0; c < d_model; ++c) {
            const float g = good ? grad_out[row * d_model + c] : 0.0f;
            float acc = 0.0f;
            #pragma unroll
            for (int src = 0; src < 32; ++src) {
                const float v = __shfl_sync(0xffffffffu, g, src);
                if ((peers >> src) & 1u) acc += v;
            }
            if (leader) grad_token[(int64_t)id * d_model + c] += acc;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256, 2)
andrea_embed_backward_position(const float* __restrict__ grad_out,
                               float* __restrict__ grad_position,
                               const __grid_constant__ int batch,
                               const __grid_constant__ int seq_len,
                               const __grid_constant__ int d_model) {
    const int64_t plane = (int64_t)seq_len * d_model;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (int64_t)blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += __ldcs(grad_out + b * plane + i);
        grad_position[i] = acc;
    }
}
