/**
 * @file flash_mma.cu
 * @brief Lesson 19, going further (GPU only, not graded): flash_bf16.cu's attention on
 *        `mma.sync.aligned.m16n8k16` through inline PTX, with the online softmax in registers.
 *        Timed with flash_bf16.cu's configurations by flash_bf16_bench.cu (tools/gpu/flash_bf16.sh);
 *        its fragment index arithmetic is checked on the CPU by flash_mma_check.cpp.
 *
 * Why it beats the WMMA version: a WMMA accumulator's layout is opaque, so that kernel stages S
 * through shared memory to find whole rows, writes P back, and loads P again as a fragment. The
 * PTX ISA does document mma.sync's layouts: lane 4g + t holds, of each 16 x 8 accumulator, rows g
 * and g + 8, columns 2t and 2t + 1. So
 *  - a row's maximum and sum are the lane's own values plus two shuffles (xor 1, xor 2) in its quad;
 *  - S's accumulators of two adjacent 8-key tiles, packed to bf16 pairs, are P's A fragment for
 *    those 16 keys (flash_mma_layout.h): O += P V never touches shared memory for P;
 *  - O's rescaling by exp(m_old - m_new) is per register (rows g, g + 8), no row map.
 * Shared memory holds only Q (read once into registers), and K and V, double-buffered, filled by
 * cp.async and XOR-swizzled (lesson 17's mma_layout.h) so that ldmatrix reads are conflict-free:
 * K without .trans is already K^T's col-major B fragment, V with .trans is V's row-major one.
 *
 * One block of WARPS warps per (64 or 128 queries, (batch, head)); each warp owns 16 or 32 query rows;
 * keys in tiles of 64. With the causal mask the blocks of the last queries (most tiles) start first.
 * On the simulator this file offers no configuration (inline PTX has no CPU meaning there).
 */
#include <cuda_runtime_api.h>

#include "flash_bf16.h"

#ifdef SIMCUDA

extern "C" int flash_mma_config(int, const char **, FlashBf16Fn *, size_t *) { return 0; }

#else

#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>

#include "flash_mma_layout.h"
#include "../../17-tensor-cores/steps/mma_ptx.h"

#define FM_D 64  // head dimension: the only one this kernel takes
#define FM_BK 64 // keys a tile
#define FM_C 8   // 16-byte chunks a row of Q, K or V

// The PTX instructions (cp.async, ldmatrix, mma.sync) come from lesson 17's mma_ptx.h.

// 2^x on the special-function unit, subnormal results flushed to 0 (exp2f without -use_fast_math
// adds a scaling around it to keep them; a probability below 2^-126 does not matter). 2^-inf = 0.
__device__ __forceinline__ float fm_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ uint32_t fm_pack_bf16(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); // .x = lo: the lower column in the lower half
    return *reinterpret_cast<uint32_t *>(&v);
}

// ---- the kernel --------------------------------------------------------------------------------

// ROWS rows of a 64-wide bf16 matrix, from row `first`, into a swizzled shared tile, 16 bytes a
// copy (consecutive threads, consecutive chunks of a row: coalesced); rows at or past n become zeros.
template <int THREADS, int ROWS>
__device__ __forceinline__ void fm_copy_rows(uint32_t dst, const __nv_bfloat16 *src, int first, int n) {
    static_assert(ROWS * FM_C % THREADS == 0, "the copies divide evenly among the threads");
#pragma unroll 1 // unrolled, the copies' addresses cost registers (spills at 128)
    for (int i = 0; i < ROWS * FM_C / THREADS; i++) {
        const int c = threadIdx.x + i * THREADS, r = c / FM_C, ch = c % FM_C, row = first + r;
        const bool in = row < n;
        cp_async16_zfill(dst + mma_swz<FM_C>(r, ch) * 2, src + (size_t)(in ? row : 0) * FM_D + ch * 8, in ? 16 : 0);
    }
}

