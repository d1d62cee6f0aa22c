/**
 * @file fused.cu
 * @brief Lesson 19: fused kernels. A softmax over rows that reads each element once, with the
 *        online (running max, rescaled running sum) recurrence (19.1); a layer norm forward with
 *        Welford's one-pass mean and variance (19.2); attention in the flash form, K and V tiles
 *        streamed through shared memory with the online softmax and no N x N scratch (19.3), and its
 *        causal mask (19.4). The naive three-kernel attention is given.
 *
 * Your file: edit only the regions between `TODO(19.k) begin` and `TODO(19.k) end`.
 * Grade with `make check LESSON=19`; stuck? `make hint LESSON=19`. The lesson text is README.md.
 */
#include <math.h>
#include <stdint.h>

#include "fused.h"

#define FULL_MASK 0xffffffffu

// ---- given: the row kernels' block size ------------------------------------------------------

// One block per row, each thread holding up to ROW_PER_THREAD elements of it in registers: the
// smallest power of two from 32 (one warp) to 1024 threads that covers the row. A row of up to
// 1024 elements gets one warp; 8192 elements get 256 threads.
static unsigned row_threads(int cols) {
    unsigned t = 32;
    while (t * ROW_PER_THREAD < (unsigned)cols) t *= 2;
    return t;
}

// ---- given: a row in registers -----------------------------------------------------------------

// Thread t of a row's block holds ROW_PER_THREAD elements of the row in v[0 .. ROW_PER_THREAD - 1].
// When the row is 16-byte aligned (cols a multiple of 4, x and y aligned), it reads them as float4
// groups: v[4q .. 4q + 3] are elements 4g .. 4g + 3 of group g = t + q * blockDim.x, so that a warp
// reads 512 consecutive bytes per step in 16-byte loads (__ldg: through the read-only cache; the
// outputs with __stcs, a streaming store: y is not read again). Otherwise one float at a time: v[k] is
// element t + k * blockDim.x. Either way each element belongs to one thread, and a warp's accesses
// are coalesced. Slots past the row's end are set to 0 and never written back.
#define ROW_GROUPS (ROW_PER_THREAD / 4)

// Whether the rows of x and y can be read and written as float4 groups.
__device__ bool row_vectorised(const float *x, const float *y, int cols) {
    return cols % 4 == 0 && (uintptr_t)x % 16 == 0 && (uintptr_t)y % 16 == 0;
}

// The element of the row that v[k] holds.
__device__ __forceinline__ int row_index(int k, bool vec) {
    return vec ? 4 * ((int)threadIdx.x + (k / 4) * (int)blockDim.x) + k % 4 : (int)threadIdx.x + k * (int)blockDim.x;
}

// v[k] = row[row_index(k)] for the elements inside the row: each element read once.
__device__ __forceinline__ void row_load(const float *row, int cols, bool vec, float v[ROW_PER_THREAD]) {
#pragma unroll
    for (int q = 0; q < ROW_GROUPS; q++) {
        if (vec) {
            int e = row_index(4 * q, true);
            if (e < cols) {
                float4 f = __ldg(reinterpret_cast<const float4 *>(row + e));
                v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
            } else {
                v[4 * q] = v[4 * q + 1] = v[4 * q + 2] = v[4 * q + 3] = 0.0f;
            }
        } else {
#pragma unroll
            for (int k = 4 * q; k < 4 * q + 4; k++) v[k] = row_index(k, false) < cols ? row[row_index(k, false)] : 0.0f;
        }
    }
}

// row[row_index(k)] = v[k] for the elements inside the row: each element written once.
__device__ __forceinline__ void row_store(float *row, int cols, bool vec, const float v[ROW_PER_THREAD]) {
#pragma unroll
    for (int q = 0; q < ROW_GROUPS; q++) {
        if (vec) {
            int e = row_index(4 * q, true);
            if (e < cols) __stcs(reinterpret_cast<float4 *>(row + e), make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]));
        } else {
#pragma unroll
            for (int k = 4 * q; k < 4 * q + 4; k++)
                if (row_index(k, false) < cols) row[row_index(k, false)] = v[k];
        }
    }
}

