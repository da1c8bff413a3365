// ANDREA-120M embedding layer kernels: lookup, forward (token row + position row), backward.
//
//   x[b, t, :] = token_table[ids[b, t], :] + position_table[t, :]
//
// Conventions (the `kernels:` contract in spec/andrea-120m.yaml):
// * ids are int32, data float32 (the *_f64 variants take double), all arrays C-contiguous;
// * every loop is grid-stride over rows (blockIdx.x) and block-stride over columns
//   (threadIdx.x), so any 1-D launch shape gives the same result;
// * an id outside [0, num_rows) is never dereferenced: the kernel records the smallest flat
//   index of such an id in *bad (the host sets *bad = INT_MAX first) and skips that row.
// The host range-checks ids before launching, so *bad is a second line of defence.
//
// Compiled by NVRTC for the GPU and by the host C++ compiler for the CPU executor.

__device__ __forceinline__ bool andrea_row_ok(int id, int num_rows, int row, int *bad) {
    if (id >= 0 && id < num_rows) return true;
    if (threadIdx.x == 0) atomicMin(bad, row);
    return false;
}

// -------------------------------------------------------------------------------- lookup
// A bit-exact row gather over 32-bit words (the host gives a row width in words, so one kernel
// serves float32, float64 and any other dtype whose rows are a multiple of 4 bytes). Rows whose
// width is a multiple of 4 words move as 16-byte vectors.
__device__ __forceinline__ void andrea_gather(const unsigned int *__restrict__ table,
                                             const int *__restrict__ ids,
                                             unsigned int *__restrict__ out, int n_ids,
                                             int row_words, int num_rows, int *bad) {
    const bool vec = (row_words & 3) == 0;
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!andrea_row_ok(id, num_rows, row, bad)) continue;
        if (vec) {
            const uint4 *src = reinterpret_cast<const uint4 *>(table + (size_t)id * row_words);
            uint4 *dst = reinterpret_cast<uint4 *>(out + (size_t)row * row_words);
            for (int c = threadIdx.x; c < row_words / 4; c += blockDim.x) dst[c] = src[c];
        } else {
            const unsigned int *src = table + (size_t)id * row_words;
            unsigned int *dst = out + (size_t)row * row_words;
            for (int c = threadIdx.x; c < row_words; c += blockDim.x) dst[c] = src[c];
        }
    }
}

extern "C" __global__ void andrea_gather_words(const unsigned int *__restrict__ table,
                                               const int *__restrict__ ids,
                                               unsigned int *__restrict__ out, int n_ids,
                                               int row_words, int num_rows, int *bad) {
    andrea_gather(table, ids, out, n_ids, row_words, num_rows, bad);
}

// Contract entry point: lookup of float32 rows.
extern "C" __global__ void andrea_lookup(const float *__restrict__ table, const int *__restrict__ ids,
                                         float *__restrict__ out, int n_ids, int d_model,
                                         int num_rows, int *bad) {
    andrea_gather(reinterpret_cast<const unsigned int *>(table), ids,
                        reinterpret_cast<unsigned int *>(out), n_ids, d_model, num_rows, bad);
}

// -------------------------------------------------------------------------------- forward
// One pass: read the token row and the position row, write their sum. Flat id row `row` sits
// at position row % seq_len. 16-byte loads/stores when d_model allows (float4 / double2).
template <typename T, typename V, int W>
__device__ __forceinline__ void andrea_forward(const int *__restrict__ ids,
                                               const T *__restrict__ tok, const T *__restrict__ pos,
                                               T *__restrict__ out, int n_ids, int seq_len,
                                               int d_model, int num_rows, int *bad) {
    const bool vec = d_model % W == 0;
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!andrea_row_ok(id, num_rows, row, bad)) continue;
        const T *a = tok + (size_t)id * d_model;
        const T *p = pos + (size_t)(row % seq_len) * d_model;
        T *o = out + (size_t)row * d_model;
        if (vec) {
            const V *a4 = reinterpret_cast<const V *>(a);
            const V *p4 = reinterpret_cast<const V *>(p);
            V *o4 = reinterpret_cast<V *>(o);
            for (int c = threadIdx.x; c < d_model / W; c += blockDim.x) {
                V x = a4[c], y = p4[c];
                T *xs = reinterpret_cast<T *>(&x);
                const T *ys = reinterpret_cast<const T *>(&y);
#pragma unroll
                for (int k = 0; k < W; ++k) xs[k] += ys[k];
                o4[c] = x;
            }
        } else {
            for (int c = threadIdx.x; c < d_model; c += blockDim.x) o[c] = a[c] + p[c];
        }
    }
}

// Contract entry point.
extern "C" __global__ void andrea_embed_forward(const int *__restrict__ ids,
                                                const float *__restrict__ token_table,
                                                const float *__restrict__ position_table,
                                                float *__restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows, int *bad) {
    andrea_forward<float, float4, 4>(ids, token_table, position_table, out, n_ids, seq_len,
                                     d_model, num_rows, bad);
}

