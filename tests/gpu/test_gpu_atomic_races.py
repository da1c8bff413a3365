"""The race checker and atomics: a plain access and another thread's atomic on the same word,
with nothing ordering them, race (CUDA's memory model; compute-sanitizer's racecheck); two
atomics never do, unless one is block-scoped and they come from different blocks. Barriers
order, warp-level synchronisation orders the lanes of one warp, a fence alone orders nothing
between threads; a fence then an atomic releases the thread's earlier accesses to the thread whose
later atomic on that word acquires them (the guide's last-block reduction). A plain read that an atomicCAS of the same thread then checks (the CAS loop of CUDA's
programming guide) is no race, and a CAS that does not retry loses its update as on a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from andrea_gpu.executor import Module, RaceError

SOURCE = r"""
extern "C" __global__ void read_after_atomic(int* y, int* out, int mode) {
    atomicAdd(&y[0], 1);
    if (mode == 1) __syncthreads();
    if (mode == 2) __threadfence();
    if (threadIdx.x == 5) out[0] = y[0];
}

extern "C" __global__ void shared_count(int* out, int mode) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd_block(&count, 1);
    if (mode == 1) __syncwarp();
    if (mode == 2) __syncthreads();
    if (threadIdx.x % 32 == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = count;
}

extern "C" __global__ void scatter(const int* idx, int n, float* y, int block_scope) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (block_scope) atomicAdd_block(&y[idx[i]], 1.0f);
    else atomicAdd(&y[idx[i]], 1.0f);
}

__device__ float add_by_cas(float* address, float val, bool retry) {
    unsigned int* a = (unsigned int*)address;
    unsigned int old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __float_as_uint(val + __uint_as_float(assumed)));
    } while (retry && assumed != old);
    return __uint_as_float(old);
}

extern "C" __global__ void cas_sum(float* y, int retry) {
    add_by_cas(&y[threadIdx.x % 2], 1.0f, retry != 0);
}

extern "C" __global__ void add_then_store(float* y) {
    float old = atomicAdd(&y[0], 1.0f);
    y[0] = old + 1.0f;
}
"""


@pytest.fixture(scope="module")
def mod():
    return Module(SOURCE, "atomic_races.cu")


# The programming guide's last-block reduction and its broken variants. mode 0: partial sum,
# __threadfence(), atomicInc ticket, the last block reads every partial sum; 1: no fence; 2: the
# fence after the ticket; 3: the first ticket reads (not the last); 4: every thread writes one
# partial value, __syncthreads(), thread 0 fences and draws (the barrier orders the others'
# writes before the fence); 5: the partial sum written after the fence; 6:
# __threadfence_block() (its block only); 7: every thread of the last block reads one partial
# value after the barrier (thread 0's ticket reaches them through it).
FENCE_SOURCE = r"""
__device__ unsigned int retirement = 0;

extern "C" __global__ void last_block(float* partial, float* total, int mode) {
    __shared__ bool last;
    const int t = threadIdx.x, nb = gridDim.x;
    const float mine = (float)(blockIdx.x + 1);
    if (mode == 4) partial[blockIdx.x * blockDim.x + t] = mine;
    __syncthreads();
    if (t == 0) {
        if (mode == 6) { partial[blockIdx.x] = mine; __threadfence_block(); }
        else if (mode == 5) __threadfence();
        else if (mode != 4) partial[blockIdx.x] = mine;
        if (mode != 1 && mode != 2 && mode != 5 && mode != 6) __threadfence();
        unsigned int ticket = atomicInc(&retirement, nb - 1);
        if (mode == 2) __threadfence();
        if (mode == 5) partial[blockIdx.x] = mine;
        last = mode == 3 ? ticket == 0 : ticket == (unsigned)nb - 1;
    }
    __syncthreads();
    if (!last) return;
    if (mode == 7) {
        if (t < nb) atomicAdd(total, partial[t]);
    } else if (t == 0) {
        float acc = 0.0f;
        const int n = mode == 4 ? nb * blockDim.x : nb;
        for (int b = 0; b < n; ++b) acc += partial[b];
        total[0] = acc;
    }
}

