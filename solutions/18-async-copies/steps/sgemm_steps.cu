/**
 * @file sgemm_steps.cu
 * @brief Lesson 18's benchmark only: the steps from lesson 05's register-tiled SGEMM to one whose
 *        tiles arrive by asynchronous copies through a pipeline of several stages, each timed
 *        beside cuBLAS SGEMM (`make bench LESSON=18 SOLUTION=1`; the goal, issue #31: 0.95 x cuBLAS
 *        at 4096³ on the H200).
 *
 * Linked into the reference's benchmark alone (lessons/18-async-copies/lesson.mk); bench.c finds
 * sgemm_step() through a weak symbol. 18.1 and 18.2 themselves stay what students write.
 *
 * All steps are one kernel template, sgemm_async_kernel, with lesson 05's shape: a block of 256
 * threads computes a 128 x 128 tile of C, each thread 8 x 8 outputs in registers, walking K in slices
 * of BK; each thread reads its 8 values of A and 8 of B for one k from shared memory and does 64
 * fused multiply-adds with them. Why each step is faster:
 *
 * - Lesson 05 (solutions/05-matmul-tiled/matmul_tiled.cu, 0.90 x cuBLAS): each thread loads the
 *   next slices of A and B into registers (one float4 each), computes the current slices, then
 *   stores the registers into shared memory, transposing A on the way (As[k][m], so that a thread's
 *   8 values of A for one k are two float4 reads). Two barriers per slice of BK = 8, and the loads
 *   hold 8 registers of every thread until the slice is done.
 * - Step 1: the slices come by cp.async (__pipeline_memcpy_async, 16 bytes a copy): the copy goes
 *   from global memory straight into shared memory, no register holds it and no instruction stores
 *   it. Two stages: tile t + 1 is in flight while tile t is multiplied, and one barrier per slice
 *   suffices (the barrier that says "tile t has landed for everyone" also says "everyone finished
 *   tile t - 1", whose stage the next copy overwrites). cp.async copies bytes as they are, so A
 *   stays row-major in shared memory, As[m][k], and a thread reads each of its 8 rows along k, four
 *   values of k at once (a float4), then does 4 x 64 multiply-adds. Rows of A are padded to BK + 4
 *   floats: a row stays a whole number of 16-byte copies, and 8 different rows read together fall
 *   on different banks (row r starts at 16-byte slot (BK / 4 + 1) r mod 8 of the 128-byte bank
 *   line, and BK / 4 + 1 is odd). Without the padding the simulator's profiler counts 2-way
 *   conflicts on these reads in steps 1 and 2 and up to 8-way in step 3; with it, none.
 * - Step 2: BK = 16 and 3 or 4 stages: half as many barriers, waits and copy instructions per flop,
 *   and 2 or 3 slices (32 or 48 values of k) in flight instead of one, which covers DRAM's latency
 *   even when L2 misses. A stage is 18 KiB, so 3 stages (54 KiB) need dynamic shared memory and
 *   cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize): more than the 48 KiB a
 *   launch gets by default. Two blocks per multiprocessor (__launch_bounds__(256, 2): at most 128
 *   registers a thread) still fit: 2 x 72 KiB with 4 stages, of 227 KiB; while one block waits at
 *   its barrier, the other computes.
 * - Step 3: warp tiles. In lesson 05's layout a warp's 32 threads are 2 x 16 of the block's 16 x 16
 *   thread grid, so each read of B asks for 16 different float4 (256 bytes: at least two passes of
 *   shared memory) and each read of A for 2 rows. Here the 8 warps are arranged 2 x 4, each owning
 *   a 64 x 32 piece of the tile, and the lanes of a warp 8 x 4 inside it: a read of B asks for 4
 *   different float4 (64 bytes) and a read of A for 8 rows (8 float4 on different banks, thanks to
 *   the padding), one pass each. A thread's rows are 8 apart (lane % 8 + 8 i), its columns two
 *   groups of 4, 16 apart; its stores to C still fill whole 32-byte sectors. Variants: BK = 32 (half
 *   the barriers and waits again: 2048 multiply-adds between two barriers; 3 stages of 34 KiB), and
 *   a block order that walks C in bands of 8 block rows, so that the blocks running at once share
 *   more of their slices of A and B in L2.
 *
 * With ptxas (CUDA 13, sm_90) the inner loop of a slice of BK = 16 is 1024 FFMA, 64 LDS.128 and
 * about 55 other instructions (copies, their addresses, the wait, the barrier, the loop): 90 % of
 * the issued instructions are multiply-adds (92 % with BK = 32), 128 registers, no spills.
 *
 * Requirements (the launcher returns cudaErrorInvalidValue otherwise; lesson 18's exercises take
 * any size): M and N multiples of 128, K a multiple of BK (32 covers all steps), every matrix
 * below 2^31 elements, the three pointers 16-byte aligned (cudaMalloc's are). M = 0 or N = 0
 * launches nothing; K = 0 gives C = 0. bench.c checks every step against the CPU (C filled with
 * NaN first) on M x K x N = 128 x 64 x 256, 256 x 32 x 128 (fewer slices than stages) and
 * 384 x 512 x 384, and that it refuses N = 130, before timing it; .perf/sgemm_tune.cu (not in the
 * repository) times more configurations of the same template against cuBLAS.
 */
