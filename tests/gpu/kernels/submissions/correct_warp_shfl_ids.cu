// Production style: each warp loads 32 ids at once (one per lane, coalesced), finds bad ids with
// __ballot_sync / __ffs, then walks its batch broadcasting each id with __shfl_sync; rows are
// copied as float4 through __ldg where 16-byte aligned. Grid-stride over warps. Backward token:
// same batches, atomicAdd; position: grid-stride over elements, batch summed in order.
#include <cstdint>
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffffu
constexpr int kWarpSize = 32;

namespace {

__device__ __forceinline__ int lane_id() { return threadIdx.x & (kWarpSize - 1); }
__device__ __forceinline__ int warp_id_global() {
    return (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
}
__device__ __forceinline__ int warps_in_grid() { return (gridDim.x * blockDim.x) / kWarpSize; }

// Loads a batch of 32 ids; returns the lane's id (or -1 past the end) and records bad ones.
__device__ __forceinline__ int load_batch(const int* __restrict__ ids, int base, int n,
                                          int num_rows, int* __restrict__ bad, bool* ok) {
    const int i = base + lane_id();
    const int id = i < n ? __ldg(ids + i) : 0;
    const bool is_bad = i < n && (id < 0 || id >= num_rows);
    const unsigned bad_mask = __ballot_sync(FULL_MASK, is_bad);
    if (bad_mask && lane_id() == 0) atomicMin(bad, base + __ffs(bad_mask) - 1);
    *ok = i < n && !is_bad;
    return id;
}

template <bool kAddPosition>
__device__ void copy_rows(const int* __restrict__ ids, const float* __restrict__ tok,
                          const float* __restrict__ pos, float* __restrict__ out, int n,
                          int seq_len, int d, int num_rows, int* __restrict__ bad) {
    const bool vec = (d % 4) == 0;
    for (int base = warp_id_global() * kWarpSize; base < n; base += warps_in_grid() * kWarpSize) {
        bool ok;
        const int my_id = load_batch(ids, base, n, num_rows, bad, &ok);
        const unsigned ok_mask = __ballot_sync(FULL_MASK, ok);
        for (int j = 0; j < kWarpSize; ++j) {
            const int id = __shfl_sync(FULL_MASK, my_id, j);
            if (!((ok_mask >> j) & 1u)) continue;
            const int64_t row = base + j;
            const int64_t t = row % seq_len;
            if (vec) {
                const float4* src = reinterpret_cast<const float4*>(tok + (int64_t)id * d);
                const float4* p = reinterpret_cast<const float4*>(pos + t * d);
                float4* dst = reinterpret_cast<float4*>(out + row * d);
                for (int c = lane_id(); c < d / 4; c += kWarpSize) {
                    float4 v = __ldg(src + c);
                    if (kAddPosition) {
                        const float4 q = __ldg(p + c);
                        v.x += q.x; v.y += q.y; v.z += q.z; v.w += q.w;
                    }
                    dst[c] = v;
                }
            } else {
                for (int c = lane_id(); c < d; c += kWarpSize) {
                    float v = __ldg(tok + (int64_t)id * d + c);
                    if (kAddPosition) v += __ldg(pos + t * d + c);
                    out[row * d + c] = v;
                }
            }
        }
    }
}

}  // namespace

extern "C" __global__ void andrea_lookup(const float* __restrict__ table,
                                         const int* __restrict__ ids, float* __restrict__ out,
                                         int n_ids, int d_model, int num_rows,
                                         int* __restrict__ bad) {
    copy_rows<false>(ids, table, nullptr, out, n_ids, 1, d_model, num_rows, bad);
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ token_table,
                                                const float* __restrict__ position_table,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows,
                                                int* __restrict__ bad) {
    copy_rows<true>(ids, token_table, position_table, out, n_ids, seq_len, d_model, num_rows, bad);
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token, int n_ids,
                                                       int d_model, int num_rows,
                                                       int* __restrict__ bad) {
    for (int base = warp_id_global() * kWarpSize; base < n_ids;
         base += warps_in_grid() * kWarpSize) {
        bool ok;
        const int my_id = load_batch(ids, base, n_ids, num_rows, bad, &ok);
        unsigned todo = __ballot_sync(FULL_MASK, ok);
        while (todo) {
            const int j = __ffs(todo) - 1;
            todo &= todo - 1;
            const int id = __shfl_sync(FULL_MASK, my_id, j);
            const float* g = grad_out + (int64_t)(base + j) * d_model;
            float* dst = grad_token + (int64_t)id * d_model;
            for (int c = lane_id(); c < d_model; c += kWarpSize) atomicAdd(dst + c, __ldg(g + c));
        }
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    const int64_t plane = (int64_t)seq_len * d_model;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < plane;
         i += (int64_t)blockDim.x * gridDim.x) {
        float acc = 0.f;
#pragma unroll 4
        for (int b = 0; b < batch; ++b) acc += __ldg(grad_out + b * plane + i);
        grad_position[i] = acc;
    }
}