extern "C" __global__ void andrea_embed_forward_f64(const int *__restrict__ ids,
                                                    const double *__restrict__ token_table,
                                                    const double *__restrict__ position_table,
                                                    double *__restrict__ out, int n_ids,
                                                    int seq_len, int d_model, int num_rows,
                                                    int *bad) {
    andrea_forward<double, double2, 2>(ids, token_table, position_table, out, n_ids, seq_len,
                                       d_model, num_rows, bad);
}

// -------------------------------------------------------------------------------- backward
// Token gradient, atomic variant (contract entry point): grad_token (zeroed by the host)
// += grad_out[row] at row ids[row]. The order of the float additions is the hardware's, so the
// last bits can change from run to run.
template <typename T>
__device__ __forceinline__ void andrea_scatter_atomic(const int *__restrict__ ids,
                                                      const T *__restrict__ grad_out,
                                                      T *__restrict__ grad_token, int n_ids,
                                                      int d_model, int num_rows, int *bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!andrea_row_ok(id, num_rows, row, bad)) continue;
        const T *g = grad_out + (size_t)row * d_model;
        T *dst = grad_token + (size_t)id * d_model;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x) atomicAdd(dst + c, g[c]);
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int *__restrict__ ids,
                                                       const float *__restrict__ grad_out,
                                                       float *__restrict__ grad_token, int n_ids,
                                                       int d_model, int num_rows, int *bad) {
    andrea_scatter_atomic<float>(ids, grad_out, grad_token, n_ids, d_model, num_rows, bad);
}

extern "C" __global__ void andrea_embed_backward_token_f64(const int *__restrict__ ids,
                                                           const double *__restrict__ grad_out,
                                                           double *__restrict__ grad_token,
                                                           int n_ids, int d_model, int num_rows,
                                                           int *bad) {
    andrea_scatter_atomic<double>(ids, grad_out, grad_token, n_ids, d_model, num_rows, bad);
}

// Token gradient, deterministic variant (andrea_gpu's default). The host sorts the flat ids
// (order[j] = flat index of the j-th smallest (id, index) pair) and marks where each id's run
// starts (seg_start[s], with seg_start[n_segments] = n_ids). One block per run sums its rows in
// ascending flat index, a fixed order, so the result is bit-identical from run to run; each
// run writes its own row, so no atomics and no zero-fill of the rows that get a gradient.
template <typename T>
__device__ __forceinline__ void andrea_scatter_sorted(const int *__restrict__ order,
                                                      const int *__restrict__ seg_start,
                                                      int n_segments, const int *__restrict__ ids,
                                                      const T *__restrict__ grad_out,
                                                      T *__restrict__ grad_token, int d_model,
                                                      int num_rows, int *bad) {
    for (int s = blockIdx.x; s < n_segments; s += gridDim.x) {
        const int lo = seg_start[s], hi = seg_start[s + 1];
        const int id = ids[order[lo]];
        if (!andrea_row_ok(id, num_rows, order[lo], bad)) continue;
        T *dst = grad_token + (size_t)id * d_model;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x) {
            T acc = grad_out[(size_t)order[lo] * d_model + c];
            for (int j = lo + 1; j < hi; ++j) acc += grad_out[(size_t)order[j] * d_model + c];
            dst[c] = acc;
        }
    }
}

extern "C" __global__ void andrea_embed_backward_token_sorted(
    const int *__restrict__ order, const int *__restrict__ seg_start, int n_segments,
    const int *__restrict__ ids, const float *__restrict__ grad_out,
    float *__restrict__ grad_token, int d_model, int num_rows, int *bad) {
    andrea_scatter_sorted<float>(order, seg_start, n_segments, ids, grad_out, grad_token, d_model,
                                 num_rows, bad);
}

extern "C" __global__ void andrea_embed_backward_token_sorted_f64(
    const int *__restrict__ order, const int *__restrict__ seg_start, int n_segments,
    const int *__restrict__ ids, const double *__restrict__ grad_out,
    double *__restrict__ grad_token, int d_model, int num_rows, int *bad) {
    andrea_scatter_sorted<double>(order, seg_start, n_segments, ids, grad_out, grad_token,
                                  d_model, num_rows, bad);
}

// Position gradient (contract entry point): grad_position[t] = sum over b of grad_out[b, t],
// added in ascending b, for t < seq_len (the host zero-fills rows t >= seq_len).
template <typename T>
__device__ __forceinline__ void andrea_position_sum(const T *__restrict__ grad_out,
                                                    T *__restrict__ grad_position, int batch,
                                                    int seq_len, int d_model) {
    const size_t plane = (size_t)seq_len * d_model;
    const size_t step = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += step) {
        T acc = grad_out[i];
        for (int b = 1; b < batch; ++b) acc += grad_out[(size_t)b * plane + i];
        grad_position[i] = acc;
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float *__restrict__ grad_out,
                                                          float *__restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    andrea_position_sum<float>(grad_out, grad_position, batch, seq_len, d_model);
}

extern "C" __global__ void andrea_embed_backward_position_f64(const double *__restrict__ grad_out,
                                                              double *__restrict__ grad_position,
                                                              int batch, int seq_len,
                                                              int d_model) {
    andrea_position_sum<double>(grad_out, grad_position, batch, seq_len, d_model);
}
