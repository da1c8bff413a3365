// Production style: Caffe's CUDA_KERNEL_LOOP macro for flat grid-stride loops, a lambda in a kernel,
// and a token backward that deduplicates ids within a warp with __match_any_sync: lanes holding
// the same id elect the lowest lane as leader, which sums its peers' rows in lane order (a
// deterministic order within the warp) before one atomicAdd per element.
#include <cstdint>

#define CUDA_KERNEL_LOOP(i, n) \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); \
       i += (int64_t)blockDim.x * gridDim.x)

__device__ __forceinline__ bool bad_id(int id, int rows) { return id < 0 || id >= rows; }

extern "C" __global__ void __launch_bounds__(1024)
andrea_lookup(const float* __restrict__ table, const int* __restrict__ ids,
              float* __restrict__ out, int n_ids, int d_model, int num_rows,
              int* __restrict__ bad) {
  auto copy = [=](int64_t i) {
    const int64_t row = i / d_model, col = i % d_model;
    const int id = ids[row];
    if (bad_id(id, num_rows)) { if (col == 0) atomicMin(bad, (int)row); return; }
    out[i] = table[(int64_t)id * d_model + col];
  };
  CUDA_KERNEL_LOOP(i, (int64_t)n_ids * d_model) copy(i);
}

extern "C" __global__ void __launch_bounds__(1024)
andrea_embed_forward(const int* __restrict__ ids, const float* __restrict__ token_table,
                     const float* __restrict__ position_table, float* __restrict__ out,
                     int n_ids, int seq_len, int d_model, int num_rows, int* __restrict__ bad) {
  CUDA_KERNEL_LOOP(i, (int64_t)n_ids * d_model) {
    const int64_t row = i / d_model, col = i % d_model;
    const int id = ids[row];
    if (bad_id(id, num_rows)) { if (col == 0) atomicMin(bad, (int)row); continue; }
    out[i] = token_table[(int64_t)id * d_model + col]
             + position_table[(row % seq_len) * d_model + col];
  }
}

extern "C" __global__ void andrea_embed_backward_token(
    const int* __restrict__ ids, const float* __restrict__ grad_out,
    float* __restrict__ grad_token, int n_ids, int d_model, int num_rows,
    int* __restrict__ bad) {
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int warps = (gridDim.x * blockDim.x) >> 5;
  for (int base = warp * 32; base < n_ids; base += warps * 32) {
    const int row = base + lane;
    const int id = row < n_ids ? ids[row] : -1;
    const bool valid = row < n_ids && !bad_id(id, num_rows);
    if (row < n_ids && !valid) atomicMin(bad, row);
    const unsigned peers = __match_any_sync(0xffffffffu, valid ? id : -1);
    const bool leader = valid && (__ffs(peers) - 1) == lane;
    const unsigned leaders = __ballot_sync(0xffffffffu, leader);
    for (unsigned todo = leaders; todo; todo &= todo - 1) {
      const int l = __ffs(todo) - 1;
      const int lid = __shfl_sync(0xffffffffu, id, l);
      const unsigned group = __shfl_sync(0xffffffffu, peers, l);
      for (int c = lane; c < d_model; c += 32) {
        float acc = 0.f;
        for (unsigned g = group; g; g &= g - 1)
          acc += grad_out[(int64_t)(base + __ffs(g) - 1) * d_model + c];
        atomicAdd(grad_token + (int64_t)lid * d_model + c, acc);
      }
    }
    __syncwarp();
  }
}

extern "C" __global__ void andrea_embed_backward_position(const float* __restrict__ grad_out,
                                                          float* __restrict__ grad_position,
                                                          int batch, int seq_len, int d_model) {
  // one warp per element group: lanes split the batch, __shfl_xor_sync butterfly
  const int64_t plane = (int64_t)seq_len * d_model;
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t e = warp; e < plane; e += warps) {
    float acc = 0.f;
    for (int b = lane; b < batch; b += 32) acc += grad_out[b * plane + e];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) grad_position[e] = acc;
  }
}
