// Cosine similarity of query rows against every row of a table, and the top k per query:
// the "which tokens are nearest" tool of the course, and andrea_gpu.cosine_similarity.
//
//   cos(q, r) = (q / |q|) . (r / |r|)
//
// Norms are computed without overflow or underflow: m = max |x_i|, then |x| = m sqrt(sum (x_i/m)^2),
// accumulated in double for float and double inputs alike. Each kernel uses one block per row
// (or per (query, row) pair, or per query) with a shared-memory tree reduction, so the launch
// shape rule is: blockDim.x a power of two, at most 256, blockDim.y = blockDim.z = 1; any
// gridDim.x (grid-stride). The host rejects zero rows before launching (the cosine of a zero
// vector is undefined, a ValueError in the contract).

#define ANDREA_RED_MAX 256

// Block-wide reductions over red[0..blockDim.x); every thread of the block must call them.
__device__ __forceinline__ double andrea_block_sum(double *red, double v) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    double r = red[0];
    __syncthreads();  // red is reused by the next reduction
    return r;
}

__device__ __forceinline__ double andrea_block_max(double *red, double v) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    double r = red[0];
    __syncthreads();
    return r;
}

template <typename T>
__device__ __forceinline__ void andrea_norms(const T *__restrict__ x, double *__restrict__ norms,
                                             int rows, int d) {
    __shared__ double red[ANDREA_RED_MAX];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *row = x + (size_t)r * d;
        double m = 0.0;
        for (int c = threadIdx.x; c < d; c += blockDim.x) m = fmax(m, fabs((double)row[c]));
        m = andrea_block_max(red, m);
        double s = 0.0;
        if (m > 0.0)
            for (int c = threadIdx.x; c < d; c += blockDim.x) {
                const double v = (double)row[c] / m;
                s += v * v;
            }
        s = andrea_block_sum(red, s);
        if (threadIdx.x == 0) norms[r] = m * sqrt(s);
    }
}

// norms[r] = |x[r]| for each of the `rows` rows of length d.
extern "C" __global__ void andrea_row_norms(const float *__restrict__ x, double *__restrict__ norms,
                                            int rows, int d) {
    andrea_norms<float>(x, norms, rows, d);
}

extern "C" __global__ void andrea_row_norms_f64(const double *__restrict__ x,
                                                double *__restrict__ norms, int rows, int d) {
    andrea_norms<double>(x, norms, rows, d);
}

template <typename T>
__device__ __forceinline__ void andrea_cos(const T *__restrict__ q, const double *__restrict__ qn,
                                           const T *__restrict__ table,
                                           const double *__restrict__ tn,
                                           double *__restrict__ scores, int n_queries, int rows,
                                           int d) {
    __shared__ double red[ANDREA_RED_MAX];
    const long long pairs = (long long)n_queries * rows;
    for (long long p = blockIdx.x; p < pairs; p += gridDim.x) {
        const int i = (int)(p / rows), r = (int)(p % rows);
        const T *a = q + (size_t)i * d;
        const T *b = table + (size_t)r * d;
        const double sa = qn[i], sb = tn[r];
        double s = 0.0;
        for (int c = threadIdx.x; c < d; c += blockDim.x)
            s += ((double)a[c] / sa) * ((double)b[c] / sb);
        s = andrea_block_sum(red, s);
        // clip the last bit of roundoff; a NaN (from inf or nan inputs) stays NaN
        if (threadIdx.x == 0) scores[p] = s > 1.0 ? 1.0 : (s < -1.0 ? -1.0 : s);
    }
}

// scores[i, r] = cos(queries[i], table[r]), clipped to [-1, 1].
extern "C" __global__ void andrea_cosine_scores(const float *__restrict__ queries,
                                                const double *__restrict__ query_norms,
                                                const float *__restrict__ table,
                                                const double *__restrict__ table_norms,
                                                double *__restrict__ scores, int n_queries,
                                                int rows, int d) {
    andrea_cos<float>(queries, query_norms, table, table_norms, scores, n_queries, rows, d);
}

extern "C" __global__ void andrea_cosine_scores_f64(const double *__restrict__ queries,
                                                    const double *__restrict__ query_norms,
                                                    const double *__restrict__ table,
                                                    const double *__restrict__ table_norms,
                                                    double *__restrict__ scores, int n_queries,
                                                    int rows, int d) {
    andrea_cos<double>(queries, query_norms, table, table_norms, scores, n_queries, rows, d);
}

// (score, index) is ahead of (s2, i2) when the score is larger, or equal with a smaller index.
__device__ __forceinline__ bool andrea_ahead(double s, int i, double s2, int i2) {
    return s > s2 || (s == s2 && i < i2);
}

// The k best rows per query, best first (ties: smaller index first). Round j picks the best
// (score, index) strictly behind round j-1's pick, so no chosen set has to be kept.
extern "C" __global__ void andrea_topk(const double *__restrict__ scores, int n_queries, int rows,
                                       int k, int *__restrict__ top_index,
                                       double *__restrict__ top_score) {
    __shared__ double best_s[ANDREA_RED_MAX];
    __shared__ int best_i[ANDREA_RED_MAX];
    for (int qi = blockIdx.x; qi < n_queries; qi += gridDim.x) {
        const double *s = scores + (size_t)qi * rows;
        double prev_s = 2.0;  // ahead of every cosine
        int prev_i = -1;
        for (int j = 0; j < k; ++j) {
            double bs = -3.0;
            int bi = rows;  // "nothing": behind every real candidate
            for (int r = threadIdx.x; r < rows; r += blockDim.x)
                if (andrea_ahead(prev_s, prev_i, s[r], r) && andrea_ahead(s[r], r, bs, bi)) {
                    bs = s[r];
                    bi = r;
                }
            best_s[threadIdx.x] = bs;
            best_i[threadIdx.x] = bi;
            __syncthreads();
            for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
                if (threadIdx.x < h &&
                    andrea_ahead(best_s[threadIdx.x + h], best_i[threadIdx.x + h],
                                 best_s[threadIdx.x], best_i[threadIdx.x])) {
                    best_s[threadIdx.x] = best_s[threadIdx.x + h];
                    best_i[threadIdx.x] = best_i[threadIdx.x + h];
                }
                __syncthreads();
            }
            prev_s = best_s[0];
            prev_i = best_i[0];
            if (threadIdx.x == 0) {
                top_index[(size_t)qi * k + j] = prev_i;
                top_score[(size_t)qi * k + j] = prev_s;
            }
            __syncthreads();
        }
    }
}
