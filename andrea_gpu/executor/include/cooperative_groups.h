// cooperative_groups.h for the CPU executor and NVRTC alike (both compile this file, so a kernel
// means the same to both): the part of CUDA's cooperative groups a kernel of this contract uses,
// written with the warp and block primitives. thread_block (sync, thread_rank, size,
// group_index, thread_index, group_dim), this_grid() for grid-stride loops (thread_rank, size;
// no grid-wide sync: it needs a cooperative launch, which the contract's launches are not),
// and tiled_partition<32>: a whole warp (shfl, shfl_down, shfl_up, shfl_xor, ballot, any, all,
// sync, meta_group_rank). Smaller tiles are not provided.
#pragma once

namespace cooperative_groups {

struct thread_block {
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned long long thread_rank() const {
        return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    }
    __device__ unsigned long long size() const { return num_threads(); }
    __device__ unsigned long long num_threads() const {
        return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    }
    __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    __device__ dim3 group_dim() const { return blockDim; }
    __device__ dim3 dim_threads() const { return blockDim; }
};

__device__ inline thread_block this_thread_block() { return thread_block(); }
__device__ inline void sync(const thread_block& block) { block.sync(); }

struct grid_group {
    __device__ unsigned long long thread_rank() const {
        const unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x *
            (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
        return block * ((unsigned long long)blockDim.x * blockDim.y * blockDim.z)
               + this_thread_block().thread_rank();
    }
    __device__ unsigned long long size() const { return num_threads(); }
    __device__ unsigned long long num_threads() const {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z
               * blockDim.x * blockDim.y * blockDim.z;
    }
    __device__ dim3 group_dim() const { return gridDim; }
};

__device__ inline grid_group this_grid() { return grid_group(); }

template <unsigned Size>
struct thread_block_tile {
    static_assert(Size == 32, "this checker provides tiled_partition<32> (a whole warp) only");
    __device__ unsigned long long thread_rank() const {
        return this_thread_block().thread_rank() % 32;
    }
    __device__ unsigned long long size() const { return 32; }
    __device__ unsigned long long num_threads() const { return 32; }
    __device__ unsigned long long meta_group_rank() const {
        return this_thread_block().thread_rank() / 32;
    }
    __device__ unsigned long long meta_group_size() const {
        return (this_thread_block().num_threads() + 31) / 32;
    }
    __device__ void sync() const { __syncwarp(); }
    template <class T> __device__ T shfl(T var, int src) const {
        return __shfl_sync(0xffffffffu, var, src, 32);
    }
    template <class T> __device__ T shfl_down(T var, unsigned delta) const {
        return __shfl_down_sync(0xffffffffu, var, delta, 32);
    }
    template <class T> __device__ T shfl_up(T var, unsigned delta) const {
        return __shfl_up_sync(0xffffffffu, var, delta, 32);
    }
    template <class T> __device__ T shfl_xor(T var, unsigned mask) const {
        return __shfl_xor_sync(0xffffffffu, var, mask, 32);
    }
    __device__ unsigned ballot(int predicate) const { return __ballot_sync(0xffffffffu, predicate); }
    __device__ int any(int predicate) const { return __any_sync(0xffffffffu, predicate); }
    __device__ int all(int predicate) const { return __all_sync(0xffffffffu, predicate); }
};

template <unsigned Size>
__device__ inline thread_block_tile<Size> tiled_partition(const thread_block&) {
    return thread_block_tile<Size>();
}

template <unsigned Size>
__device__ inline void sync(const thread_block_tile<Size>& tile) { tile.sync(); }

}  // namespace cooperative_groups
