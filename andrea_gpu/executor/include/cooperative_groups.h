// cooperative_groups.h for the CPU executor and NVRTC alike (both compile this file, so a kernel
// means the same to both): the part of CUDA's cooperative groups a kernel of this contract uses,
// written with the warp and block primitives. thread_block (sync, thread_rank, size,
// group_index, thread_index, group_dim), this_grid() for grid-stride loops (thread_rank, size;
// no grid-wide sync: it needs a cooperative launch, which the contract's launches are not),
// and tiled_partition<Size> for Size 1, 2, 4, ..., 32: consecutive lanes of a warp (shfl,
// shfl_down, shfl_up, shfl_xor within the tile, ballot of the tile's lanes, any, all, sync,
// thread_rank, meta_group_rank), each primitive naming the tile's lanes as its mask.
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
    static_assert(Size == 1 || Size == 2 || Size == 4 || Size == 8 || Size == 16 || Size == 32,
                  "tiled_partition<Size>: Size is a power of two of at most 32");
    // This tile's lanes of the warp (the mask its warp-level primitives name).
    __device__ unsigned mask() const {
        const unsigned lane = (unsigned)(this_thread_block().thread_rank() % 32);
        return Size == 32 ? 0xffffffffu : ((1u << Size) - 1u) << (lane / Size * Size);
    }
    __device__ unsigned long long thread_rank() const {
        return this_thread_block().thread_rank() % Size;
    }
    __device__ unsigned long long size() const { return Size; }
    __device__ unsigned long long num_threads() const { return Size; }
    __device__ unsigned long long meta_group_rank() const {
        return this_thread_block().thread_rank() / Size;
    }
    __device__ unsigned long long meta_group_size() const {
        return (this_thread_block().num_threads() + Size - 1) / Size;
    }
    __device__ void sync() const { __syncwarp(mask()); }
    template <class T> __device__ T shfl(T var, int src) const {
        return __shfl_sync(mask(), var, src, Size);
    }
    template <class T> __device__ T shfl_down(T var, unsigned delta) const {
        return __shfl_down_sync(mask(), var, delta, Size);
    }
    template <class T> __device__ T shfl_up(T var, unsigned delta) const {
        return __shfl_up_sync(mask(), var, delta, Size);
    }
    template <class T> __device__ T shfl_xor(T var, unsigned lane_mask) const {
        return __shfl_xor_sync(mask(), var, lane_mask, Size);
    }
    __device__ unsigned ballot(int predicate) const {
        const unsigned lane = (unsigned)(this_thread_block().thread_rank() % 32);
        return Size == 32 ? __ballot_sync(mask(), predicate)
                          : (__ballot_sync(mask(), predicate) >> (lane / Size * Size))
                                & ((1u << Size) - 1u);
    }
    __device__ int any(int predicate) const { return __any_sync(mask(), predicate); }
    __device__ int all(int predicate) const { return __all_sync(mask(), predicate); }
};

template <unsigned Size>
__device__ inline thread_block_tile<Size> tiled_partition(const thread_block&) {
    return thread_block_tile<Size>();
}

template <unsigned Size>
__device__ inline void sync(const thread_block_tile<Size>& tile) { tile.sync(); }

}  // namespace cooperative_groups
