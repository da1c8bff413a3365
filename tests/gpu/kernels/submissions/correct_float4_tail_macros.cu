// Correct: macros for the index arithmetic, float4 for 16-byte-aligned rows (d_model % 4 == 0)
// with a scalar loop otherwise, #pragma unroll, several kernels in one file (a helper kernel
// the host never launches).
#define IDX(r, c, d) ((size_t)(r) * (size_t)(d) + (size_t)(c))
#define BAD_ID(id, n) ((id) < 0 || (id) >= (n))
#define FOR_ROWS(row, n) for (int row = blockIdx.x; row < (n); row += gridDim.x)

__global__ void zero_fill(float* p, int n) {  // not an entry point: never launched
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 0.f;
}

__device__ void row_add(float* dst, const float* a, const float* b, int d) {
    if ((d & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* b4 = reinterpret_cast<const float4*>(b);
        float4* d4 = reinterpret_cast<float4*>(dst);
        for (int k = threadIdx.x; k < d / 4; k += blockDim.x) {
            float4 x = a4[k];
            if (b) {  // a lookup copies (no + 0.0f: -0.0 must stay -0.0)
                const float4 y = b4[k];
                x.x += y.x; x.y += y.y; x.z += y.z; x.w += y.w;
            }
            d4[k] = x;
        }
    } else {
        #pragma unroll
        for (int c = threadIdx.x; c < d; c += blockDim.x) dst[c] = b ? a[c] + b[c] : a[c];
    }
}

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    FOR_ROWS(row, n_ids) {
        int id = ids[row];
        if (BAD_ID(id, num_rows)) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        row_add(out + IDX(row, 0, d_model), table + IDX(id, 0, d_model), nullptr, d_model);
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    FOR_ROWS(row, n_ids) {
        int id = ids[row];
        if (BAD_ID(id, num_rows)) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        row_add(out + IDX(row, 0, d_model), token_table + IDX(id, 0, d_model),
                position_table + IDX(row % seq_len, 0, d_model), d_model);
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    FOR_ROWS(row, n_ids) {
        int id = ids[row];
        if (BAD_ID(id, num_rows)) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        #pragma unroll 2
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(&grad_token[IDX(id, c, d_model)], grad_out[IDX(row, c, d_model)]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    for (int t = blockIdx.x; t < seq_len; t += gridDim.x)
        for (int c = threadIdx.x; c < d_model; c += blockDim.x) {
            float acc = 0.f;
            for (int b = 0; b < batch; ++b) acc += grad_out[IDX(b * seq_len + t, c, d_model)];
            grad_position[IDX(t, c, d_model)] = acc;
        }
}