// 19.2's last step: v[k] = v[k] * gamma[j] + beta[j] with j = row_index(k), gamma and beta read in
// the same groups as the row.
__device__ __forceinline__ void row_affine(float v[ROW_PER_THREAD], const float *gamma, const float *beta, int cols, bool vec) {
#pragma unroll
    for (int q = 0; q < ROW_GROUPS; q++) {
        if (vec) {
            int e = row_index(4 * q, true);
            if (e < cols) {
                float4 g = __ldg(reinterpret_cast<const float4 *>(gamma + e)), b = __ldg(reinterpret_cast<const float4 *>(beta + e));
                v[4 * q] = v[4 * q] * g.x + b.x, v[4 * q + 1] = v[4 * q + 1] * g.y + b.y;
                v[4 * q + 2] = v[4 * q + 2] * g.z + b.z, v[4 * q + 3] = v[4 * q + 3] * g.w + b.w;
            }
        } else {
#pragma unroll
            for (int k = 4 * q; k < 4 * q + 4; k++) {
                int j = row_index(k, false);
                if (j < cols) v[k] = v[k] * gamma[j] + beta[j];
            }
        }
    }
}

// ---- given: the naive attention, three kernels through an N x N scratch -----------------------

// S[b][i][j] = (Q_i . K_j) * scale, or -infinity where the causal mask hides key j from query i.
// One thread per (i, j): x along keys, y along queries, z the block of bh.
__global__ void naive_scores_kernel(const float *Q, const float *K, float *S, int n, int d, int causal, float scale) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    const float *q = Q + ((size_t)blockIdx.z * n + i) * d, *k = K + ((size_t)blockIdx.z * n + j) * d;
    float acc = 0.0f;
    for (int c = 0; c < d; c++) acc += q[c] * k[c];
    S[((size_t)blockIdx.z * n + i) * n + j] = causal && j > i ? -INFINITY : acc * scale;
}

// The three-pass softmax, in place, one block of NAIVE_THREADS per row: pass 1 finds the row's
// maximum, pass 2 sums exp(x - max), pass 3 writes exp(x - max) / sum. Each pass reads the whole
// row from memory again: three reads and a write per element, where 19.1 does one read and a write.
#define NAIVE_THREADS 256
__global__ void naive_softmax_kernel(float *S, int cols) {
    __shared__ float red[NAIVE_THREADS];
    float *row = S + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += NAIVE_THREADS) m = fmaxf(m, row[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int h = NAIVE_THREADS / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + h]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += NAIVE_THREADS) s += expf(row[j] - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int h = NAIVE_THREADS / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) red[threadIdx.x] += red[threadIdx.x + h];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int j = threadIdx.x; j < cols; j += NAIVE_THREADS) row[j] = expf(row[j] - m) * inv;
}

// O[b][i][c] = sum over j of P[b][i][j] V[b][j][c]: one thread per (i, c).
__global__ void naive_pv_kernel(const float *P, const float *V, float *O, int n, int d) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || c >= d) return;
    const float *p = P + ((size_t)blockIdx.z * n + i) * n, *v = V + (size_t)blockIdx.z * n * d + c;
    float acc = 0.0f;
    for (int j = 0; j < n; j++) acc += p[j] * v[(size_t)j * d];
    O[((size_t)blockIdx.z * n + i) * d + c] = acc;
}

