// Style: std::int64_t / std::size_t through <cstdint> and <cstddef>, __host__ __device__
// helpers, a constexpr block size, a __constant__ value, const restrict pointers, unsigned
// loop indices, CEIL_DIV macro, static_cast everywhere.
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__constant__ float kOne = 1.0f;

__host__ __device__ inline std::int64_t offset(std::int64_t row, std::int64_t col, int d) {
    return row * static_cast<std::int64_t>(d) + col;
}

__device__ inline bool in_range(int id, int rows) {
    return static_cast<unsigned>(id) < static_cast<unsigned>(rows);
}

extern "C" __global__ void andrea_lookup(const float* __restrict__ const table,
                                         const int* __restrict__ const ids,
                                         float* __restrict__ const out, const int n_ids,
                                         const int d_model, const int num_rows,
                                         int* __restrict__ const bad) {
    const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
    const std::size_t n = static_cast<std::size_t>(n_ids) * d_model;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const std::int64_t row = static_cast<std::int64_t>(i / d_model);
        const std::int64_t col = static_cast<std::int64_t>(i % d_model);
        const int id = ids[row];
        if (!in_range(id, num_rows)) {
            if (col == 0) atomicMin(bad, static_cast<int>(row));
            continue;
        }
        out[i] = kOne * table[offset(id, col, d_model)];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ token_table,
                                                const float* __restrict__ position_table,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows, int* __restrict__ bad) {
    for (unsigned row = blockIdx.x; row < static_cast<unsigned>(n_ids); row += gridDim.x) {
        const int id = ids[row];
        if (!in_range(id, num_rows)) {
            if (threadIdx.x == 0) atomicMin(bad, static_cast<int>(row));
            continue;
        }
        const unsigned t = row % static_cast<unsigned>(seq_len);
        for (unsigned c = threadIdx.x; c < static_cast<unsigned>(d_model); c += blockDim.x)
            out[offset(row, c, d_model)] =
                token_table[offset(id, c, d_model)] + position_table[offset(t, c, d_model)];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token,
                                                       int n_ids, int d_model, int num_rows,
                                                       int* __restrict__ bad) {
    constexpr int kCols = 4;   // each thread owns kCols consecutive columns of a row
    const int col_groups = CEIL_DIV(d_model, kCols);
    const std::int64_t jobs = static_cast<std::int64_t>(n_ids) * col_groups;
    for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         j < jobs; j += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
        const std::int64_t row = j / col_groups;
        const int c0 = static_cast<int>(j % col_groups) * kCols;
        const int id = ids[row];
        if (!in_range(id, num_rows)) {
            if (c0 == 0) atomicMin(bad, static_cast<int>(row));
            continue;
        }
#pragma unroll
        for (int k = 0; k < kCols; ++k)
            if (c0 + k < d_model)
                atomicAdd(grad_token + offset(id, c0 + k, d_model), grad_out[offset(row, c0 + k, d_model)]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    const std::int64_t plane = static_cast<std::int64_t>(seq_len) * d_model;
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         i < plane; i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[b * plane + i];
        grad_position[i] = acc;
    }
}
