// Correct: "get_rows" style. A templated device function copies row i10 of the ids' rows
// (ne00 columns each) with a converter between the source and destination types, called from
// thin extern "C" kernels; the column loop starts at blockIdx.x * blockDim.x + threadIdx.x and
// strides over the whole grid, rows are walked one by one. Device asserts on the launch shape
// (the contract's launches are 1-D) stay silent; ids are range-checked, never asserted.
#include <cassert>
#include <cstdint>

template <typename dst_t, typename src_t> __device__ __forceinline__ dst_t convert(src_t x) {
    return static_cast<dst_t>(x);
}

template <typename src_t, typename dst_t, bool ADD_POS>
static __device__ void get_rows(const src_t* __restrict__ src0, const int32_t* __restrict__ src1,
                                const src_t* __restrict__ pos, dst_t* __restrict__ dst,
                                const int ne00, const int ne10, const int ne_pos,
                                const int nrows, int* bad) {
    assert(blockDim.y == 1 && gridDim.y == 1);
    const int stride = blockDim.x * gridDim.x;
    for (int i10 = 0; i10 < ne10; ++i10) {
        const int32_t i01 = src1[i10];
        if (i01 < 0 || i01 >= nrows) {
            if (blockIdx.x == 0 && threadIdx.x == 0) atomicMin(bad, i10);
            continue;
        }
        const src_t* src0_row = src0 + (int64_t)i01 * ne00;
        dst_t* dst_row = dst + (int64_t)i10 * ne00;
        for (int i00 = blockIdx.x * blockDim.x + threadIdx.x; i00 < ne00; i00 += stride) {
            dst_t v = convert<dst_t>(src0_row[i00]);
            if (ADD_POS) v += convert<dst_t>(pos[(int64_t)(i10 % ne_pos) * ne00 + i00]);
            dst_row[i00] = v;
        }
    }
}

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    get_rows<float, float, false>(table, ids, nullptr, out, d_model, n_ids, 1, num_rows, bad);
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    get_rows<float, float, true>(token_table, ids, position_table, out, d_model, n_ids, seq_len,
                                 num_rows, bad);
}

// get_rows_back: each thread owns columns of every row of grad_token and scans the ids.
extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    assert(blockDim.y == 1);
    const int stride = blockDim.x * gridDim.x;
    for (int i00 = blockIdx.x * blockDim.x + threadIdx.x; i00 < d_model; i00 += stride) {
        for (int i10 = 0; i10 < n_ids; ++i10) {
            const int32_t i01 = ids[i10];
            if (i01 < 0 || i01 >= num_rows) {
                if (i00 == 0) atomicMin(bad, i10);
                continue;
            }
            grad_token[(int64_t)i01 * d_model + i00] += grad_out[(int64_t)i10 * d_model + i00];
        }
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const int64_t plane = (int64_t)seq_len * d_model;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (int64_t)blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[b * plane + i];
        grad_position[i] = acc;
    }
}
