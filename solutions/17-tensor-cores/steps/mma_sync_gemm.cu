/**
 * @file mma_sync_gemm.cu
 * @brief Lesson 17, going further (GPU only, not graded): the bf16 GEMM of 17.2 (row-major A M x K,
 *        B K x N, fp32 C) on `mma.sync.aligned.m16n8k16` through inline PTX, fed by `ldmatrix`
 *        from XOR-swizzled shared memory that multi-stage `cp.async` copies fill. Timed beside
 *        cuBLAS by `make bench LESSON=17 SOLUTION=1` (bench.c finds mma_gemm_step() through a weak
 *        symbol, as it finds wmma_steps.cu's steps).
 *
 * Why it can beat WMMA: nvcc 13 compiles wmma::load_matrix_sync to four 32-bit generic loads
 * (LD.E) per fragment, and a row-major B fragment to extra MOVM transposes; here one ldmatrix.x4
 * (.trans for B) fills a whole 16 x 16 fragment from shared memory, conflict-free thanks to the
 * swizzle (mma_layout.h), and the fragments of the next 16-deep step are loaded while the current
 * step's mma.syncs run (two register buffers).
 *
 * The tile shapes are template parameters: one GPU run times every configuration in kSteps. Sizes:
 * M a multiple of BM, N of BN, K of BK (the launcher refuses others with cudaErrorInvalidValue).
 * On the simulator the file compiles to a refusal (cudaErrorNotSupported): inline PTX has no CPU
 * meaning there.
 */
#include <stdint.h>

#include "backend.h"
#include "tensor_cores.h"

typedef cudaError_t (*GemmFn)(const tc_bf16 *, const tc_bf16 *, float *, int, int, int); // as bench.c's

#if ON_SIM

static cudaError_t refuse(const tc_bf16 *, const tc_bf16 *, float *, int, int, int) { return cudaErrorNotSupported; }

/** Step k of the mma.sync kernels; on the simulator one row that refuses (inline PTX is GPU only). */
extern "C" int mma_gemm_step(int k, const char **name, GemmFn *fn) {
    if (k != 0) return 0;
    *name = "mma.sync kernels (inline PTX, GPU only)";
    *fn = refuse;
    return 1;
}

#else

#include <cuda_bf16.h>

#include "mma_layout.h"
#include "mma_ptx.h"

// The PTX instructions (cp.async, ldmatrix, mma.sync) are in mma_ptx.h, shared with wmma_steps.cu and
// lesson 19's flash_mma.cu.

// ---- the kernel --------------------------------------------------------------------------------

