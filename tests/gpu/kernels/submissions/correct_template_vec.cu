// Production style: one templated copy kernel body over <typename T, int VEC> picked at run time
// by the rows' alignment (float4, float2, else float), a vector type chosen through a traits
// struct, `#pragma unroll` over the vector's lanes, size_t offsets, grid-stride rows and
// block-stride vectors; the position gradient sums float2 pairs where d_model is even.
#include <cstddef>

template <typename T, int VEC> struct VecT;
template <> struct VecT<float, 1> { using type = float; };
template <> struct VecT<float, 2> { using type = float2; };
template <> struct VecT<float, 4> { using type = float4; };

template <typename V> __device__ __forceinline__ float lane(const V& v, int k) {
    return reinterpret_cast<const float*>(&v)[k];
}
template <typename V> __device__ __forceinline__ void set_lane(V& v, int k, float x) {
    reinterpret_cast<float*>(&v)[k] = x;
}

template <typename T, int VEC, bool ADD_POS>
__device__ void rows_kernel(const int* __restrict__ ids, const T* __restrict__ table,
                            const T* __restrict__ pos, T* __restrict__ out, int n_ids,
                            int seq_len, int d_model, int num_rows, int* __restrict__ bad) {
    using V = typename VecT<T, VEC>::type;
    const int nvec = d_model / VEC;
    for (size_t row = blockIdx.x; row < (size_t)n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, (int)row);
            continue;
        }
        const V* src = reinterpret_cast<const V*>(table + (size_t)id * d_model);
        const V* prow = ADD_POS ? reinterpret_cast<const V*>(pos + (row % seq_len) * d_model)
                                : nullptr;
        V* dst = reinterpret_cast<V*>(out + row * d_model);
        for (int v = threadIdx.x; v < nvec; v += blockDim.x) {
            V x = src[v];
            if (ADD_POS) {
                const V p = prow[v];
                #pragma unroll
                for (int k = 0; k < VEC; ++k) set_lane(x, k, lane(x, k) + lane(p, k));
            }
            dst[v] = x;
        }
    }
}

template <bool ADD_POS>
__device__ void dispatch(const int* ids, const float* table, const float* pos, float* out,
                         int n_ids, int seq_len, int d_model, int num_rows, int* bad) {
    const bool aligned4 = d_model % 4 == 0 && reinterpret_cast<size_t>(table) % 16 == 0
                          && reinterpret_cast<size_t>(out) % 16 == 0
                          && (!ADD_POS || reinterpret_cast<size_t>(pos) % 16 == 0);
    const bool aligned2 = d_model % 2 == 0 && reinterpret_cast<size_t>(table) % 8 == 0
                          && reinterpret_cast<size_t>(out) % 8 == 0
                          && (!ADD_POS || reinterpret_cast<size_t>(pos) % 8 == 0);
    if (aligned4)
        rows_kernel<float, 4, ADD_POS>(ids, table, pos, out, n_ids, seq_len, d_model, num_rows, bad);
    else if (aligned2)
        rows_kernel<float, 2, ADD_POS>(ids, table, pos, out, n_ids, seq_len, d_model, num_rows, bad);
    else
        rows_kernel<float, 1, ADD_POS>(ids, table, pos, out, n_ids, seq_len, d_model, num_rows, bad);
}

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    dispatch<false>(ids, table, nullptr, out, n_ids, 1, d_model, num_rows, bad);
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    dispatch<true>(ids, token_table, position_table, out, n_ids, seq_len, d_model, num_rows,
                   bad);
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (size_t row = blockIdx.x; row < (size_t)n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, (int)row);
            continue;
        }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(grad_token + (size_t)id * d_model + c, grad_out[row * d_model + c]);
    }
}

template <int VEC>
__device__ void pos_sum(const float* __restrict__ g, float* __restrict__ gp, int batch,
                        size_t plane) {
    using V = typename VecT<float, VEC>::type;
    const size_t n = plane / VEC;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        float acc[VEC];
        #pragma unroll
        for (int k = 0; k < VEC; ++k) acc[k] = 0.0f;
        for (int b = 0; b < batch; ++b) {
            const V x = reinterpret_cast<const V*>(g + b * plane)[i];
            #pragma unroll
            for (int k = 0; k < VEC; ++k) acc[k] += lane(x, k);
        }
        V r;
        #pragma unroll
        for (int k = 0; k < VEC; ++k) set_lane(r, k, acc[k]);
        reinterpret_cast<V*>(gp)[i] = r;
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const size_t plane = (size_t)seq_len * d_model;
    if (plane % 2 == 0 && reinterpret_cast<size_t>(grad_out) % 8 == 0
        && reinterpret_cast<size_t>(grad_position) % 8 == 0)
        pos_sum<2>(grad_out, grad_position, batch, plane);
    else
        pos_sum<1>(grad_out, grad_position, batch, plane);
}
