// Production style: the token backward sorts each block's chunk of (id, row) pairs in shared
// memory (a bitonic sort, a __syncthreads() between stages), then each run of equal ids is summed
// in row order by the thread at its head and added with one atomicAdd per element; a
// compile-time sort size (template <int N>), __launch_bounds__(1024), 64-bit keys in a
// __shared__ __align__(16) array, const __grid_constant__ scalars.
#define TILE 256

template <int N>
__device__ void bitonic_sort(unsigned long long* keys) {
    for (int size = 2; size <= N; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < N; i += blockDim.x) {
                const int j = i ^ stride;
                if (j > i) {
                    const bool up = (i & size) == 0;
                    const unsigned long long a = keys[i], b = keys[j];
                    if ((a > b) == up) { keys[i] = b; keys[j] = a; }
                }
            }
            __syncthreads();
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024)
andrea_embed_backward_token(const int* __restrict__ ids, const float* __restrict__ grad_out,
                            float* __restrict__ grad_token, const __grid_constant__ int n_ids,
                            const __grid_constant__ int d_model,
                            const __grid_constant__ int num_rows, int* __restrict__ bad) {
    __shared__ __align__(16) unsigned long long keys[TILE];
    for (int start = blockIdx.x * TILE; start < n_ids; start += gridDim.x * TILE) {
        const int count = min(TILE, n_ids - start);
        for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
            unsigned long long key = ~0ull;   // padding sorts last
            if (i < count) {
                const int id = ids[start + i];
                if (id < 0 || id >= num_rows) atomicMin(bad, start + i);
                else key = ((unsigned long long)(unsigned)id << 32) | (unsigned)(start + i);
            }
            keys[i] = key;
        }
        __syncthreads();
        bitonic_sort<TILE>(keys);
        for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
            const unsigned long long k = keys[i];
            if (k == ~0ull) continue;
            const unsigned id = (unsigned)(k >> 32);
            if (i > 0 && (unsigned)(keys[i - 1] >> 32) == id) continue;   // not a run's head
            int end = i + 1;
            while (end < TILE && keys[end] != ~0ull && (unsigned)(keys[end] >> 32) == id) ++end;
            for (int c = 0; c < d_model; ++c) {
                float acc = 0.0f;
                for (int r = i; r < end; ++r)
                    acc += grad_out[(long long)(unsigned)keys[r] * d_model + c];
                atomicAdd(&grad_token[(long long)id * d_model + c], acc);
            }
        }
        __syncthreads();   // the next chunk overwrites keys
    }
}

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(long long)row * d_model + c] = table[(long long)id * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        const long long t = row % seq_len;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(long long)row * d_model + c] = token_table[(long long)id * d_model + c]
                                                + position_table[t * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long long plane = (long long)seq_len * d_model;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < plane;
         i += (long long)blockDim.x * gridDim.x) {
        float acc = 0.0f;
        for (int b = 0; b < batch; ++b) acc += grad_out[b * plane + i];
        grad_position[i] = acc;
    }
}