#include <cuda_pipeline.h>
#include <stdint.h>

// A, B, C, M, K, N (bench.c declares the same type)
typedef cudaError_t (*SgemmFn)(const float *, const float *, float *, int, int, int);

#define SG_BM 128     // rows of C per block
#define SG_BN 128     // columns of C per block
#define SG_THREADS 256 // 16 x 16 threads, 8 x 8 outputs each
#define SG_APAD 4     // extra floats per row of As (see above)

// Layouts of the threads over the block's tile.
#define SG_LESSON05 0 // tx = tid % 16, ty = tid / 16: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx
#define SG_WARPS 1    // 2 x 4 warps of 64 x 32 outputs, lanes 8 x 4: rows lane%8 + 8i, columns (lane/8)*4 + {0..3} and 16 + ...

// A stage in shared memory: As[SG_BM][BK + SG_APAD] (row-major, as A), then Bs[BK][SG_BN] (as B).
template <int BK>
struct SgStage {
    static constexpr int A_PITCH = BK + SG_APAD;
    static constexpr int FLOATS = SG_BM * A_PITCH + BK * SG_BN;
    static constexpr size_t BYTES = FLOATS * sizeof(float);
};

// One tile into one stage: each thread issues BK / 8 16-byte copies of A and BK / 8 of B (a tile of
// A is 128 x BK floats, 32 BK float4; of B BK x 128, also 32 BK float4; 256 threads), no commit.
// as and bs: this thread's first float4 of the stage's As and Bs; a and b: its first float4 of the
// tile in A and in B.
template <int BK>
__device__ __forceinline__ void sg_copy_tile(float *as, float *bs, const float *a, const float *b, int K, int N) {
    constexpr int A_ROWS = SG_THREADS / (BK / 4); // the rows of A that one copy per thread covers
#pragma unroll
    for (int j = 0; j < BK / 8; j++) __pipeline_memcpy_async(as + j * A_ROWS * SgStage<BK>::A_PITCH, a + (size_t)j * A_ROWS * K, 16);
#pragma unroll
    for (int j = 0; j < BK / 8; j++) __pipeline_memcpy_async(bs + j * 8 * SG_BN, b + (size_t)j * 8 * N, 16);
}