extern "C" cudaError_t attention_naive_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    if (bh < 0 || n < 0 || d < 1 || d > ATT_MAX_D || bh > 65535) return cudaErrorInvalidValue;
    if (bh == 0 || n == 0) return cudaSuccess;
    float *d_s = NULL; // the N x N scores of every block of bh: what the flash form never stores
    cudaError_t err = cudaMalloc((void **)&d_s, (size_t)bh * n * n * sizeof(float));
    if (err != cudaSuccess) return err;
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16, bh);
    naive_scores_kernel<<<grid, block>>>(d_q, d_k, d_s, n, d, causal, 1.0f / sqrtf((float)d));
    naive_softmax_kernel<<<(unsigned)((size_t)bh * n), NAIVE_THREADS>>>(d_s, n);
    dim3 pv_block(ATT_MAX_D, 4), pv_grid(1, (n + 3) / 4, bh);
    naive_pv_kernel<<<pv_grid, pv_block>>>(d_s, d_v, d_o, n, d);
    err = cudaGetLastError();
    cudaError_t done = cudaDeviceSynchronize();
    cudaFree(d_s);
    return err != cudaSuccess ? err : done;
}

// TODO(19.1) begin
// The statistics of a piece of a row: its maximum m and s = sum of exp(x - m) over the piece. An
// empty piece is {-infinity, 0}.
struct MaxSum {
    float m, s;
};

// The pair of two pieces together: both sums brought to the larger maximum. An empty side changes
// nothing (and must be skipped: exp(-inf - (-inf)) is NaN).
__device__ MaxSum max_sum_combine(MaxSum a, MaxSum b) {
    if (b.s == 0.0f) return a;
    if (a.s == 0.0f) return b;
    float m = fmaxf(a.m, b.m);
    MaxSum r = {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
    return r;
}

// The pair of the whole warp, in lane 0.
__device__ MaxSum warp_max_sum(MaxSum v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        MaxSum other = {__shfl_down_sync(FULL_MASK, v.m, offset), __shfl_down_sync(FULL_MASK, v.s, offset)};
        v = max_sum_combine(v, other);
    }
    return v;
}

// The pair of the whole block, in every thread: each warp's pair through shared memory, combined
// by warp 0.
__device__ MaxSum block_max_sum(MaxSum v) {
    __shared__ MaxSum partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        MaxSum empty = {-INFINITY, 0.0f};
        v = warp_max_sum(lane < (int)blockDim.x / 32 ? partial[lane] : empty);
        if (lane == 0) partial[0] = v;
    }
    __syncthreads();
    return partial[0];
}

// One block per row. The thread reads its elements into registers once (row_load), makes the pair
// of its own elements, combines it with the others' (block_max_sum) and writes the outputs from the
// registers (row_store): one read and one write per element.
//
// With the elements in registers the thread's pair needs no per-element recurrence: its maximum
// first, then each exp(x - m) once, kept in v[] for the output, and summed. That is one exp per
// element instead of two (the recurrence's, then the output's) and no branch whose sides diverge in
// a warp each time some lane meets a new maximum: this kernel must run at memory speed, and the
// recurrence's instructions kept it short of it. The online rescaling is still what joins the
// threads' pairs (max_sum_combine), as in 19.3, which also takes a tile's maximum first.
// __expf (the hardware's exp2 of x log2 e) instead of expf: its error grows with |x - m| as x - m's
// own rounding does, inside the tolerance ("How close is right?"), at a fraction of the instructions.
__global__ void __launch_bounds__(ROW_MAX_THREADS) softmax_kernel(const float *x, float *y, int cols) {
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    const bool vec = row_vectorised(x, y, cols);
    float v[ROW_PER_THREAD];
    row_load(xr, cols, vec, v);
    MaxSum mine = {-INFINITY, 0.0f};
#pragma unroll
    for (int k = 0; k < ROW_PER_THREAD; k++)
        if (row_index(k, vec) < cols) mine.m = fmaxf(mine.m, v[k]);
#pragma unroll
    for (int k = 0; k < ROW_PER_THREAD; k++) {
        if (row_index(k, vec) < cols) {
            v[k] = __expf(v[k] - mine.m);
            mine.s += v[k];
        }
    }
    MaxSum row = block_max_sum(mine);
    // this thread's exps are against its own maximum: bring them to the row's (0 for a thread with
    // no element: exp(-inf) = 0, and its slots are not stored)
    float f = __expf(mine.m - row.m) / row.s;
#pragma unroll
    for (int k = 0; k < ROW_PER_THREAD; k++) v[k] *= f;
    row_store(yr, cols, vec, v);
}

