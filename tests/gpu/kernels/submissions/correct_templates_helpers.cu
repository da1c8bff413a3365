// Correct: __device__ helpers, a template for the row copy (with or without the position row),
// __forceinline__, __restrict__ and __ldg, __launch_bounds__ before the return type's name.
#include <cstdint>

__device__ __forceinline__ bool in_range(int id, int rows) { return id >= 0 && id < rows; }

__device__ __forceinline__ void note_bad(int* bad, int row) {
    if (threadIdx.x == 0) atomicMin(bad, row);
}

template <bool kAddPosition>
__device__ void copy_row(float* __restrict__ dst, const float* __restrict__ tok,
                         const float* __restrict__ pos, int d_model) {
    for (int c = threadIdx.x; c < d_model; c += blockDim.x) {
        float v = __ldg(tok + c);
        if (kAddPosition) v += __ldg(pos + c);
        dst[c] = v;
    }
}

template <typename T>
__device__ T* row_ptr(T* base, int64_t row, int d_model) { return base + row * d_model; }

extern "C" __global__ void __launch_bounds__(1024)
andrea_lookup(const float* __restrict__ table, const int* __restrict__ ids, float* __restrict__ out,
              int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!in_range(id, num_rows)) { note_bad(bad, row); continue; }
        copy_row<false>(row_ptr(out, row, d_model), row_ptr(table, id, d_model), nullptr, d_model);
    }
}

extern "C" __global__ void __launch_bounds__(1024)
andrea_embed_forward(const int* __restrict__ ids, const float* __restrict__ token_table,
                     const float* __restrict__ position_table, float* __restrict__ out, int n_ids,
                     int seq_len, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!in_range(id, num_rows)) { note_bad(bad, row); continue; }
        copy_row<true>(row_ptr(out, row, d_model), row_ptr(token_table, id, d_model),
                       row_ptr(position_table, row % seq_len, d_model), d_model);
    }
}

template <typename T>
__device__ void scatter_row(T* dst, const T* src, int d_model) {
    for (int c = threadIdx.x; c < d_model; c += blockDim.x) atomicAdd(dst + c, src[c]);
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!in_range(id, num_rows)) { note_bad(bad, row); continue; }
        scatter_row(row_ptr(grad_token, id, d_model), row_ptr(grad_out, row, d_model), d_model);
    }
}

template <typename Acc>
__device__ Acc batch_sum(const float* g, int batch, int64_t plane, int64_t e) {
    Acc acc = 0;
    for (int b = 0; b < batch; ++b) acc += g[b * plane + e];
    return acc;
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const int64_t plane = (int64_t)seq_len * d_model;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < plane;
         e += (int64_t)blockDim.x * gridDim.x)
        grad_position[e] = batch_sum<float>(grad_out, batch, plane, e);
}
