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

// TODO(19.1): the pair of two pieces together: m = the larger maximum, and each sum brought to it
// (s_a exp(m_a - m) + s_b exp(m_b - m)). An empty side (s = 0) must be skipped: its m is -infinity,
// and exp(-inf - (-inf)) is NaN.
__device__ MaxSum max_sum_combine(MaxSum a, MaxSum b) { return a; }

// TODO(19.1): the pair of the whole warp in lane 0: lesson 06's warp_sum with max_sum_combine
// instead of +, each step taking both halves of the pair from `offset` lanes down
// (__shfl_down_sync(FULL_MASK, v.m, offset), the same for v.s), offsets 16, 8, 4, 2, 1.
__device__ MaxSum warp_max_sum(MaxSum v) { return v; }

// TODO(19.1): the pair of the whole block, in every thread: each warp's pair (lane 0) into a
// __shared__ MaxSum partial[32], __syncthreads(), warp 0 combines the blockDim.x / 32 of them
// (lanes past them bring an empty pair) and puts the result in partial[0], __syncthreads(), and
// every thread returns partial[0].
__device__ MaxSum block_max_sum(MaxSum v) { return v; }

// One block per row, the row in registers: each thread's elements read once, written once.
__global__ void __launch_bounds__(ROW_MAX_THREADS) softmax_kernel(const float *x, float *y, int cols) {
    // TODO(19.1):
    //  - xr = x + blockIdx.x * cols (as size_t), yr likewise; vec = row_vectorised(x, y, cols);
    //  - float v[ROW_PER_THREAD]; row_load(xr, cols, vec, v): this thread's elements, read once;
    //  - the thread's pair mine = {-INFINITY, 0.0f}: over k = 0 .. ROW_PER_THREAD - 1 (#pragma unroll,
    //    so that v stays in registers) with row_index(k, vec) < cols, first its maximum m, then
    //    v[k] = __expf(v[k] - m) and s += v[k] (the row is in registers: one exp per element);
    //  - row = block_max_sum(mine); each v[k] times exp(mine.m - row.m) / row.s (your exps are against
    //    your own maximum); row_store(yr, cols, vec, v).
}

extern "C" cudaError_t softmax_gpu(const float *d_x, float *d_y, int rows, int cols) {
    // TODO(19.1): negative sizes or cols > ROW_MAX_COLS are cudaErrorInvalidValue; nothing to
    // launch when rows or cols is 0; otherwise one block per row of row_threads(cols) threads.
    softmax_kernel<<<1, 32>>>(d_x, d_y, cols);
    return cudaGetLastError();
}
// TODO(19.1) end

// TODO(19.2) begin
// Welford's statistics of a piece of a row: how many values n, their mean, and m2 = the sum of
// (x - mean)^2. An empty piece is {0, 0, 0}.
struct Welford {
    float n, mean, m2;
};

// TODO(19.2): two pieces together (README.md, "Welford"): n = n_a + n_b, delta = mean_b - mean_a,
// mean = mean_a + delta n_b / n, m2 = m2_a + m2_b + delta^2 n_a n_b / n; an empty side is skipped.
__device__ Welford welford_combine(Welford a, Welford b) { return a; }

// TODO(19.2): the warp's and the block's statistics, as 19.1's warp_max_sum and block_max_sum.
__device__ Welford block_welford(Welford w) { return w; }

__global__ void __launch_bounds__(ROW_MAX_THREADS) layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y, int cols, float eps) {
    // TODO(19.2): 19.1's shape (vec must hold for gamma and beta too: row_vectorised(x, y, cols) &&
    // row_vectorised(gamma, beta, cols); row_load), Welford's update per element (n += 1;
    // delta = x - mean; mean += delta / n; m2 += delta (x - mean)), the block's statistics,
    // rstd = rsqrtf(variance + eps) with the variance m2 / n, v[k] = (v[k] - mean) * rstd, then
    // row_affine(v, gamma, beta, cols, vec) and row_store.
}

extern "C" cudaError_t layernorm_gpu(const float *d_x, const float *d_gamma, const float *d_beta, float *d_y, int rows, int cols, float eps) {
    // TODO(19.2): 19.1's checks (and eps < 0 is cudaErrorInvalidValue), then one block per row.
    layernorm_kernel<<<1, 32>>>(d_x, d_gamma, d_beta, d_y, cols, eps);
    return cudaGetLastError();
}
// TODO(19.2) end

// TODO(19.4) begin
// TODO(19.4): whether query `query` sees key `key`: a key of the sequence (key < n), and with the
// causal mask (causal = 1) only keys up to and including the query itself.
__device__ bool attention_visible(int query, int key, int n, int causal) { return key < n; }

// TODO(19.4): how many keys a block whose first query is q0 needs to stream: all n, but with the
// causal mask none after the block's last query (q0 + ATT_BR - 1), so the tiles above the diagonal
// are skipped whole.
__device__ int attention_keys(int q0, int n, int causal) { return n; }
// TODO(19.4) end

// TODO(19.3) begin
// One block of ATT_BR threads per (block of bh: blockIdx.y, tile of ATT_BR queries: blockIdx.x),
// one thread per query row. README.md, "Attention without the N x N scratch", derives it.
__global__ void __launch_bounds__(ATT_BR) attention_flash_kernel(const float *Q, const float *K, const float *V, float *O, int n, int d, int causal,
                                                                 float scale) {
    // TODO(19.3):
    //  - __shared__ __align__(16) float Ks[ATT_BC][ATT_MAX_D], Vs[ATT_BC][ATT_MAX_D];
    //  - base = blockIdx.y * n * d (as size_t); q0 = blockIdx.x * ATT_BR; this thread's query
    //    i = q0 + threadIdx.x. Registers: float q[ATT_MAX_D] (Q's row i times `scale`, 0 past d and
    //    for i >= n) and o[ATT_MAX_D] = 0; the running max m = -INFINITY and sum l = 0;
    //  - for k0 = 0, ATT_BC, ... below attention_keys(q0, n, causal): the block copies K's and V's
    //    rows k0 .. k0 + ATT_BC - 1 into Ks and Vs (0 past n and past d), __syncthreads();
    //    scores s[j] = q . Ks[j] for the ATT_BC keys, -INFINITY where !attention_visible(i, k0 + j,
    //    n, causal); m_new = max(m, the tile's max); l and every o[c] times exp(m - m_new); then
    //    for each key p = exp(s[j] - m_new), l += p, o[c] += p * Vs[j][c]; m = m_new;
    //    __syncthreads() before the next tile overwrites Ks and Vs;
    //  - no early return: threads with i >= n still help copy the tiles and reach every barrier;
    //  - if i < n: O's row i = o / l (d values).
}

extern "C" cudaError_t attention_flash_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    if (bh < 0 || n < 0 || d < 1 || d > ATT_MAX_D || bh > 65535) return cudaErrorInvalidValue;
    if (bh == 0 || n == 0) return cudaSuccess;
    dim3 grid(1, 1); // TODO(19.3): one block per tile of ATT_BR queries (x) and per block of bh (y)
    attention_flash_kernel<<<grid, ATT_BR>>>(d_q, d_k, d_v, d_o, n, d, causal, 1.0f); // TODO(19.3): the scale 1 / sqrt(d)
    return cudaGetLastError();
}
// TODO(19.3) end