extern "C" cudaError_t softmax_gpu(const float *d_x, float *d_y, int rows, int cols) {
    if (rows < 0 || cols < 0 || cols > ROW_MAX_COLS) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    softmax_kernel<<<rows, row_threads(cols)>>>(d_x, d_y, cols);
    return cudaGetLastError();
}
// TODO(19.1) end

// TODO(19.2) begin
// Welford's statistics of a piece of a row: how many values, their mean, and m2 = the sum of
// (x - mean)^2. An empty piece is {0, 0, 0}.
struct Welford {
    float n, mean, m2;
};

// Two pieces together (Chan et al.): the means weighted by their counts, m2 corrected by the
// distance between the means.
__device__ Welford welford_combine(Welford a, Welford b) {
    if (b.n == 0.0f) return a;
    if (a.n == 0.0f) return b;
    float n = a.n + b.n, delta = b.mean - a.mean, f = b.n / n;
    Welford r = {n, a.mean + delta * f, a.m2 + b.m2 + delta * delta * a.n * f};
    return r;
}

__device__ Welford warp_welford(Welford w) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        Welford other = {__shfl_down_sync(FULL_MASK, w.n, offset), __shfl_down_sync(FULL_MASK, w.mean, offset),
                         __shfl_down_sync(FULL_MASK, w.m2, offset)};
        w = welford_combine(w, other);
    }
    return w;
}

__device__ Welford block_welford(Welford w) {
    __shared__ Welford partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    w = warp_welford(w);
    if (lane == 0) partial[warp] = w;
    __syncthreads();
    if (warp == 0) {
        Welford empty = {0.0f, 0.0f, 0.0f};
        w = warp_welford(lane < (int)blockDim.x / 32 ? partial[lane] : empty);
        if (lane == 0) partial[0] = w;
    }
    __syncthreads();
    return partial[0];
}

__global__ void __launch_bounds__(ROW_MAX_THREADS) layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y, int cols, float eps) {
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    const bool vec = row_vectorised(x, y, cols) && row_vectorised(gamma, beta, cols);
    float v[ROW_PER_THREAD];
    row_load(xr, cols, vec, v);
    Welford mine = {0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int k = 0; k < ROW_PER_THREAD; k++) {
        if (row_index(k, vec) < cols) {
            mine.n += 1.0f;
            float delta = v[k] - mine.mean;
            mine.mean += delta / mine.n;
            mine.m2 += delta * (v[k] - mine.mean);
        }
    }
    Welford row = block_welford(mine);
    // the population variance (divided by the row's length), and eps inside the square root
    float rstd = rsqrtf(row.m2 / row.n + eps);
#pragma unroll
    for (int k = 0; k < ROW_PER_THREAD; k++) v[k] = (v[k] - row.mean) * rstd;
    row_affine(v, gamma, beta, cols, vec);
    row_store(yr, cols, vec, v);
}

extern "C" cudaError_t layernorm_gpu(const float *d_x, const float *d_gamma, const float *d_beta, float *d_y, int rows, int cols, float eps) {
    if (rows < 0 || cols < 0 || cols > ROW_MAX_COLS || !(eps >= 0.0f)) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    layernorm_kernel<<<rows, row_threads(cols)>>>(d_x, d_gamma, d_beta, d_y, cols, eps);
    return cudaGetLastError();
}
// TODO(19.2) end

// TODO(19.4) begin
// Whether query `query` sees key `key`: every key of the sequence, and with the causal mask only
// keys up to and including the query itself.
__device__ bool attention_visible(int query, int key, int n, int causal) { return key < n && (!causal || key <= query); }

// How many keys a block whose first query is q0 needs to stream: with the causal mask none after
// its last query (the tiles above the diagonal are skipped whole).
__device__ int attention_keys(int q0, int n, int causal) { return causal ? min(n, q0 + ATT_BR) : n; }
// TODO(19.4) end

