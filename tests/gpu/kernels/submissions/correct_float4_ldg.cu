// Correct, "performance" style: __restrict__ pointers, __ldg loads, float4 vector loads and
// stores when every row starts 16-byte aligned (d_model % 4 == 0 and aligned bases), a scalar
// loop otherwise; #pragma unroll on the batch sum; size_t offsets throughout.
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ bool aligned16(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

__device__ __forceinline__ void copy_row(const float* __restrict__ src, float* __restrict__ dst,
                                         int d_model) {
    if ((d_model & 3) == 0 && aligned16(src) && aligned16(dst)) {
        const float4* s4 = reinterpret_cast<const float4*>(src);
        float4* d4 = reinterpret_cast<float4*>(dst);
        for (int c = threadIdx.x; c < d_model / 4; c += blockDim.x) d4[c] = s4[c];
    } else {
        for (int c = threadIdx.x; c < d_model; c += blockDim.x) dst[c] = __ldg(&src[c]);
    }
}

extern "C" __global__ void andrea_lookup(const float* __restrict__ table,
                                         const int* __restrict__ ids, float* __restrict__ out,
                                         int n_ids, int d_model, int num_rows,
                                         int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(&ids[row]);
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        copy_row(table + (size_t)id * d_model, out + (size_t)row * d_model, d_model);
    }
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ token_table,
                                                const float* __restrict__ position_table,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows, int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(&ids[row]);
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        const float* tok = token_table + (size_t)id * d_model;
        const float* pos = position_table + (size_t)(row % seq_len) * d_model;
        float* dst = out + (size_t)row * d_model;
        if ((d_model & 3) == 0 && aligned16(tok) && aligned16(pos) && aligned16(dst)) {
            const float4* t4 = reinterpret_cast<const float4*>(tok);
            const float4* p4 = reinterpret_cast<const float4*>(pos);
            float4* o4 = reinterpret_cast<float4*>(dst);
            for (int c = threadIdx.x; c < d_model / 4; c += blockDim.x) {
                const float4 a = t4[c], b = p4[c];
                o4[c] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
            }
        } else {
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                dst[c] = __ldg(&tok[c]) + __ldg(&pos[c]);
        }
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token, int n_ids,
                                                       int d_model, int num_rows,
                                                       int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(&ids[row]);
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        const float* g = grad_out + (size_t)row * d_model;
        float* dst = grad_token + (size_t)id * d_model;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x) atomicAdd(&dst[c], __ldg(&g[c]));
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    const size_t plane = (size_t)seq_len * d_model;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (size_t)blockDim.x * gridDim.x) {
        float acc = 0.0f;
#pragma unroll 4
        for (int b = 0; b < batch; ++b) acc += __ldg(&grad_out[(size_t)b * plane + i]);
        grad_position[i] = acc;
    }
}
