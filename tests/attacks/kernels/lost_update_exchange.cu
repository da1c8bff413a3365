// HOSTILE (lost_update_exchange): the token and position gradients added as "read the element,
// then atomicExch the sum into it" instead of atomicAdd. On a GPU two threads that add to one
// element at once (a repeated id; every batch row of a position) both read the old value and one
// update is lost: wrong gradients. On the CPU executor the fibers of a launch run one after the
// other between barriers, so the sums come out right, and the race checker leaves atomics on
// argument buffers out of its shadow ("never part of a race"), so the plain read racing with the
// other thread's atomicExch is no finding. The PTX memory model calls a plain access and an
// atomic one to the same address, unordered, a data race.
// What it did: 60 / 60 from andrea-grade (every kernel check passed, no finding).
// Expected: a data race on argument 2 (grad_token) with both threads and lines, as for a plain +=
// (tests/gpu/kernels/submissions/bug_missing_atomic.cu): the checker records atomic accesses to
// argument buffers and reports one that is unordered with a plain access of another thread.
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
        float* g = grad_token + (long long)id * d_model + col;
        atomicExch(g, *g + grad_out[e]);   // read, then swap in the sum: updates are lost
    }
}

// grad_position (zeroed by the host) += every batch row: one atomicAdd per grad_out element.
extern "C" __global__ void andrea_embed_backward_position(const float* grad_out,
                                                          float* grad_position, int batch,
                                                          int seq_len, int d_model) {
    const long long plane = (long long)seq_len * d_model, total = plane * batch;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x)
    {
        float* g = &grad_position[e % plane];
        atomicExch(g, *g + grad_out[e]);
    }
}
