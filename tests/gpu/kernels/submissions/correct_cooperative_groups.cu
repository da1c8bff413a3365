// Production style with cooperative groups: cg::this_grid() for grid-stride loops over rows,
// cg::this_thread_block() and tiled_partition<32> for the position gradient: each warp sums a
// column's batch with tile.shfl_down, warp leaders meet in shared memory after block.sync().
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void andrea_lookup(const float* __restrict__ table,
                                         const int* __restrict__ ids, float* __restrict__ out,
                                         int n_ids, int d_model, int num_rows,
                                         int* __restrict__ bad) {
    cg::grid_group grid = cg::this_grid();
    const long long n = (long long)n_ids * d_model;
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) {
        const long long row = i / d_model, col = i % d_model;
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (col == 0) atomicMin(bad, (int)row); continue; }
        out[i] = table[(long long)id * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ token_table,
                                                const float* __restrict__ position_table,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows,
                                                int* __restrict__ bad) {
    cg::grid_group grid = cg::this_grid();
    const long long n = (long long)n_ids * d_model;
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) {
        const long long row = i / d_model, col = i % d_model;
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (col == 0) atomicMin(bad, (int)row); continue; }
        out[i] = token_table[(long long)id * d_model + col]
                 + position_table[(row % seq_len) * d_model + col];
    }
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token,
                                                       int n_ids, int d_model, int num_rows,
                                                       int* __restrict__ bad) {
    cg::thread_block block = cg::this_thread_block();
    for (int row = block.group_index().x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (id < 0 || id >= num_rows) { if (block.thread_rank() == 0) atomicMin(bad, row); continue; }
        for (int c = block.thread_rank(); c < d_model; c += block.size())
            atomicAdd(grad_token + (long long)id * d_model + c, grad_out[(long long)row * d_model + c]);
    }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
    __shared__ float partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const long long plane = (long long)seq_len * d_model;
    for (long long e = block.group_index().x; e < plane; e += gridDim.x) {
        float acc = 0.f;
        for (int b = block.thread_rank(); b < batch; b += block.size()) acc += grad_out[b * plane + e];
        for (int off = 16; off > 0; off /= 2) acc += warp.shfl_down(acc, off);
        if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = acc;
        block.sync();
        if (block.thread_rank() == 0) {
            float total = 0.f;
            for (int w = 0; w < (int)warp.meta_group_size(); ++w) total += partial[w];
            grad_position[e] = total;
        }
        block.sync();
    }
}
