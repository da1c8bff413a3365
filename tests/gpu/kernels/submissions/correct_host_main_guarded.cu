// Student style: the kernels plus the host test harness they ran with nvcc (CUDA_CHECK macro,
// cudaMalloc, <<<>>> launches, printf), kept out of NVRTC's way with #ifndef __CUDACC_RTC__.
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = table[(size_t)id * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        int t = row % seq_len;
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[(size_t)row * d_model + c] = token_table[(size_t)id * d_model + c]
                                             + position_table[(size_t)t * d_model + c];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        int id = ids[row];
        if (id < 0 || id >= num_rows) { if (threadIdx.x == 0) atomicMin(bad, row); continue; }
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    int plane = seq_len * d_model;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += blockDim.x * gridDim.x) {
        float acc = 0.f;
        for (int b = 0; b < batch; ++b) acc += grad_out[(size_t)b * plane + i];
        grad_position[i] = acc;
    }
}

#ifndef __CUDACC_RTC__
#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err__ = (call);                                             \
        if (err__ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__), \
                    __FILE__, __LINE__);                                        \
            return 1;                                                           \
        }                                                                       \
    } while (0)

int main() {
    const int V = 8, D = 4, N = 3;
    float h_table[V * D], h_out[N * D];
    int h_ids[N] = {1, 7, 3}, h_bad = N;
    for (int i = 0; i < V * D; ++i) h_table[i] = (float)i;
    float *d_table, *d_out;
    int *d_ids, *d_bad;
    CUDA_CHECK(cudaMalloc(&d_table, sizeof h_table));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof h_out));
    CUDA_CHECK(cudaMalloc(&d_ids, sizeof h_ids));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_table, h_table, sizeof h_table, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_ids, h_ids, sizeof h_ids, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_bad, &h_bad, sizeof(int), cudaMemcpyHostToDevice));
    andrea_lookup<<<2, 32>>>(d_table, d_ids, d_out, N, D, V, d_bad);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N * D; ++i) printf("%g ", h_out[i]);
    printf("\n");
    cudaFree(d_table); cudaFree(d_out); cudaFree(d_ids); cudaFree(d_bad);
    return 0;
}
#endif