template <int WARPS, int MW, int MIN_BLOCKS, bool Q_REGS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32, MIN_BLOCKS)
    flash_mma_kernel(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K, const __nv_bfloat16 *__restrict__ V,
                     __nv_bfloat16 *__restrict__ O, int n, int causal, float scale_log2) {
    constexpr int THREADS = WARPS * 32, BQ = WARPS * 16 * MW, TILE = FM_BK * FM_D * 2; // bytes of a K or V tile
    extern __shared__ __align__(128) unsigned char fm_smem[];
    static_assert(STAGES >= 2, "at least double buffering");
    const uint32_t sq = smem_u32(fm_smem), sk = sq + BQ * FM_D * 2, sv = sk + STAGES * TILE; // Q; K, V: STAGES tiles each

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const size_t base = (size_t)blockIdx.y * n * FM_D;
    Q += base, K += base, V += base, O += base;
    // causal: the blocks with the most tiles first, so that the short ones fill the tail
    const int qt = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const int q0 = qt * BQ, w0 = q0 + warp * 16 * MW; // the block's and the warp's first query
    const int keys = causal ? min(n, q0 + BQ) : n;
    const int tiles = (keys + FM_BK - 1) / FM_BK;

    // Tile i of K and V goes to stage i % STAGES, one commit group a tile (empty past the last, so
    // that wait_group's count keeps its meaning). Prologue: Q with tile 0, then tiles 1..STAGES-2.
    auto copy_tile = [&](int i) {
        if (i < tiles) {
            fm_copy_rows<THREADS, FM_BK>(sk + (i % STAGES) * TILE, K, i * FM_BK, n);
            fm_copy_rows<THREADS, FM_BK>(sv + (i % STAGES) * TILE, V, i * FM_BK, n);
        }
        cp_async_commit();
    };
    fm_copy_rows<THREADS, BQ>(sq, Q, q0, n);
#pragma unroll
    for (int i = 0; i < STAGES - 1; i++) copy_tile(i);
    // Q's A fragments (16-row group mi of the warp's MW, 16 dimensions kk): kept in registers
    // (Q_REGS), or read again from shared memory each tile (4 MW more ldmatrix a tile beside K's 16
    // and V's 16, for 16 MW registers less)
    uint32_t qf[MW][FM_D / 16][4];
    auto load_q = [&](int mi, int kk) {
        int r, c;
        mma_a_ldm_rc(lane, warp * 16 * MW + mi * 16, kk * 16, &r, &c);
        ldmatrix_x4(qf[mi][kk], sq + mma_swz<FM_C>(r, c) * 2);
    };

    float o[MW][FM_D / 8][4]; // O: 16 rows x 64 a group, 8 n-tiles
#pragma unroll
    for (int mi = 0; mi < MW; mi++)
#pragma unroll
        for (int j = 0; j < FM_D / 8; j++) o[mi][j][0] = o[mi][j][1] = o[mi][j][2] = o[mi][j][3] = 0.0f;
    // rows g (h = 0) and g + 8 (h = 1) of each group: running maximum (scaled, log2 units) and this
    // lane's part of the row sum
    float m[MW][2], l[MW][2];
#pragma unroll
    for (int mi = 0; mi < MW; mi++) m[mi][0] = m[mi][1] = -INFINITY, l[mi][0] = l[mi][1] = 0.0f;

    for (int it = 0; it < tiles; it++) {
        const int st = it % STAGES, k0 = it * FM_BK;
        // groups committed: STAGES - 1 + it, the last for tile it + STAGES - 2; tile it (and Q) has
        // landed when at most STAGES - 2 are pending (this thread's copies) ...
        cp_async_wait<STAGES - 2>();
        // ... and everyone's after the barrier, which also says that every warp is done with tile
        // it - 1, whose stage the copy below refills: one barrier a tile
        __syncthreads();
        copy_tile(it + STAGES - 1);
        if (Q_REGS && it == 0)
#pragma unroll
            for (int mi = 0; mi < MW; mi++)
#pragma unroll
                for (int kk = 0; kk < FM_D / 16; kk++) load_q(mi, kk);
        const uint32_t kt = sk + st * TILE, vt = sv + st * TILE;

        // causal: a warp whose 16 MW queries all precede the tile has nothing to add
        if (!causal || k0 <= w0 + 16 * MW - 1) {
            // S = Q K^T: 16 x 64 a group, n-tile j = keys 8j..8j+7; a K fragment serves every group
            float s[MW][FM_BK / 8][4];
#pragma unroll
            for (int mi = 0; mi < MW; mi++)
#pragma unroll
                for (int j = 0; j < FM_BK / 8; j++) s[mi][j][0] = s[mi][j][1] = s[mi][j][2] = s[mi][j][3] = 0.0f;
#pragma unroll
            for (int kk = 0; kk < FM_D / 16; kk++) {
                if (!Q_REGS)
#pragma unroll
                    for (int mi = 0; mi < MW; mi++) load_q(mi, kk);
#pragma unroll
                for (int jp = 0; jp < FM_BK / 16; jp++) {
                    int r, c;
                    uint32_t kb[4];
                    flash_k_ldm_rc(lane, jp * 16, kk * 16, &r, &c);
                    ldmatrix_x4(kb, kt + mma_swz<FM_C>(r, c) * 2);
#pragma unroll
                    for (int mi = 0; mi < MW; mi++) {
                        mma_bf16_16816(s[mi][2 * jp], qf[mi][kk], kb[0], kb[1]);
                        mma_bf16_16816(s[mi][2 * jp + 1], qf[mi][kk], kb[2], kb[3]);
                    }
                }
            }
            // keys past the sequence, or after the query with the mask, do not count; only tiles at
            // the end or on the diagonal need the test
            if (k0 + FM_BK > n || (causal && k0 + FM_BK - 1 > w0)) {
#pragma unroll
                for (int mi = 0; mi < MW; mi++)
#pragma unroll
                    for (int j = 0; j < FM_BK / 8; j++)
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            int r, kj;
                            flash_s_rk(lane, j, e, &r, &kj);
                            const int last = causal ? min(n - 1, w0 + mi * 16 + r) : n - 1;
                            if (k0 + kj > last) s[mi][j][e] = -INFINITY;
                        }
            }
            // the online softmax, rows g (h = 0) and g + 8 (h = 1) of each group, in log2 units:
            // exp(scale (s - max)) = exp2(s scale log2 e - max scale log2 e)
#pragma unroll
            for (int mi = 0; mi < MW; mi++) {
                float corr[2];
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    float mx = -INFINITY;
#pragma unroll
                    for (int j = 0; j < FM_BK / 8; j++) mx = fmaxf(mx, fmaxf(s[mi][j][2 * h], s[mi][j][2 * h + 1]));
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                    const float m_new = fmaxf(m[mi][h], mx * scale_log2);
                    // a row that has seen no key yet keeps m = -inf: its factor and its p's are 0, not NaN
                    const float ms = m_new == -INFINITY ? 0.0f : m_new;
                    corr[h] = fm_exp2(m[mi][h] - ms);
                    m[mi][h] = m_new;
                    float sum = 0.0f;
#pragma unroll
                    for (int j = 0; j < FM_BK / 8; j++) {
                        s[mi][j][2 * h] = fm_exp2(fmaf(s[mi][j][2 * h], scale_log2, -ms));
                        s[mi][j][2 * h + 1] = fm_exp2(fmaf(s[mi][j][2 * h + 1], scale_log2, -ms));
                        sum += s[mi][j][2 * h] + s[mi][j][2 * h + 1];
                    }
                    // the quad's four parts are added once, at the end: the rescaling is linear
                    l[mi][h] = l[mi][h] * corr[h] + sum;
                }
#pragma unroll
                for (int j = 0; j < FM_D / 8; j++)
                    o[mi][j][0] *= corr[0], o[mi][j][1] *= corr[0], o[mi][j][2] *= corr[1], o[mi][j][3] *= corr[1];
            }

            // O += P V, 16 keys at a time: P's A fragments straight from S's registers; a V
            // fragment serves every group
#pragma unroll
            for (int kk = 0; kk < FM_BK / 16; kk++) {
                uint32_t pa[MW][4];
#pragma unroll
                for (int mi = 0; mi < MW; mi++)
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        int nt, h;
                        flash_p_src(kk, i, &nt, &h);
                        pa[mi][i] = fm_pack_bf16(s[mi][nt][2 * h], s[mi][nt][2 * h + 1]);
                    }
#pragma unroll
                for (int dp = 0; dp < FM_D / 16; dp++) {
                    int r, c;
                    uint32_t vb[4];
                    mma_b_ldm_rc(lane, kk * 16, dp * 16, &r, &c);
                    ldmatrix_x4_trans(vb, vt + mma_swz<FM_C>(r, c) * 2);
#pragma unroll
                    for (int mi = 0; mi < MW; mi++) {
                        mma_bf16_16816(o[mi][2 * dp], pa[mi], vb[0], vb[1]);
                        mma_bf16_16816(o[mi][2 * dp + 1], pa[mi], vb[2], vb[3]);
                    }
                }
            }
        }
    }
    cp_async_wait<0>(); // no copy outlives the block (the trailing groups are empty)

    // O / l: the quad's parts of l first; each lane writes its pairs of columns of rows g, g + 8
