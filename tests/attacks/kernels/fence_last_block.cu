// HOSTILE (fence_last_block; in fact honest code: a false race, fourth red-team round): the last-block reduction of
// CUDA's programming guide (Memory Fence Functions; the threadFenceReduction sample): each block
// writes its partial sum, __threadfence(), then takes a ticket with atomicInc; the block that
// draws the last ticket reads every block's partial sum after __syncthreads(). The fence makes
// each partial sum visible before the ticket that tells the last block to read it: correct on a
// GPU as documented, and compute-sanitizer's racecheck (shared memory only) reports nothing.
// What it did (main at edebcec, CPU executor): RaceError "data race on argument 2 (partial),
// element 0 ... block (3,0,0) thread (0,0,0) reads it and block (0,0,0) thread (0,0,0) writes
// it, with no __syncthreads() or atomic between them": the executor orders nothing by a fence
// (f042a35: "__threadfence orders nothing between threads").
// Expected: no finding; the total is the sum. General fix: a fence followed by an atomic of the
// same thread releases the writes before the fence, and another thread's atomic that reads that
// atomic's value (or a later one in the word's order) acquires them for its block after the next
// __syncthreads() (a vector clock carried by the atomic's word).
// Now: no finding (a fence then an atomic is a release, another thread's later atomic on the
// word an acquire: docs/gpu.md); without the fence (fence_last_block_no_fence.cu), or read by a
// block that did not draw the last ticket, it stays a race.
__device__ unsigned int retirement = 0;

extern "C" __global__ void fence_reduce(const float* x, int n, float* partial, float* total) {
    __shared__ bool last;
    __shared__ float s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (t == 0) {
        float acc = 0.0f;
        for (int k = 0; k < blockDim.x; ++k) acc += s[k];
        partial[blockIdx.x] = acc;
        __threadfence();
        unsigned int ticket = atomicInc(&retirement, gridDim.x);
        last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (last && t == 0) {
        float acc = 0.0f;
        for (int b = 0; b < gridDim.x; ++b) acc += partial[b];
        total[0] = acc;
    }
}
