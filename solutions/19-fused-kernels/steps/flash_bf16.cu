/**
 * @file flash_bf16.cu
 * @brief Lesson 19, going further: flash attention forward in bf16 on the tensor cores (lesson 17's
 *        WMMA), fp32 accumulation, K and V tiles streamed through shared memory by asynchronous
 *        copies (lesson 18), the online softmax of 19.3, no n x n scratch. Not graded; the benchmark
 *        beside PyTorch's scaled_dot_product_attention is flash_bf16_bench.cu
 *        (`bash tools/gpu/flash_bf16.sh` on a GPU).
 *
 * Q, K, V, O: bh blocks of n rows of D = 64 bf16, row-major, as 19.3's (a block of bh is one
 * (batch, head)). O = softmax(Q K^T / sqrt(D)) V, causal = 1: query i sees keys 0..i.
 *
 * One block of WARPS warps per (tile of BQ = WARPS * 16 * MW queries, block of bh). Each warp owns
 * 16 * MW query rows (MW fragments of 16 rows) from start to end:
 *  - its Q fragments (matrix_a, 16 x 16 bf16, D / 16 of them per 16 rows) stay in registers;
 *  - its O accumulates in fp32 accumulator fragments, 16 x 64 = D / 16 of them per 16 rows;
 *  - per tile of BK keys: S = Q K^T into fp32 accumulators (K's rows, as stored, are K^T's columns:
 *    a col_major matrix_b), stored to the warp's staging area in shared memory, since a fragment's
 *    layout is opaque and the softmax needs whole rows; two lanes per row take the row's maximum,
 *    rescale the row's running sum, write P = exp(s - m) as bf16 and the row's factor
 *    exp(m_old - m_new) for O; O's fragments are multiplied by their rows' factors; O += P V.
 * The block's 128 threads copy the next tile of K and V (cp.async, 16 bytes each) into the other
 * half of a double buffer while the warps work on this one.
 *
 * Which row an accumulator element is in: the API does not say, but it does let a fragment be loaded
 * from memory. So each warp loads, once, a 16 x 16 float matrix whose element (r, c) is r into an
 * accumulator fragment: element i of that fragment then holds the row of element i of every
 * accumulator fragment of the same type, in this lane. That is how O's elements find their rows'
 * factors without a trip through shared memory.
 */
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <math.h>
#include <mma.h>
#include <stdint.h>

#include "flash_bf16.h"

using namespace nvcuda;

#define FL_D 64     // head dimension: the only one this kernel takes
#define FL_SKEW 8   // bf16 rows 16 bytes longer than 64: fragment loads from 8 rows hit different banks
#define FL_LDH (FL_D + FL_SKEW)

typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> AccFrag;

/** Shared memory of one block (in elements), carved out of one dynamic allocation. */
template <int WARPS, int MW, int BK, int PAD> struct FlashSmem {
    static constexpr int BQ = WARPS * 16 * MW;
    // fp32 scores, then O: rows PAD floats longer. PAD 4 (the first version): the accumulator
    // stores of 8 rows x 4 lanes x 2 floats land 4 banks apart, row g + 1 on half of row g's banks;
    // PAD 8: 8 banks apart, a half-warp's 8-byte stores on 32 different banks (see the softmax below
    // for the reads' side)
    static constexpr int LDS = (BK > FL_D ? BK : FL_D) + PAD;
    static constexpr int LDP = BK + FL_SKEW;  // bf16 probabilities
    static constexpr int kv = 2 * BK * FL_LDH;                // K or V: 2 stages of BK rows (bf16)
    static constexpr int q = BQ * FL_LDH;                     // the block's Q tile (bf16), read once
    static constexpr int s = WARPS * 16 * MW * LDS;           // fp32 scores, then O on the way out
    static constexpr int p = WARPS * 16 * MW * LDP;           // bf16 probabilities
    static constexpr int row = WARPS * 16 * MW;               // a float per row: O's factor, then 1 / l
    static constexpr size_t bytes = (size_t)(2 * kv + q + p) * 2 + (size_t)(s + row) * 4;
};