// TODO(19.3) begin
// One block of ATT_BR threads per (block of bh: blockIdx.y, tile of ATT_BR queries: blockIdx.x),
// one thread per query row. The thread keeps its query (times the scale) and its output row in
// registers; the block streams K and V through shared memory ATT_BC keys at a time, and each thread
// folds the tile into its row with the online softmax: running maximum m, running sum l, and the
// output accumulator o rescaled by exp(m_old - m_new) whenever a tile raises the maximum.
__global__ void __launch_bounds__(ATT_BR) attention_flash_kernel(const float *Q, const float *K, const float *V, float *O, int n, int d, int causal,
                                                                 float scale) {
    __shared__ __align__(16) float Ks[ATT_BC][ATT_MAX_D];
    __shared__ __align__(16) float Vs[ATT_BC][ATT_MAX_D];
    const size_t base = (size_t)blockIdx.y * n * d;
    const int q0 = blockIdx.x * ATT_BR, i = q0 + threadIdx.x;
    float q[ATT_MAX_D], o[ATT_MAX_D];
#pragma unroll
    for (int c = 0; c < ATT_MAX_D; c++) {
        q[c] = i < n && c < d ? Q[base + (size_t)i * d + c] * scale : 0.0f;
        o[c] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    const int keys = attention_keys(q0, n, causal);
    for (int k0 = 0; k0 < keys; k0 += ATT_BC) {
        // the tile: ATT_BC rows of K and of V, zeros past the sequence and past d
        for (int e = threadIdx.x; e < ATT_BC * ATT_MAX_D; e += ATT_BR) {
            int j = e / ATT_MAX_D, c = e % ATT_MAX_D;
            bool in = k0 + j < n && c < d;
            size_t at = base + (size_t)(k0 + j) * d + c;
            Ks[j][c] = in ? K[at] : 0.0f;
            Vs[j][c] = in ? V[at] : 0.0f;
        }
        __syncthreads();
        // this row's scores against the tile, masked keys at -infinity
        float s[ATT_BC], tile_max = -INFINITY;
#pragma unroll
        for (int j = 0; j < ATT_BC; j++) {
            float acc = 0.0f;
#pragma unroll
            for (int c = 0; c < ATT_MAX_D; c++) acc += q[c] * Ks[j][c];
            s[j] = attention_visible(i, k0 + j, n, causal) ? acc : -INFINITY;
            tile_max = fmaxf(tile_max, s[j]);
        }
        // the online softmax: bring l and o to the new maximum, then add the tile
        float m_new = fmaxf(m, tile_max);
        float corr = m_new == -INFINITY ? 1.0f : expf(m - m_new);
        l *= corr;
#pragma unroll
        for (int c = 0; c < ATT_MAX_D; c++) o[c] *= corr;
#pragma unroll
        for (int j = 0; j < ATT_BC; j++) {
            float p = m_new == -INFINITY ? 0.0f : expf(s[j] - m_new);
            l += p;
#pragma unroll
            for (int c = 0; c < ATT_MAX_D; c++) o[c] += p * Vs[j][c];
        }
        m = m_new;
        // every thread is done with this tile before the next one overwrites it
        __syncthreads();
    }
    if (i < n)
        for (int c = 0; c < d; c++) O[base + (size_t)i * d + c] = o[c] / l;
}

extern "C" cudaError_t attention_flash_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    if (bh < 0 || n < 0 || d < 1 || d > ATT_MAX_D || bh > 65535) return cudaErrorInvalidValue;
    if (bh == 0 || n == 0) return cudaSuccess;
    dim3 grid((n + ATT_BR - 1) / ATT_BR, bh);
    attention_flash_kernel<<<grid, ATT_BR>>>(d_q, d_k, d_v, d_o, n, d, causal, 1.0f / sqrtf((float)d));
    return cudaGetLastError();
}
// TODO(19.3) end
