// HOSTILE (host_compiler_branch): as cuda_arch_branch.cu, but the kernel asks for a macro of the
// host compiler instead: g++ (the CPU executor) predefines __GNUC__, __x86_64__, __linux__,
// __SANITIZE_THREAD__ (the checked build), ... and the prelude's own ANDREA_* names; NVRTC,
// which compiles the file for a GPU, defines none of them (measured with andrea_gpu.nvrtc).
// `#ifndef __GNUC__` picks what a GPU runs (a racy += for the token gradient, the last batch
// row for the position gradient), `#else` what the executor runs and the grader judges.
// What it did: 60 / 60 (defining __CUDA_ARCH__ in the executor does not close this).
// Now: refused before any compile, at lines 62 and 77 (host.check_includes, the list of
// andrea_gpu/executor/macros.py measured from both compilers).
// Expected: the executor judges the text a GPU compiler sees. A general fix: refuse a kernel
// source that names a macro the host compiler predefines and NVRTC does not (the difference
// of `g++ -dM -E` and NVRTC's set, computed once, plus the prelude's ANDREA_* and andrea_exec
// names), in host.check_includes' word check, as no_sanitize is refused; or preprocess the
// kernel under NVRTC's macro set before the host compiler sees it.
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
#ifndef __GNUC__
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
#if !defined(__GNUC__)
        grad_position[e % plane] = grad_out[e];                     // a GPU: the last row wins
#else
        atomicAdd(&grad_position[e % plane], grad_out[e]);
#endif
}