#pragma unroll
    for (int mi = 0; mi < MW; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float lt = l[mi][h];
            lt += __shfl_xor_sync(0xffffffffu, lt, 1);
            lt += __shfl_xor_sync(0xffffffffu, lt, 2);
            const float inv = 1.0f / lt;
            const int row = w0 + mi * 16 + g + 8 * h;
            if (row < n)
#pragma unroll
                for (int j = 0; j < FM_D / 8; j++)
                    *reinterpret_cast<uint32_t *>(O + (size_t)row * FM_D + 8 * j + 2 * t) =
                        fm_pack_bf16(o[mi][j][2 * h] * inv, o[mi][j][2 * h + 1] * inv);
        }
}

template <int WARPS, int MW, int STAGES> static constexpr size_t fm_smem_bytes() { return (size_t)(WARPS * 16 * MW + 2 * STAGES * FM_BK) * FM_D * 2; }

template <int WARPS, int MW, int MIN_BLOCKS, bool Q_REGS, int STAGES>
static cudaError_t flash_mma_launch(const __nv_bfloat16 *d_q, const __nv_bfloat16 *d_k, const __nv_bfloat16 *d_v, __nv_bfloat16 *d_o, int bh, int n,
                                    int d, int causal) {
    if (bh < 0 || n < 0 || d != FM_D || bh > 65535) return cudaErrorInvalidValue;
    if ((uintptr_t)d_q % 16 || (uintptr_t)d_k % 16 || (uintptr_t)d_v % 16 || (uintptr_t)d_o % 16) return cudaErrorInvalidValue;
    if (bh == 0 || n == 0) return cudaSuccess;
    constexpr size_t smem = fm_smem_bytes<WARPS, MW, STAGES>();
    constexpr int BQ = WARPS * 16 * MW;
    auto kern = flash_mma_kernel<WARPS, MW, MIN_BLOCKS, Q_REGS, STAGES>;
    cudaError_t err = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess) return err;
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)FM_D); // log2(e) / sqrt(d)
    kern<<<dim3((n + BQ - 1) / BQ, bh), WARPS * 32, smem>>>(d_q, d_k, d_v, d_o, n, causal, scale_log2);
    return cudaGetLastError();
}