// C = A B for M, N multiples of 128 and K a multiple of BK: STAGES slices of BK in shared memory,
// threads laid out as LAYOUT, at least MIN_BLOCKS blocks per multiprocessor (registers capped to
// fit), and GROUP > 0: the blocks walk C in bands of GROUP block rows (0: row by row). One block per
// 128 x 128 tile of C, a 1-D grid.
template <int BK, int STAGES, int LAYOUT, int MIN_BLOCKS, int GROUP>
__global__ void __launch_bounds__(SG_THREADS, MIN_BLOCKS)
    sgemm_async_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int K, int N) {
    static_assert(BK % 8 == 0 && STAGES >= 2, "tile shape");
    extern __shared__ float4 sg_smem[];
    float *smem = reinterpret_cast<float *>(sg_smem);
    constexpr int AP = SgStage<BK>::A_PITCH;

    // Which tile of C: block b of the grid, row by row, or in bands of GROUP block rows (column by
    // column inside a band), so that the blocks running at once use fewer distinct rows of A.
    const int tiles_n = N / SG_BN, tiles_m = M / SG_BM;
    int tm, tn;
    if (GROUP == 0) {
        tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
    } else {
        const int band = blockIdx.x / (GROUP * tiles_n), first = band * GROUP;
        const int rows = min(GROUP, tiles_m - first), r = blockIdx.x % (GROUP * tiles_n);
        tm = first + r % rows, tn = r / rows;
    }
    const int row0 = tm * SG_BM, col0 = tn * SG_BN, tid = threadIdx.x;

    // Where this thread's copies go: A row tid / (BK/4), float4 tid % (BK/4); B row tid / 32, float4
    // tid % 32; in stage 0 of shared memory, from tile 0 of the matrices (a tile later: BK columns of
    // A, BK rows of B further on).
    float *as0 = smem + (tid / (BK / 4)) * AP + (tid % (BK / 4)) * 4;
    float *bs0 = smem + SG_BM * AP + (tid / 32) * SG_BN + (tid % 32) * 4;
    const float *a_next = A + (size_t)(row0 + tid / (BK / 4)) * K + (tid % (BK / 4)) * 4;
    const float *b_next = B + (size_t)(tid / 32) * N + col0 + (tid % 32) * 4;
    const size_t b_step = (size_t)BK * N;

    // This thread's outputs: rows r_base + (i % 4) * RS1 + (i / 4) * RS2, columns c_base + (j % 4)
    // + (j / 4) * CH, for i, j in 0..7.
    int r_base, c_base;
    if (LAYOUT == SG_LESSON05) {
        r_base = (tid / 16) * 4, c_base = (tid % 16) * 4;
    } else {
        const int warp = tid / 32, lane = tid % 32;
        r_base = (warp % 2) * 64 + lane % 8, c_base = (warp / 2) * 32 + (lane / 8) * 4;
    }
    constexpr int RS1 = LAYOUT == SG_LESSON05 ? 1 : 8, RS2 = LAYOUT == SG_LESSON05 ? 64 : 32;
    constexpr int CH = LAYOUT == SG_LESSON05 ? 64 : 16;
    float *const c_out = C + (size_t)(row0 + r_base) * N + col0 + c_base; // output (i, j) = 0: fewer registers live in the loop

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    // Prologue: tiles 0 .. STAGES-2 in flight, one batch (commit) each, empty batches past the end
    // so that "wait for all but the STAGES-2 newest" always means "tile t has landed".
    const int tiles = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles) {
            sg_copy_tile<BK>(as0 + s * SgStage<BK>::FLOATS, bs0 + s * SgStage<BK>::FLOATS, a_next, b_next, K, N);
            a_next += BK, b_next += b_step;
        }
        __pipeline_commit();
    }

    int read = 0, write = STAGES - 1; // the stage of tile t, and of tile t + STAGES - 1
    for (int t = 0; t < tiles; t++) {
        __pipeline_wait_prior(STAGES - 2); // this thread's copies of tile t have landed ...
        __syncthreads(); // ... and everyone's; and everyone is done with tile t - 1 (stage `write`)
        if (t + STAGES - 1 < tiles) {
            sg_copy_tile<BK>(as0 + write * SgStage<BK>::FLOATS, bs0 + write * SgStage<BK>::FLOATS, a_next, b_next, K, N);
            a_next += BK, b_next += b_step;
        }
        __pipeline_commit();

        const float *As = smem + read * SgStage<BK>::FLOATS;
        const float *Bs = As + SG_BM * AP;
#pragma unroll
        for (int k0 = 0; k0 < BK; k0 += 4) {
            float a[8][4]; // this thread's 8 rows of A at k0 .. k0 + 3: one 16-byte read each
#pragma unroll
            for (int i = 0; i < 8; i++) {
                float4 v = *reinterpret_cast<const float4 *>(&As[(r_base + (i % 4) * RS1 + (i / 4) * RS2) * AP + k0]);
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;
            }
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                float b[8];
                float4 v = *reinterpret_cast<const float4 *>(&Bs[(k0 + kk) * SG_BN + c_base]);
                b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
                v = *reinterpret_cast<const float4 *>(&Bs[(k0 + kk) * SG_BN + c_base + CH]);
                b[4] = v.x, b[5] = v.y, b[6] = v.z, b[7] = v.w;
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[i][j] += a[i][kk] * b[j];
            }
        }
        read = read + 1 == STAGES ? 0 : read + 1;
        write = write + 1 == STAGES ? 0 : write + 1;
    }

    // Every output row as two 16-byte stores (full 32-byte sectors in both layouts).