// Copies tile `t` of K and V (BK rows from key t * BK) into stage `st`: 16-byte asynchronous copies,
// 8 per 64-element row; rows past the sequence are zeros (a plain store, seen after the barrier),
// so that P V never meets garbage (0 x NaN is NaN).
template <int WARPS, int BK>
__device__ __forceinline__ void copy_kv_tile(const __nv_bfloat16 *K, const __nv_bfloat16 *V, __nv_bfloat16 *Ks, __nv_bfloat16 *Vs, int t, int st, int n) {
    constexpr int chunks = BK * FL_D / 8; // 16-byte pieces of one of K, V
    for (int c = threadIdx.x; c < 2 * chunks; c += WARPS * 32) {
        const bool is_v = c >= chunks;
        const int e = is_v ? c - chunks : c, r = e / (FL_D / 8), col = (e % (FL_D / 8)) * 8;
        const int key = t * BK + r;
        __nv_bfloat16 *dst = (is_v ? Vs : Ks) + (st * BK + r) * FL_LDH + col;
        if (key < n) __pipeline_memcpy_async(dst, (is_v ? V : K) + (size_t)key * FL_D + col, 16);
        else *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
    }
}

template <int WARPS, int MW, int BK, int PAD>
__global__ void __launch_bounds__(WARPS * 32) flash_bf16_kernel(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V,
                                                                __nv_bfloat16 *O, int n, int causal, float scale_log2) {
    typedef FlashSmem<WARPS, MW, BK, PAD> L;
    extern __shared__ __align__(128) unsigned char smem[];
    __nv_bfloat16 *Ks = reinterpret_cast<__nv_bfloat16 *>(smem);
    __nv_bfloat16 *Vs = Ks + L::kv, *Qs = Vs + L::kv, *Ps_all = Qs + L::q;
    float *Ss_all = reinterpret_cast<float *>(Ps_all + L::p), *rowf_all = Ss_all + L::s;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t base = (size_t)blockIdx.y * n * FL_D;
    Q += base, K += base, V += base, O += base;
    const int q0 = blockIdx.x * L::BQ;           // the block's first query
    const int w0 = q0 + warp * 16 * MW;          // the warp's first query
    float *Ss = Ss_all + warp * 16 * MW * L::LDS; // this warp's staging areas
    __nv_bfloat16 *Ps = Ps_all + warp * 16 * MW * L::LDP;
    float *rowf = rowf_all + warp * 16 * MW;

    // with the causal mask, no tile after the block's last query
    const int keys = causal ? min(n, q0 + L::BQ) : n;
    const int tiles = (keys + BK - 1) / BK;

    // tile 0 is in flight while Q is read
    copy_kv_tile<WARPS, BK>(K, V, Ks, Vs, 0, 0, n);
    __pipeline_commit();

    // Q: the block's tile into shared memory (zeros past the sequence), then each warp's fragments
    for (int c = threadIdx.x; c < L::BQ * FL_D / 8; c += WARPS * 32) {
        const int r = c / (FL_D / 8), col = (c % (FL_D / 8)) * 8;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (q0 + r < n) v = *reinterpret_cast<const uint4 *>(Q + (size_t)(q0 + r) * FL_D + col);
        *reinterpret_cast<uint4 *>(Qs + r * FL_LDH + col) = v;
    }
    // the row map: element (r, c) = r, loaded as an accumulator (see the file's comment)
    for (int e = lane; e < 256; e += 32) Ss[(e / 16) * L::LDS + e % 16] = (float)(e / 16);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qf[MW][FL_D / 16];
#pragma unroll
    for (int g = 0; g < MW; g++)
#pragma unroll
        for (int kk = 0; kk < FL_D / 16; kk++) wmma::load_matrix_sync(qf[g][kk], Qs + (warp * 16 * MW + g * 16) * FL_LDH + kk * 16, FL_LDH);
    AccFrag rowmap;
    wmma::load_matrix_sync(rowmap, Ss, L::LDS, wmma::mem_row_major);
    AccFrag o[MW][FL_D / 16];
#pragma unroll
    for (int g = 0; g < MW; g++)
#pragma unroll
        for (int dj = 0; dj < FL_D / 16; dj++) wmma::fill_fragment(o[g][dj], 0.0f);

    // the online softmax's state: lanes 2r and 2r + 1 share row r of each 16-row group, each taking
    // half of its columns in pairs (columns 4i + 2 (lane % 2) and the next): a half-warp's 8-byte
    // reads of the scores then fall on 32 different banks
    float m[MW], l[MW];
#pragma unroll
    for (int g = 0; g < MW; g++) m[g] = -INFINITY, l[g] = 0.0f;
    const int my_row = lane / 2, half = lane % 2;
    // PAD 8: the lanes of rows 4-11 (of each 16) start one column pair later, which puts the 8-byte
    // score reads of a half-warp (8 rows) and the 4-byte P writes of the warp (16 rows, LDP 72: 4
    // banks apart) on distinct banks; PAD 4 keeps the original order (its reads were conflict-free)
    const int rot = PAD == 8 ? ((my_row >> 2) ^ (my_row >> 3)) & 1 : 0;
    __syncwarp();

    for (int t = 0; t < tiles; t++) {
        const int st = t & 1, k0 = t * BK;
        // the next tile into the other stage: the barrier at the end of the last iteration said that
        // every warp is done with it
        if (t + 1 < tiles) copy_kv_tile<WARPS, BK>(K, V, Ks, Vs, t + 1, st ^ 1, n);
        __pipeline_commit();
        __pipeline_wait_prior(1); // this thread's copies of tile t have landed ...
        __syncthreads();          // ... and everyone's
        const __nv_bfloat16 *Kt = Ks + st * BK * FL_LDH, *Vt = Vs + st * BK * FL_LDH;

        // a warp whose queries all precede the tile's first key has nothing to add (causal)
        if (!causal || k0 <= w0 + 16 * MW - 1) {
            // S = Q K^T, a 16 x 16 block at a time, into the staging area
#pragma unroll
            for (int nj = 0; nj < BK / 16; nj++) {
                AccFrag s[MW];
#pragma unroll
                for (int g = 0; g < MW; g++) wmma::fill_fragment(s[g], 0.0f);
#pragma unroll
                for (int kk = 0; kk < FL_D / 16; kk++) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kf;
                    wmma::load_matrix_sync(kf, Kt + nj * 16 * FL_LDH + kk * 16, FL_LDH);
#pragma unroll
                    for (int g = 0; g < MW; g++) wmma::mma_sync(s[g], qf[g][kk], kf, s[g]);
                }
#pragma unroll
                for (int g = 0; g < MW; g++) wmma::store_matrix_sync(Ss + g * 16 * L::LDS + nj * 16, s[g], L::LDS, wmma::mem_row_major);
            }
            __syncwarp();

            // the online softmax, one row per lane pair: the tile's maximum first, then P
#pragma unroll
            for (int g = 0; g < MW; g++) {
                const int r = g * 16 + my_row, qi = w0 + r;
                const float *srow = Ss + r * L::LDS;
                __nv_bfloat16 *prow = Ps + r * L::LDP;
                // keys past the sequence, or after the query with the mask, do not count
                const int last = causal ? min(n - 1, qi) : n - 1; // the row's last visible key
                float tmax = -INFINITY;
#pragma unroll
                for (int i = 0; i < BK / 4; i++) {
                    const int j = 2 * ((2 * i + half + 2 * rot) % (BK / 2)); // this lane's column pair
                    const float2 s2 = *reinterpret_cast<const float2 *>(srow + j);
                    if (k0 + j <= last) tmax = fmaxf(tmax, s2.x);
                    if (k0 + j + 1 <= last) tmax = fmaxf(tmax, s2.y);
                }
                tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1));
                // in log2 units: exp(scale (s - max)) = exp2(s scale log2 e - max scale log2 e)
                const float m_new = fmaxf(m[g], tmax * scale_log2);
                // a row that has seen no key yet keeps m = -inf: its factor and its p's are 0, not NaN
                const float ms = m_new == -INFINITY ? 0.0f : m_new;
                float sum = 0.0f;
#pragma unroll
                for (int i = 0; i < BK / 4; i++) {
                    const int j = 2 * ((2 * i + half + 2 * rot) % (BK / 2));
                    const float2 s2 = *reinterpret_cast<const float2 *>(srow + j);
                    const float p0 = k0 + j <= last ? exp2f(s2.x * scale_log2 - ms) : 0.0f;
                    const float p1 = k0 + j + 1 <= last ? exp2f(s2.y * scale_log2 - ms) : 0.0f;
                    // l sums the probabilities as P V will see them: rounded to bf16
                    const __nv_bfloat162 pb = __floats2bfloat162_rn(p0, p1);
                    sum += __low2float(pb) + __high2float(pb);
                    *reinterpret_cast<__nv_bfloat162 *>(prow + j) = pb;
                }
                sum += __shfl_xor_sync(0xffffffffu, sum, 1);
                const float corr = exp2f(m[g] - ms);
                l[g] = l[g] * corr + sum;
                m[g] = m_new;
                if (half == 0) rowf[r] = corr;
            }
            __syncwarp();

            // O: each element times its row's factor, then O += P V
