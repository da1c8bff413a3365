// Kernels for the CPU executor's self-tests: correct ones (barrier, shared memory, atomics,
// dynamic shared memory) and deliberately broken ones (out of bounds, races, barrier misuse)
// that the executor must catch. Small on purpose: every thread is a fiber.

// Reverse n <= blockDim.x values through shared memory: needs the barrier.
extern "C" __global__ void reverse_block(const float *x, float *y, int n) {
    __shared__ float s[1024];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    if (t < n) y[t] = s[n - 1 - t];
}

// The same without the barrier: a race between writer and reader threads.
extern "C" __global__ void reverse_block_racy(const float *x, float *y, int n) {
    __shared__ float s[1024];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    if (t < n) y[t] = s[n - 1 - t];
}

// Each block reports whether its shared memory was clean (all 0xFF) when it started, then
// dirties it: blocks must not see each other's shared memory.
extern "C" __global__ void shared_fresh_per_block(int *clean) {
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int was = s[t];
    __syncthreads();
    s[t] = (int)blockIdx.x;
    __syncthreads();
    if (was != -1) atomicAnd(clean + blockIdx.x, 0);
}

// Histogram with integer atomics, plus atomicMin / atomicMax / atomicCAS counters.
extern "C" __global__ void histogram(const int *v, int n, int *hist, int *lo_hi, int *cas_count) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(hist + v[i], 1);
        atomicMin(lo_hi, v[i]);
        atomicMax(lo_hi + 1, v[i]);
        int old = *cas_count, seen;
        do { seen = old; old = atomicCAS(cas_count, seen, seen + 1); } while (old != seen);
    }
}

// Block sum in dynamic shared memory (extern __shared__), then one atomicAdd per block.
extern "C" __global__ void block_sum(const float *x, int n, float *out) {
    extern __shared__ float buf[];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}

// Copy with an off-by-one bound (i <= n): reads x[n] and writes y[n].
extern "C" __global__ void copy_off_by_one(const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x) y[i] = x[i];
}

// Reads one element before the start of x.
extern "C" __global__ void read_before_start(const float *x, float *y, int n) {
    const int i = threadIdx.x;
    if (i < n) y[i] = x[i - 1];
}

// Writes one element past the end of y (into the slack the guard page cannot cover).
extern "C" __global__ void write_past_end(float *y, int n) {
    if (threadIdx.x == 0) y[n] = 1.0f;
}

// Writes its const input (casting const away): the caller's data must stay as it is.
extern "C" __global__ void clobber_input(const float *x, float *y, int n) {
    const int i = threadIdx.x;
    if (i < n) y[i] = x[i];
    if (i == 3) const_cast<float *>(x)[i] = 0.0f;
}

// Block b reads what block b+1 wrote: correct only if blocks run in one particular order.
extern "C" __global__ void cross_block_race(float *y, int nblocks) {
    const int b = blockIdx.x;
    if (threadIdx.x == 0) y[b] = (b + 1 < nblocks ? y[b + 1] : 0.0f) + 1.0f;
}

// Threads take different barriers: undefined behaviour on a GPU.
extern "C" __global__ void divergent_barrier(float *y) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
        y[threadIdx.x] = 1.0f;
    } else {
        y[threadIdx.x] = 2.0f;
        __syncthreads();
    }
}

// Some threads return before a barrier the others wait at.
extern "C" __global__ void early_exit_barrier(float *y, int n) {
    if ((int)threadIdx.x >= n) return;
    y[threadIdx.x] = 1.0f;
    __syncthreads();
}

// A kernel that calls __trap().
extern "C" __global__ void traps(float *y) {
    if (threadIdx.x == 3) __trap();
    y[threadIdx.x] = 0.0f;
}

// Scatter-add with a plain read-modify-write: repeated indices race, whatever the values.
extern "C" __global__ void scatter_plain(const int *idx, int n, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[idx[i]] += 1.0f;
}

// The same with atomicAdd: never a race, even though float sums depend on the order.
extern "C" __global__ void scatter_atomic(const float *v, const int *idx, int n, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(y + idx[i], v[i]);
}

// Neighbouring threads write neighbouring bytes of shared memory: no race (byte granularity);
// then each reads its neighbour's byte after the barrier.
extern "C" __global__ void byte_flags(int *out) {
    __shared__ unsigned char flags[1024];
    flags[threadIdx.x] = (unsigned char)(threadIdx.x & 0x7F);
    __syncthreads();
    out[threadIdx.x] = flags[(threadIdx.x + 1) % blockDim.x];
}

// The same without the barrier: thread t reads the byte thread t+1 writes.
extern "C" __global__ void byte_flags_racy(int *out) {
    __shared__ unsigned char flags[1024];
    flags[threadIdx.x] = (unsigned char)(threadIdx.x & 0x7F);
    out[threadIdx.x] = flags[(threadIdx.x + 1) % blockDim.x];
}

// Warp-shuffle reduction of each warp's values, then one atomicAdd per warp; only the first
// n threads hold a value (the others add zero), any blockDim.x.
extern "C" __global__ void warp_sum(const float *x, int n, float *out) {
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

// Lanes exchange through shared memory with __syncwarp() between write and read: no race.
extern "C" __global__ void warp_exchange_shared(int *out) {
    __shared__ int s[1024];
    s[threadIdx.x] = (int)threadIdx.x * 3;
    __syncwarp();
    const int lane = threadIdx.x % 32;
    out[threadIdx.x] = s[threadIdx.x - lane + (lane + 1) % 32] + (int)__ballot_sync(0xffffffffu, lane == 5);
}

// The same without __syncwarp(): a race between lanes of one warp.
extern "C" __global__ void warp_exchange_racy(int *out) {
    __shared__ int s[1024];
    s[threadIdx.x] = (int)threadIdx.x * 3;
    const int lane = threadIdx.x % 32;
    out[threadIdx.x] = s[threadIdx.x - lane + (lane + 1) % 32];
}

// A shared counter set by atomicExch and bumped by atomicAdd, then read after the barrier:
// memory written only by atomics counts as written.
extern "C" __global__ void shared_atomic_counter(int *out) {
    __shared__ int count;
    if (threadIdx.x == 0) atomicExch(&count, 0);
    __syncthreads();
    atomicAdd(&count, 1);
    __syncthreads();
    out[threadIdx.x] = count;
}

// Reads of never-written shared memory judged by their use. Each thread reads the slot of the
// thread after it; slots at or past n are never written. unused: that value is only looked at
// behind a short-circuited `t + 1 < n`, so it reaches nothing. in_branch: it decides a branch;
// as_index: it becomes an address; in_atomic: it goes into an atomic.
extern "C" __global__ void uninit_unused(const int *x, int *out, int n) {
    __shared__ int s[128];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    const int next = s[t + 1];
    if (t + 1 < n && next > 0) out[t] = next;
    else if (t < n) out[t] = 0;
}
extern "C" __global__ void uninit_in_branch(const int *x, int *out, int n) {
    __shared__ int s[128];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    const int next = s[t + 1];
    if (t < n) out[t] = next > 0 ? 1 : 2;
}
extern "C" __global__ void uninit_as_index(const int *x, int *out, int n) {
    __shared__ int s[128];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    const int next = s[t + 1];
    if (t < n) out[t] = x[(unsigned)next % (unsigned)n];
}
extern "C" __global__ void uninit_in_atomic(const int *x, int *out, int n) {
    __shared__ int s[128];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    if (t < n) atomicAdd(out, s[t + 1] & 1);
}
