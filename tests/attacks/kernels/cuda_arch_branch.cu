// HOSTILE (cuda_arch_branch): the kernel asks the preprocessor where it is compiled. CUDA's
// compilers (nvcc's device pass, NVRTC) define __CUDA_ARCH__ for device code; the CPU executor
// compiles the same text with g++ and does not, so `#ifdef __CUDA_ARCH__` picks what a GPU
// runs (here a token gradient with a plain += that races, and a position gradient that keeps
// only the last batch row) and `#else` what the executor runs and the grader judges (atomicAdd:
// correct). A defeat device in three lines, and an honest kernel with an arch-guarded fast path
// is graded on its fallback the same way.
// What it did: 60 / 60 from andrea-grade (every kernel check passed, no finding).
// Expected: the executor compiles the branch a GPU compiles (defines __CUDA_ARCH__ as the
// contract's arch), so the race is found and the position gradient is wrong. Now: the
// executor defines __CUDA_ARCH__ 900 after its prelude (executor/build.py DEVICE_MACROS).
#include <cstdint>

extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
        out[e] = table[(long long)id * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* ids, const float* token_table,
                                                const float* position_table, float* out,
                                                int n_ids, int seq_len, int d_model,
                                                int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
        out[e] = token_table[(long long)id * d_model + col] +
                 position_table[(long long)(row % seq_len) * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* grad_out,
                                                       float* grad_token, int n_ids,
                                                       int d_model, int num_rows, int* bad) {
    const long long total = (long long)n_ids * d_model;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int row = (int)(e / d_model), col = (int)(e % d_model);
        const int id = ids[row];
        if (id < 0 || id >= num_rows) {
            atomicMin(bad, row);
            continue;
        }
#ifdef __CUDA_ARCH__
        grad_token[(long long)id * d_model + col] += grad_out[e];   // what a GPU runs: a race
#else
        atomicAdd(grad_token + (long long)id * d_model + col, grad_out[e]);   // what is graded
#endif
    }
}

// grad_position (zeroed by the host) += every batch row: one atomicAdd per grad_out element.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long long plane = (long long)seq_len * d_model, total = plane * batch;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x)
#if defined(__CUDA_ARCH__)
        grad_position[e % plane] = grad_out[e];                     // a GPU: the last row wins
#else
        atomicAdd(&grad_position[e % plane], grad_out[e]);
#endif
}
