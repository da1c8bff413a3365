// Correct: llm.c-style encoder kernels. Forward: a 128-bit packed type (x128, four floats) read
// with streaming loads (__ldcs) and written with streaming stores (__stcs) where a row is 16-byte
// aligned (d_model % 4 == 0), a scalar loop otherwise; one thread per packed group of a row,
// flat over the grid. Backward: one thread per grad_out element, atomicAdd into both tables.
#include <cstdint>

template <typename T> struct alignas(16) Packed128 {
    static constexpr int size = 16 / sizeof(T);
    T payload[size];
    __device__ static Packed128 zeros() { Packed128 p; for (int k = 0; k < size; ++k) p.payload[k] = T(0); return p; }
    __device__ T& operator[](int k) { return payload[k]; }
    __device__ const T& operator[](int k) const { return payload[k]; }
};
typedef Packed128<float> x128;

__device__ x128 load128cs(const float* p) {
    const float4 v = __ldcs(reinterpret_cast<const float4*>(p));
    x128 r; r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w; return r;
}
__device__ void store128cs(float* p, const x128& r) {
    __stcs(reinterpret_cast<float4*>(p), make_float4(r[0], r[1], r[2], r[3]));
}

__device__ bool check_id(int id, int row, int num_rows, int* bad, bool report) {
    if (id >= 0 && id < num_rows) return true;
    if (report) atomicMin(bad, row);
    return false;
}

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    if (d_model % x128::size == 0) {
        const int groups = d_model / x128::size;
        for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < (long)n_ids * groups;
             idx += (long)blockDim.x * gridDim.x) {
            const int row = (int)(idx / groups), c = (int)(idx % groups) * x128::size;
            const int id = __ldcs(ids + row);
            if (!check_id(id, row, num_rows, bad, c == 0)) continue;
            store128cs(out + (size_t)row * d_model + c, load128cs(table + (size_t)id * d_model + c));
        }
        return;
    }
    for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < (long)n_ids * d_model;
         idx += (long)blockDim.x * gridDim.x) {
        const int row = (int)(idx / d_model), c = (int)(idx % d_model);
        const int id = ids[row];
        if (!check_id(id, row, num_rows, bad, c == 0)) continue;
        __stcs(out + idx, __ldcs(table + (size_t)id * d_model + c));
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* wte, const float* wpe,
                                                float* out, int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    if (d_model % x128::size == 0) {
        const int groups = d_model / x128::size;
        for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < (long)n_ids * groups;
             idx += (long)blockDim.x * gridDim.x) {
            const int bt = (int)(idx / groups), c = (int)(idx % groups) * x128::size;
            const int t = bt % seq_len, ix = ids[bt];
            if (!check_id(ix, bt, num_rows, bad, c == 0)) continue;
            const x128 a = load128cs(wte + (size_t)ix * d_model + c);
            const x128 p = load128cs(wpe + (size_t)t * d_model + c);
            x128 o;
#pragma unroll
            for (int k = 0; k < x128::size; ++k) o[k] = a[k] + p[k];
            store128cs(out + (size_t)bt * d_model + c, o);
        }
        return;
    }
    for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < (long)n_ids * d_model;
         idx += (long)blockDim.x * gridDim.x) {
        const int bt = (int)(idx / d_model), c = (int)(idx % d_model), t = bt % seq_len;
        const int ix = ids[bt];
        if (!check_id(ix, bt, num_rows, bad, c == 0)) continue;
        out[idx] = __ldcs(wte + (size_t)ix * d_model + c) + __ldcs(wpe + (size_t)t * d_model + c);
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* dout,
                                                       float* dwte, int n_ids, int d_model,
                                                       int num_rows, int* bad) {
    for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < (long)n_ids * d_model;
         idx += (long)blockDim.x * gridDim.x) {
        const int bt = (int)(idx / d_model), c = (int)(idx % d_model);
        const int ix = ids[bt];
        if (!check_id(ix, bt, num_rows, bad, c == 0)) continue;
        atomicAdd(dwte + (size_t)ix * d_model + c, dout[idx]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* dout, float* dwpe,
                                                          int batch, int seq_len, int d_model) {
    const long n = (long)batch * seq_len * d_model;
    for (long idx = (long)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
         idx += (long)blockDim.x * gridDim.x) {
        const int t = (int)((idx / d_model) % seq_len), c = (int)(idx % d_model);
        atomicAdd(dwpe + (size_t)t * d_model + c, __ldcs(dout + idx));
    }
}