/* C (BM x BN per block) = A B: WARPS_M x WARPS_N warps, each WM x WN of C (MI x NJ pieces of
 * 16 x 8). Slices of BK of A (BM x BK) and B (BK x BN) go through STAGES shared buffers. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    mma_gemm_kernel(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B, float *__restrict__ C, int M, int N, int K) {
    constexpr int WARPS_N = BN / WN, THREADS = (BM / WM) * WARPS_N * 32;
    constexpr int MI = WM / 16, NJ = WN / 8, KS = BK / 16; // mma pieces per warp, 16-deep steps per slice
    constexpr int CA = BK / 8, CB = BN / 8;                // 16-byte chunks per row of the A and B slices
    constexpr int A_ELEMS = BM * BK, B_ELEMS = BK * BN, STAGE_BYTES = (A_ELEMS + B_ELEMS) * 2;
    constexpr int AV = BM * CA / THREADS, BV = BK * CB / THREADS; // 16-byte copies per thread
    static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0 && CB >= 8, "ldmatrix.x4 pieces; B rows of 128 bytes or more");
    static_assert(AV * THREADS == BM * CA && BV * THREADS == BK * CB, "the copies divide evenly among the threads");
    static_assert(STAGES >= 2, "at least double buffering");

    extern __shared__ __align__(128) unsigned char mma_smem[];
    const uint32_t smem0 = smem_u32(mma_smem); // stage s: A at smem0 + s * STAGE_BYTES, B after it

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int KT = K / BK;

    // This thread's 16-byte pieces of a slice: consecutive threads take consecutive chunks of a row,
    // so each warp reads whole rows of global memory (coalesced). Copy i of a thread is THREADS / C
    // rows below copy 0, a multiple of 8 rows, so it has the same swizzle key: its shared offset is
    // copy 0's plus a constant, and only one pointer per operand walks along K.
    static_assert((THREADS / CA) % 8 == 0 && (THREADS / CB) % 8 == 0, "each copy keeps the swizzle key of the first");
    const __nv_bfloat16 *ga = A + (size_t)(m0 + tid / CA) * K + (tid % CA) * 8;
    const __nv_bfloat16 *gb = B + (size_t)(tid / CB) * N + n0 + (tid % CB) * 8;
    const uint32_t sa_off = mma_swz<CA>(tid / CA, tid % CA) * 2, sb_off = A_ELEMS * 2 + mma_swz<CB>(tid / CB, tid % CB) * 2;
    auto load_slice = [&](int st, int kt) {
        const uint32_t s = smem0 + st * STAGE_BYTES;
        const __nv_bfloat16 *pa = ga + (size_t)kt * BK, *pb = gb + (size_t)kt * BK * N;
#pragma unroll
        for (int i = 0; i < AV; i++) cp_async16(s + sa_off + i * (THREADS / CA) * BK * 2, pa + (size_t)i * (THREADS / CA) * K);
#pragma unroll
        for (int i = 0; i < BV; i++) cp_async16(s + sb_off + i * (THREADS / CB) * BN * 2, pb + (size_t)i * (THREADS / CB) * N);
    };

    // The fragments of 16-deep step kk of stage st: MI A fragments (ldmatrix.x4 each) and NJ B
    // fragments (ldmatrix.x4.trans gives two).
    auto load_frags = [&](uint32_t (&fa)[MI][4], uint32_t (&fb)[NJ][2], int st, int kk) {
        const uint32_t sa = smem0 + st * STAGE_BYTES, sb = sa + A_ELEMS * 2;
#pragma unroll
        for (int i = 0; i < MI; i++) {
            int r, c;
            mma_a_ldm_rc(lane, wm * WM + i * 16, kk * 16, &r, &c);
            ldmatrix_x4(fa[i], sa + mma_swz<CA>(r, c) * 2);
        }
#pragma unroll
        for (int j = 0; j < NJ; j += 2) {
            int r, c;
            mma_b_ldm_rc(lane, kk * 16, wn * WN + j * 8, &r, &c);
            ldmatrix_x4_trans(fb[j][0], fb[j][1], fb[j + 1][0], fb[j + 1][1], sb + mma_swz<CB>(r, c) * 2);
        }
    };

    float acc[MI][NJ][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NJ; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

    // Prologue: slices 0 .. STAGES-2 in flight, one commit group each (empty where K is short, so
    // that the group count, and with it wait_group's meaning, stays the same).
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < KT) load_slice(s, s);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>(); // slice 0 has landed (this thread's copies) ...
    __syncthreads();             // ... and everyone's

    uint32_t fa[2][MI][4], fb[2][NJ][2]; // two register buffers: step kk's and the next one's
    load_frags(fa[0], fb[0], 0, 0);

    for (int kt = 0; kt < KT; kt++) {
        const int st = kt % STAGES;
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            if (kk == KS - 1) {
                // Groups committed so far: STAGES - 1 + kt + 1, the last for slice kt + STAGES - 1;
                // slice kt + 1 is complete when at most STAGES - 2 are pending. The barrier also
                // says every warp has loaded its last fragments of slice kt - 1's ... and kt's
                // earlier steps: from here on no one reads stage kt's buffer after this step.
                cp_async_wait<STAGES - 2>();
                __syncthreads();
            }
            // The next step's fragments (step kk + 1 here, or step 0 of slice kt + 1) while this
            // step's mma.syncs run. Past the last slice this reads a stale stage: harmless, unused.
            const int nst = kk == KS - 1 ? (kt + 1) % STAGES : st;
            load_frags(fa[(kk + 1) & 1], fb[(kk + 1) & 1], nst, (kk + 1) % KS);
            if (kk == 0) {
                // Refill the stage slice kt - 1 used: every warp passed the barrier of slice kt - 1's
                // last step, after its last read of that stage.
                const int next = kt + STAGES - 1;
                if (next < KT) load_slice(next % STAGES, next);
                cp_async_commit();
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NJ; j++) {
                    // serpentine over j: consecutive mma.syncs share an A or a B fragment
                    const int jj = (i & 1) ? NJ - 1 - j : j;
                    mma_bf16_16816(acc[i][jj], fa[kk & 1][i], fb[kk & 1][jj]);
                }
        }
    }
    cp_async_wait<0>(); // no copy may outlive the block (the trailing groups are empty)

    // Epilogue straight from the accumulators: each quad of lanes writes 32 contiguous bytes of a row.
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NJ; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int r, c;
                mma_c_rc(lane, h, &r, &c);
                float *p = C + (size_t)(m0 + wm * WM + i * 16 + r) * N + n0 + wn * WN + j * 8 + c;
                *(float2 *)p = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
            }
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static cudaError_t run_mma(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K) {
    if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK) return cudaErrorInvalidValue;
    if (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16) return cudaErrorInvalidValue;
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr size_t smem = (size_t)STAGES * (BM * BK + BK * BN) * 2;
    auto kern = mma_gemm_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS>;
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    kern<<<dim3(N / BN, M / BM), THREADS, smem>>>((const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, c, M, N, K);
    return cudaGetLastError();
}

static const struct {
    const char *name;
    GemmFn fn;
} kSteps[] = {
    // BM, BN, BK, WM, WN, STAGES, blocks per SM. 8 warps of 64 x 32 at 2 blocks per SM (128
    // registers) spilled 40 bytes (ptxas, nvcc 13.0): 64 accumulators + 48 fragment registers.
    {"mma.sync 128x256x32, 8 warps of 64x64, 3 stages", run_mma<128, 256, 32, 64, 64, 3, 1>},
    {"mma.sync 128x256x32, 8 warps of 64x64, 4 stages", run_mma<128, 256, 32, 64, 64, 4, 1>},
    {"mma.sync 256x128x32, 8 warps of 64x64, 4 stages", run_mma<256, 128, 32, 64, 64, 4, 1>},
    {"mma.sync 128x128x32, 4 warps of 64x64, 4 st, 2/SM", run_mma<128, 128, 32, 64, 64, 4, 2>},
    {"mma.sync 128x256x32, 8 warps of 64x64, 5 stages", run_mma<128, 256, 32, 64, 64, 5, 1>},
    {"mma.sync 128x256x64, 8 warps of 64x64, 3 stages", run_mma<128, 256, 64, 64, 64, 3, 1>},
};

/** Step k of the mma.sync kernels: its name and launcher; returns 0 past the last one. */
extern "C" int mma_gemm_step(int k, const char **name, GemmFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}

#endif