// The same within one block through shared memory: each thread writes its value, fences,
// draws a ticket; the thread with the last one sums. mode 0: __threadfence_block(); 1: none.
extern "C" __global__ void last_thread(float* total, int mode) {
    __shared__ float v[64];
    __shared__ unsigned int count;
    const int t = threadIdx.x;
    if (t == 0) count = 0;
    __syncthreads();
    v[t] = (float)(t + 1);
    if (mode == 0) __threadfence_block();
    if (atomicAdd(&count, 1u) == blockDim.x - 1) {
        float acc = 0.0f;
        for (int k = 0; k < (int)blockDim.x; ++k) acc += v[k];
        total[blockIdx.x] = acc;
    }
}
"""


@pytest.fixture(scope="module")
def fence_mod():
    return Module(FENCE_SOURCE, "fence_races.cu")


def _last_block(fence_mod, mode, grid=4, block=8):
    partial = np.zeros(grid * block, np.float32)
    total = np.zeros(1, np.float32)
    fence_mod.get_function("last_block")((grid,), (block,), (partial, total, np.int32(mode)))
    return total[0]


@pytest.mark.parametrize("mode", [0, 4, 7])
def test_a_fence_then_an_atomic_releases_to_the_block_drawing_the_last_ticket(fence_mod, mode):
    grid, block = 5, 8
    total = _last_block(fence_mod, mode, grid, block)
    sums = grid * (grid + 1) / 2
    assert total == (sums * block if mode == 4 else sums)


@pytest.mark.parametrize("mode, what", [
    (1, "no fence before the ticket"), (2, "the fence after the ticket"),
    (3, "the first ticket reads"), (5, "the partial sum written after the fence"),
    (6, "a block fence")])
def test_the_last_block_reduction_without_a_release_races(fence_mod, mode, what):
    with pytest.raises(RaceError, match=r"last_block: data race on argument 0 \(partial\)"):
        _last_block(fence_mod, mode)


def test_a_block_fence_then_a_shared_atomic_releases_within_the_block(fence_mod):
    total = np.zeros(2, np.float32)
    fence_mod.get_function("last_thread")((2,), (64,), (total, np.int32(0)))
    assert total.tolist() == [2080.0, 2080.0]
    with pytest.raises(RaceError, match=r"last_thread: data race on shared memory"):
        fence_mod.get_function("last_thread")((1,), (64,), (np.zeros(1, np.float32),
                                                            np.int32(1)))


def _ints(n):
    return np.zeros(n, np.int32)


def test_a_plain_read_of_another_threads_atomic_is_a_race(mod):
    with pytest.raises(RaceError, match=r"read_after_atomic: data race on argument 0 \(y\), "
                       r"element 0 at lines atomic_races.cu:\d+ and atomic_races.cu:\d+: .*"
                       r"updates it with an atomic.*no __syncthreads\(\) between them"):
        mod.get_function("read_after_atomic")((1,), (32,), (_ints(1), _ints(1), np.int32(0)))


def test_a_barrier_orders_the_atomics_before_the_read(mod):
    y, out = _ints(1), _ints(1)
    mod.get_function("read_after_atomic")((1,), (32,), (y, out, np.int32(1)))
    assert y[0] == 32 and out[0] == 32


def test_a_fence_orders_nothing_between_threads(mod):
    with pytest.raises(RaceError, match=r"read_after_atomic: data race on argument 0 \(y\)"):
        mod.get_function("read_after_atomic")((1,), (32,), (_ints(1), _ints(1), np.int32(2)))


def test_another_blocks_atomic_is_never_ordered(mod):
    with pytest.raises(RaceError, match=r"read_after_atomic: data race on argument 0 \(y\)"):
        mod.get_function("read_after_atomic")((3,), (32,), (_ints(1), _ints(1), np.int32(1)))


def test_warp_synchronisation_orders_the_lanes_of_one_warp_only(mod):
    out = _ints(2)
    mod.get_function("shared_count")((2,), (32,), (out, np.int32(1)))  # one warp per block
    assert out.tolist() == [32, 32]
    with pytest.raises(RaceError, match=r"shared_count: data race on shared memory at byte "
                                        r"offset 0 .*updates it with an atomic"):
        mod.get_function("shared_count")((1,), (32,), (_ints(1), np.int32(0)))
    with pytest.raises(RaceError, match=r"shared_count: data race on shared memory"):
        mod.get_function("shared_count")((1,), (64,), (_ints(2), np.int32(1)))  # two warps
    out = _ints(4)
    mod.get_function("shared_count")((2,), (64,), (out, np.int32(2)))
    assert out.tolist() == [64] * 4


def test_atomics_never_race_with_atomics_within_their_scope(mod):
    idx = np.array([0, 1, 0, 1] * 16, np.int32)
    y = np.zeros(2, np.float32)
    mod.get_function("scatter")((4,), (16,), (idx, np.int32(64), y, np.int32(0)))
    assert y.tolist() == [32.0, 32.0]
    y = np.zeros(2, np.float32)   # block scope, one block: every thread is in scope
    mod.get_function("scatter")((1,), (64,), (idx, np.int32(64), y, np.int32(1)))
    assert y.tolist() == [32.0, 32.0]


def test_block_scoped_atomics_of_different_blocks_race(mod):
    idx = np.array([0, 1, 0, 1] * 16, np.int32)
    with pytest.raises(RaceError, match=r"scatter: data race on argument 2 \(y\), element \d "
                                        r".*from different blocks, and one of the atomics is "
                                        r"block-scoped"):
        mod.get_function("scatter")((4,), (16,), (idx, np.int32(64), np.zeros(2, np.float32),
                                                  np.int32(1)))


def test_the_guides_cas_loop_is_no_race_and_a_cas_without_retry_loses_updates(mod):
    y = np.zeros(2, np.float32)
    mod.get_function("cas_sum")((1,), (64,), (y, np.int32(1)))
    assert y.tolist() == [32.0, 32.0]
    y = np.zeros(2, np.float32)
    mod.get_function("cas_sum")((1,), (64,), (y, np.int32(0)))
    assert y[0] < 32 and y[1] < 32   # the plain read saw the value before another's CAS


def test_a_plain_store_of_an_atomics_result_races(mod):
    with pytest.raises(RaceError, match=r"add_then_store: data race on argument 0 \(y\), element "
                                        r"0 .*updates it with an atomic.*writes it"):
        mod.get_function("add_then_store")((1,), (8,), (np.zeros(1, np.float32),))