// warps a block, 16-row groups a warp, blocks an SM asked of ptxas (registers: 65536 / (32 WARPS
// MIN_BLOCKS), at most 255), Q in registers or not, stages of K and V
static const struct {
    const char *name;
    FlashBf16Fn fn;
    size_t smem;
} kMmaConfigs[] = {
    {"mma.sync 4 warps x 16 rows, BK 64, Q regs, 2 stages, 3/SM", flash_mma_launch<4, 1, 3, true, 2>, fm_smem_bytes<4, 1, 2>()},
    {"mma.sync 4 warps x 16 rows, BK 64, Q smem, 2 stages, 4/SM", flash_mma_launch<4, 1, 4, false, 2>, fm_smem_bytes<4, 1, 2>()},
    {"mma.sync 4 warps x 16 rows, BK 64, Q regs, 3 stages, 3/SM", flash_mma_launch<4, 1, 3, true, 3>, fm_smem_bytes<4, 1, 3>()},
    {"mma.sync 4 warps x 16 rows, BK 64, Q smem, 3 stages, 4/SM", flash_mma_launch<4, 1, 4, false, 3>, fm_smem_bytes<4, 1, 3>()},
    {"mma.sync 8 warps x 16 rows, BK 64, Q smem, 2 stages, 2/SM", flash_mma_launch<8, 1, 2, false, 2>, fm_smem_bytes<8, 1, 2>()},
    {"mma.sync 8 warps x 16 rows, BK 64, Q smem, 3 stages, 2/SM", flash_mma_launch<8, 1, 2, false, 3>, fm_smem_bytes<8, 1, 3>()},
    {"mma.sync 8 warps x 16 rows, BK 64, Q regs, 3 stages, 1/SM", flash_mma_launch<8, 1, 1, true, 3>, fm_smem_bytes<8, 1, 3>()},
    // a warp of 32 rows: each K and V fragment feeds two row groups, half the ldmatrix per mma
    {"mma.sync 4 warps x 32 rows, BK 64, Q smem, 2 stages, 2/SM", flash_mma_launch<4, 2, 2, false, 2>, fm_smem_bytes<4, 2, 2>()},
    {"mma.sync 4 warps x 32 rows, BK 64, Q smem, 3 stages, 2/SM", flash_mma_launch<4, 2, 2, false, 3>, fm_smem_bytes<4, 2, 3>()},
    {"mma.sync 4 warps x 32 rows, BK 64, Q regs, 3 stages, 2/SM", flash_mma_launch<4, 2, 2, true, 3>, fm_smem_bytes<4, 2, 3>()},
};

extern "C" int flash_mma_config(int k, const char **name, FlashBf16Fn *fn, size_t *smem_bytes) {
    if (k < 0 || k >= (int)(sizeof kMmaConfigs / sizeof kMmaConfigs[0])) return 0;
    *name = kMmaConfigs[k].name;
    *fn = kMmaConfigs[k].fn;
    *smem_bytes = kMmaConfigs[k].smem;
    return 1;
}

#endif
