// Production style: the position gradient as a shared-memory tiled reduction. A block owns a
// tile of TILE columns of one position t; its threads stride over the batch, each summing
// into its own slot of a padded 2-D shared array, then a tree over the rows of the tile.
// Forward: rows through static shared memory (ids of the block's rows staged once).
#include <cuda_runtime.h>

template <int TILE>
struct Tile {
  float sum[32][TILE + 1];
};

extern "C" __global__ void andrea_lookup(const float* __restrict__ table,
                                         const int* __restrict__ ids, float* __restrict__ out,
                                         int n_ids, int d_model, int num_rows,
                                         int* __restrict__ bad) {
  __shared__ int s_id;
  for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
    if (threadIdx.x == 0) s_id = ids[row];
    __syncthreads();
    const int id = s_id;
    __syncthreads();
    if (id < 0 || id >= num_rows) {
      if (threadIdx.x == 0) atomicMin(bad, row);
      continue;
    }
    for (int c = threadIdx.x; c < d_model; c += blockDim.x)
      out[(size_t)row * d_model + c] = table[(size_t)id * d_model + c];
  }
}

extern "C" __global__ void andrea_embed_forward(const int* __restrict__ ids,
                                                const float* __restrict__ token_table,
                                                const float* __restrict__ position_table,
                                                float* __restrict__ out, int n_ids, int seq_len,
                                                int d_model, int num_rows,
                                                int* __restrict__ bad) {
  __shared__ int s_id;
  for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
    if (threadIdx.x == 0) s_id = ids[row];
    __syncthreads();
    const int id = s_id;
    __syncthreads();
    if (id < 0 || id >= num_rows) {
      if (threadIdx.x == 0) atomicMin(bad, row);
      continue;
    }
    const size_t t = row % seq_len;
    for (int c = threadIdx.x; c < d_model; c += blockDim.x)
      out[(size_t)row * d_model + c] =
          token_table[(size_t)id * d_model + c] + position_table[t * d_model + c];
  }
}

extern "C" __global__ void andrea_embed_backward_token(const int* __restrict__ ids,
                                                       const float* __restrict__ grad_out,
                                                       float* __restrict__ grad_token,
                                                       int n_ids, int d_model, int num_rows,
                                                       int* __restrict__ bad) {
  for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
    const int id = ids[row];
    if (id < 0 || id >= num_rows) {
      if (threadIdx.x == 0) atomicMin(bad, row);
      continue;
    }
    for (int c = threadIdx.x; c < d_model; c += blockDim.x)
      atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);
  }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
  constexpr int TILE = 32;
  __shared__ Tile<TILE> tile;
  const int lane = threadIdx.x % TILE;       // column within the tile
  const int slot = threadIdx.x / TILE;       // which partial sum
  const int slots = blockDim.x / TILE;       // blockDim is a multiple of 32
  const int tiles_per_row = (d_model + TILE - 1) / TILE;
  const size_t plane = (size_t)seq_len * d_model;
  for (int job = blockIdx.x; job < seq_len * tiles_per_row; job += gridDim.x) {
    const int t = job / tiles_per_row;
    const int c = (job % tiles_per_row) * TILE + lane;
    float acc = 0.f;
    if (c < d_model)
      for (int b = slot; b < batch; b += slots) acc += grad_out[b * plane + (size_t)t * d_model + c];
    if (slot < 32) tile.sum[slot][lane] = acc;
    __syncthreads();
    if (slot == 0) {
      float total = 0.f;
      for (int s = 0; s < min(slots, 32); ++s) total += tile.sum[s][lane];
      if (c < d_model) grad_position[(size_t)t * d_model + c] = total;
    }
    __syncthreads();
  }
}
