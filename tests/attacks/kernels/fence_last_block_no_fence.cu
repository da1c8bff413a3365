// HOSTILE (fence_last_block_no_fence; the bug twin of fence_last_block.cu, a race that must stay
// one): the programming guide's last-block reduction without its __threadfence(). Each block
// writes its partial sum with a plain store and takes a ticket with atomicInc; the block that
// draws the last ticket reads every partial sum. Nothing orders a partial sum before the ticket
// (on a GPU the store may become visible after the atomic), so the last block may add a stale
// value: a data race in CUDA's memory model.
// Expected: RaceError on argument 2 (partial), naming the store and the last block's read. The
// fix of fence_last_block.cu (a fence then an atomic is a release) must not forgive it: no fence,
// no release.
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