#pragma unroll
            for (int g = 0; g < MW; g++)
#pragma unroll
                for (int i = 0; i < rowmap.num_elements; i++) {
                    const float f = rowf[g * 16 + (int)rowmap.x[i]];
#pragma unroll
                    for (int dj = 0; dj < FL_D / 16; dj++) o[g][dj].x[i] *= f;
                }
#pragma unroll
            for (int kk = 0; kk < BK / 16; kk++) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pf[MW];
#pragma unroll
                for (int g = 0; g < MW; g++) wmma::load_matrix_sync(pf[g], Ps + g * 16 * L::LDP + kk * 16, L::LDP);
#pragma unroll
                for (int dj = 0; dj < FL_D / 16; dj++) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vf;
                    wmma::load_matrix_sync(vf, Vt + kk * 16 * FL_LDH + dj * 16, FL_LDH);
#pragma unroll
                    for (int g = 0; g < MW; g++) wmma::mma_sync(o[g][dj], pf[g], vf, o[g][dj]);
                }
            }
        }
        // every warp is done with this stage before the next iteration's copies overwrite it
        __syncthreads();
    }
    __pipeline_wait_prior(0);

    // O / l, through the staging area to coalesced bf16 rows
#pragma unroll
    for (int g = 0; g < MW; g++)
        if (half == 0) rowf[g * 16 + my_row] = 1.0f / l[g];
    __syncwarp();
