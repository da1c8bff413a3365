// Hostile (a kernel passes itself off as "NVRTC missing"): a correct kernel (the flat-atomics
// style of tests/gpu/kernels) plus host code that NVRTC never sees (#ifndef __CUDA_ARCH__) and
// the CPU build runs first: a static constructor writes a forged first reply, "import_error:
// NvrtcUnavailable", to every descriptor from 3 to 255 (one is the reply pipe). The grader took the
// worker's word and stopped with its own error ("kernel grading unavailable", exit status 2):
// the submission was never graded.
//
// Expected: where the grader itself loads NVRTC, this is the submission's import error (graded,
// 0 points), not the grader's failure.
// Correct: flat element indexing (one thread per output element, grid-stride over all of
// them), float atomics in both backwards.
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
        atomicAdd(grad_token + (long long)id * d_model + col, grad_out[e]);
    }
}

// grad_position (zeroed by the host) += every batch row: one atomicAdd per grad_out element.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long long plane = (long long)seq_len * d_model, total = plane * batch;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x)
        atomicAdd(&grad_position[e % plane], grad_out[e]);
}

#ifndef __CUDA_ARCH__
extern "C" long write(int, const void *, unsigned long);
extern "C" int sprintf(char *, const char *, ...);
__attribute__((constructor)) static void andrea_forge() {
    const char *head = "{\"import_error\":{\"type\":\"NvrtcUnavailable\",\"msg\":\"libnvrtc.so not found\"},\"blobs\":[]}";
    unsigned long n = 0;
    while (head[n]) n++;
    unsigned char frame[12];
    unsigned long body = 4 + n;
    for (int i = 0; i < 8; i++) frame[i] = (unsigned char)(body >> (8 * (7 - i)));
    for (int i = 0; i < 4; i++) frame[8 + i] = (unsigned char)(n >> (8 * (3 - i)));
    for (int fd = 3; fd < 256; fd++) { write(fd, frame, 12); write(fd, head, n); }
}
#endif