#pragma unroll
    for (int i = 0; i < 8; i++) {
        float *c = c_out + (size_t)((i % 4) * RS1 + (i / 4) * RS2) * N;
        *reinterpret_cast<float4 *>(c) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4 *>(c + CH) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

// The launcher of one configuration: checks the requirements above, opts in to more than 48 KiB
// of dynamic shared memory where the stages need it, launches one block per 128 x 128 tile.
template <int BK, int STAGES, int LAYOUT, int MIN_BLOCKS, int GROUP>
static cudaError_t sgemm_async_launch(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    const long long limit = 2147483647LL;
    if (M < 0 || K < 0 || N < 0 || M % SG_BM || N % SG_BN || K % BK) return cudaErrorInvalidValue;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    if (((uintptr_t)d_a | (uintptr_t)d_b | (uintptr_t)d_c) % 16) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    constexpr size_t smem = STAGES * SgStage<BK>::BYTES;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(sgemm_async_kernel<BK, STAGES, LAYOUT, MIN_BLOCKS, GROUP>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    const unsigned blocks = (unsigned)(M / SG_BM) * (unsigned)(N / SG_BN);
    sgemm_async_kernel<BK, STAGES, LAYOUT, MIN_BLOCKS, GROUP><<<blocks, SG_THREADS, smem>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}

// The steps: BK, stages, layout, values of k per read of A, blocks per multiprocessor, band height.
static const struct {
    const char *name;
    SgemmFn fn;
} kSteps[] = {
    // BK, stages, layout, blocks per multiprocessor, band height
    {"step 1: cp.async, 2 stages, BK 8", sgemm_async_launch<8, 2, SG_LESSON05, 2, 0>},
    {"step 2: 3 stages, BK 16", sgemm_async_launch<16, 3, SG_LESSON05, 2, 0>},
    {"step 2: 4 stages, BK 16", sgemm_async_launch<16, 4, SG_LESSON05, 2, 0>},
    {"step 3: warp tiles, 3 stages, BK 16", sgemm_async_launch<16, 3, SG_WARPS, 2, 0>},
    {"step 3: warp tiles, 4 stages, BK 16", sgemm_async_launch<16, 4, SG_WARPS, 2, 0>},
    {"step 3: warp tiles, 3 stages, BK 32", sgemm_async_launch<32, 3, SG_WARPS, 2, 0>},
    {"step 3: + bands of 8 block rows, BK 16", sgemm_async_launch<16, 3, SG_WARPS, 2, 8>},
};

/** Step k: its name and launcher; returns 0 past the last step. */
extern "C" int sgemm_step(int k, const char **name, SgemmFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