#pragma unroll
    for (int g = 0; g < MW; g++)
#pragma unroll
        for (int dj = 0; dj < FL_D / 16; dj++) {
#pragma unroll
            for (int i = 0; i < rowmap.num_elements; i++) o[g][dj].x[i] *= rowf[g * 16 + (int)rowmap.x[i]];
            wmma::store_matrix_sync(Ss + g * 16 * L::LDS + dj * 16, o[g][dj], L::LDS, wmma::mem_row_major);
        }
    __syncwarp();
    for (int e = lane; e < 16 * MW * FL_D / 2; e += 32) {
        const int r = e / (FL_D / 2), c = (e % (FL_D / 2)) * 2;
        if (w0 + r < n)
            *reinterpret_cast<__nv_bfloat162 *>(O + (size_t)(w0 + r) * FL_D + c) =
                __floats2bfloat162_rn(Ss[r * L::LDS + c], Ss[r * L::LDS + c + 1]);
    }
}

template <int WARPS, int MW, int BK, int PAD>
static cudaError_t flash_bf16_launch(const __nv_bfloat16 *d_q, const __nv_bfloat16 *d_k, const __nv_bfloat16 *d_v, __nv_bfloat16 *d_o, int bh, int n,
                                     int d, int causal) {
    typedef FlashSmem<WARPS, MW, BK, PAD> L;
    if (bh < 0 || n < 0 || d != FL_D || bh > 65535) return cudaErrorInvalidValue;
    // 16-byte copies of whole rows
    if ((uintptr_t)d_q % 16 || (uintptr_t)d_k % 16 || (uintptr_t)d_v % 16 || (uintptr_t)d_o % 16) return cudaErrorInvalidValue;
    if (bh == 0 || n == 0) return cudaSuccess;
    cudaError_t err = cudaFuncSetAttribute(flash_bf16_kernel<WARPS, MW, BK, PAD>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L::bytes);
    if (err != cudaSuccess) return err;
    dim3 grid((n + L::BQ - 1) / L::BQ, bh);
    // log2(e) / sqrt(d): the softmax in exp2
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)FL_D);
    flash_bf16_kernel<WARPS, MW, BK, PAD><<<grid, WARPS * 32, L::bytes>>>(d_q, d_k, d_v, d_o, n, causal, scale_log2);
    return cudaGetLastError();
}

