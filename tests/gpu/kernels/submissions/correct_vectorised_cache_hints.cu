// Correct: vectorised rows with cache hints. Where a row is 16-byte aligned (d_model % 4 == 0)
// lookup and forward move float4s, read through the read-only / L2 paths (__ldg, __ldcg) and
// written with write-through / streaming stores (__stwt, __stcg); otherwise a scalar loop.
// The token backward adds float4s with sm_90's atomicAdd(float4*, float4); positions sum the
// batch as float4s, with __ldlu / __ldcv loads.
extern "C" __global__ void andrea_lookup(const float* __restrict__ table,
                                         const int* __restrict__ ids, float* __restrict__ out,
                                         int n_ids, int d_model, int num_rows,
                                         int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(ids + row);
        if ((unsigned)id >= (unsigned)num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        if ((d_model & 3) == 0) {
            const float4* src = reinterpret_cast<const float4*>(table + (size_t)id * d_model);
            float4* dst = reinterpret_cast<float4*>(out + (size_t)row * d_model);
            for (int c = threadIdx.x; c < d_model / 4; c += blockDim.x) __stwt(dst + c, __ldg(src + c));
        } else {
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                __stwt(out + (size_t)row * d_model + c, __ldca(table + (size_t)id * d_model + c));
        }
    }
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ tok,
                                                const float* __restrict__ pos,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows, int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldcg(ids + row);
        if ((unsigned)id >= (unsigned)num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        const size_t t = (size_t)(row % seq_len);
        if ((d_model & 3) == 0) {
            const float4* a = reinterpret_cast<const float4*>(tok + (size_t)id * d_model);
            const float4* p = reinterpret_cast<const float4*>(pos + t * d_model);
            float4* o = reinterpret_cast<float4*>(out + (size_t)row * d_model);
            for (int c = threadIdx.x; c < d_model / 4; c += blockDim.x) {
                const float4 x = __ldcg(a + c), y = __ldg(p + c);
                __stcg(o + c, make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w));
            }
        } else {
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                __stcg(out + (size_t)row * d_model + c,
                       __ldcg(tok + (size_t)id * d_model + c) + __ldg(pos + t * d_model + c));
        }
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token, int n_ids,
                                                       int d_model, int num_rows,
                                                       int* __restrict__ bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = __ldg(ids + row);
        if ((unsigned)id >= (unsigned)num_rows) {
            if (threadIdx.x == 0) atomicMin(bad, row);
            continue;
        }
        if ((d_model & 3) == 0) {
            const float4* g = reinterpret_cast<const float4*>(grad_out + (size_t)row * d_model);
            float4* dst = reinterpret_cast<float4*>(grad_token + (size_t)id * d_model);
            for (int c = threadIdx.x; c < d_model / 4; c += blockDim.x) atomicAdd(dst + c, __ldcs(g + c));
        } else {
            for (int c = threadIdx.x; c < d_model; c += blockDim.x)
                atomicAdd(grad_token + (size_t)id * d_model + c, __ldcs(grad_out + (size_t)row * d_model + c));
        }
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    const int plane = seq_len * d_model;
    const int stride = blockDim.x * gridDim.x;
    if ((d_model & 3) == 0) {
        const float4* g = reinterpret_cast<const float4*>(grad_out);
        float4* o = reinterpret_cast<float4*>(grad_position);
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane / 4; i += stride) {
            float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
            for (int b = 0; b < batch; ++b) {
                const float4 v = __ldlu(g + (size_t)b * (plane / 4) + i);
                acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
            }
            __stwb(o + i, acc);
        }
        return;
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += stride) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += __ldcv(grad_out + (size_t)b * plane + i);
        __stwb(grad_position + i, acc);
    }
}