// The configurations the benchmark times: warps a block, 16-row fragments a warp, keys a tile.
static const struct {
    const char *name;
    FlashBf16Fn fn;
    size_t smem;
} kConfigs[] = {
    {"4 warps x 16 rows, BK 64", flash_bf16_launch<4, 1, 64, 4>, FlashSmem<4, 1, 64, 4>::bytes},
    {"4 warps x 32 rows, BK 64", flash_bf16_launch<4, 2, 64, 4>, FlashSmem<4, 2, 64, 4>::bytes},
    {"4 warps x 32 rows, BK 32", flash_bf16_launch<4, 2, 32, 4>, FlashSmem<4, 2, 32, 4>::bytes},
    {"8 warps x 16 rows, BK 64", flash_bf16_launch<8, 1, 64, 4>, FlashSmem<8, 1, 64, 4>::bytes},
    // scores padded by 8 floats, softmax columns rotated: no shared store bank conflicts
    {"4 warps x 16 rows, BK 64, pad 8", flash_bf16_launch<4, 1, 64, 8>, FlashSmem<4, 1, 64, 8>::bytes},
    {"8 warps x 16 rows, BK 64, pad 8", flash_bf16_launch<8, 1, 64, 8>, FlashSmem<8, 1, 64, 8>::bytes},
    {"4 warps x 32 rows, BK 64, pad 8", flash_bf16_launch<4, 2, 64, 8>, FlashSmem<4, 2, 64, 8>::bytes},
};

// flash_mma.cu's configurations follow these where it is linked in (weak: a build of this file alone
// still links, with the WMMA configurations only)
extern "C" int flash_mma_config(int k, const char **name, FlashBf16Fn *fn, size_t *smem_bytes) __attribute__((weak));

extern "C" int flash_bf16_config(int k, const char **name, FlashBf16Fn *fn, size_t *smem_bytes) {
    const int nw = (int)(sizeof kConfigs / sizeof kConfigs[0]);
    if (k >= nw) return flash_mma_config ? flash_mma_config(k - nw, name, fn, smem_bytes) : 0;
    if (k < 0) return 0;
    *name = kConfigs[k].name;
    *fn = kConfigs[k].fn;
    *smem_bytes = kConfigs[k].smem;
    return 1;
}
