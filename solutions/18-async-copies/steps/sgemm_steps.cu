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
 * Steps 1-3 are one kernel template, sgemm_async_kernel, with lesson 05's shape: a block of 256
 * threads computes a 128 x 128 tile of C, each thread 8 x 8 outputs in registers, walking K in slices
 * of BK; each thread reads its 8 values of A and 8 of B for one k from shared memory and does 64
 * fused multiply-adds with them. Step 4 (sgemm_wide_kernel, explained above it) doubles the outputs
 * a thread, to cuBLAS's 16 x 8. Why each step is faster:
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
 * any size): M and N multiples of 128 (step 4's tiles of 256 may lie half outside C), K a multiple
 * of BK (32 covers all steps), every matrix below 2^31 elements, the three pointers 16-byte
 * aligned (cudaMalloc's are). M = 0 or N = 0 launches nothing; K = 0 gives C = 0. bench.c checks
 * every step against the CPU (C filled with NaN first) on M x K x N = 128 x 64 x 256, 256 x 32 x 128
 * (fewer slices than stages; for step 4 a tile half outside C either way) and 384 x 512 x 384, and
 * that it refuses N = 130, before timing it; .perf/sgemm_tune.cu (not in the repository) times more
 * configurations of the same template against cuBLAS.
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

// Which tile of C block b (a 1-D grid) computes: row by row for GROUP == 0, else in bands of GROUP
// block rows (column by column inside a band), so that the blocks running at once use fewer
// distinct rows of A.
template <int GROUP>
__device__ __forceinline__ void sg_tile_of_block(int tiles_m, int tiles_n, int *tm, int *tn) {
    if (GROUP == 0) {
        *tm = blockIdx.x / tiles_n, *tn = blockIdx.x % tiles_n;
    } else {
        const int band = blockIdx.x / (GROUP * tiles_n), first = band * GROUP;
        const int rows = min(GROUP, tiles_m - first), r = blockIdx.x % (GROUP * tiles_n);
        *tm = first + r % rows, *tn = r / rows;
    }
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

    int tm, tn;
    sg_tile_of_block<GROUP>(M / SG_BM, N / SG_BN, &tm, &tn);
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

// ---- Step 4: cuBLAS's shape: 128 outputs a thread, one block a multiprocessor ---------------------
//
// Nsight Compute on the H200 (docs/results/steps-h200.md): step 3 and cuBLAS's kernel execute the
// same 2.15 G FFMA at 4096^3, but cuBLAS keeps the FMA pipe busier (79 % against 65 %). Its kernel
// (..._tilesize256x128x8_stage3_warpsize4x2x1_ffma) gives each of 256 threads 16 x 8 outputs, 128
// accumulators: for one k a thread reads 16 + 8 = 24 values for 128 FFMA (step 3: 16 for 64), so
// shared memory delivers half as many bytes per multiply-add. Step 4 takes that shape:
//
// - A block computes a BM x BN tile of C, 256 x 128 (or 128 x 256): 16 x 16 threads, each
//   BM/16 x BN/16 = 16 x 8 (or 8 x 16) outputs. 8 warps of 64 x 64, the lanes 4 x 8 (or 8 x 4).
//   __launch_bounds__(256, 1): one block a multiprocessor, up to 255 registers a thread.
// - A is stored transposed, As[k][m] (k-major), so a thread's 16 values of A for one k are 4 float4
//   reads and its 8 values of B 2 float4 reads. In a warp, the lanes that read A ask for LM = 4 (or
//   8) different float4 that lie side by side, and those that read B for LN = 8 (or 4): one pass
//   of shared memory each, the rest broadcast.
// - cp.async copies bytes as they lie, so the transposition is done by 4-byte copies
//   (__pipeline_memcpy_async(dst, src, 4)): a warp's copy instruction takes 4 rows x 8 values of
//   k of A (4 whole 32-byte sectors) and puts them in As[k][m..m+3] for 8 k; rows of As are
//   BM + 4 floats long, so those 32 stores fall on 32 different banks. BK of A is BM BK / 256
//   copies a thread (8 for BK = 8), B stays 16-byte copies: 9 copy instructions for 1024 FFMA.
// - Register double buffering: while the FFMA of value k of the slice run, the fragments of k + 1
//   are read; the barrier of the pipeline sits at the last k of a slice, after which the thread
//   reads the next slice's first fragments (hidden by the last k's 128 FFMA) and refills the stage
//   it just finished.
// - Tiles half outside C: M and N stay multiples of 128 (as steps 1-3). Where the tile's second
//   half of rows (columns) lies past M (N), its copies read the first half's rows again (valid
//   memory) and the warps of that half store nothing: whole warps, since warp tiles are 64 x 64.

// The shape of one configuration: a stage is As[BK][BM + 4] then Bs[BK][BN].
template <int BM, int BN, int BK>
struct SgWide {
    static_assert(BM * BN == 256 * 128 && (BM == 128 || BM == 256), "256 threads of 128 outputs");
    // (BK 64 gave wrong products on the simulator: its copy of A is not laid out for 64; not needed, since
    // BK 32 was the fastest on the H200)
    static_assert(BK % 8 == 0 && 32 % BK == 0, "BK 8, 16 or 32");
    static constexpr int TM = BM / 16, TN = BN / 16; // outputs a thread: rows, columns
    static constexpr int LM = 64 / TM, LN = 64 / TN; // lanes of a warp along M, along N (LM LN = 32)
    static constexpr int WN = BN / 64;               // warps along N (warp tiles 64 x 64)
    static constexpr int AP = BM + 4;                // pitch of As: 32 4-byte copies on 32 banks
    static constexpr int A_FLOATS = BK * AP, FLOATS = BK * AP + BK * BN;
    static constexpr size_t BYTES = FLOATS * sizeof(float);
    static constexpr int CA = BM * BK / 256, A_ROWS = 256 / BK; // 4-byte copies of A a thread, rows between them
    static constexpr int CB = BK * BN / 1024, B_ROWS = 1024 / BN; // 16-byte copies of B a thread, rows between them
};

// One slice into one stage, no commit. as: this thread's first element of As in the stage; a_lo:
// its first element of A for the slice, a_hi: the same shifted back 128 rows where the tile's
// second half of rows lies past M (else a_lo); bs, b: likewise for B (the shift already in b).
template <int BM, int BN, int BK>
__device__ __forceinline__ void sgw_copy_tile(float *as, float *bs, const float *a_lo, const float *a_hi, const float *b, int K, int N) {
    using S = SgWide<BM, BN, BK>;
#pragma unroll
    for (int j = 0; j < S::CA; j++) // copy j: rows j A_ROWS ..., the second half of the tile from j = CA / 2 (BM = 256)
        __pipeline_memcpy_async(as + j * S::A_ROWS, (BM == 256 && j >= S::CA / 2 ? a_hi : a_lo) + (size_t)j * S::A_ROWS * K, 4);
#pragma unroll
    for (int j = 0; j < S::CB; j++) __pipeline_memcpy_async(bs + j * S::B_ROWS * BN, b + (size_t)j * S::B_ROWS * N, 16);
}

// A thread's fragments for value k of a slice: fa[16] (or 8) of A, fb[8] (or 16) of B, as float4
// reads. ra, rb: its first float4 of As and Bs in the slice's stage.
template <int BM, int BN, int BK>
__device__ __forceinline__ void sgw_fragments(float *fa, float *fb, const float *ra, const float *rb, int k) {
    using S = SgWide<BM, BN, BK>;
#pragma unroll
    for (int g = 0; g < S::TM / 4; g++) {
        const float4 v = *reinterpret_cast<const float4 *>(ra + k * S::AP + g * S::LM * 4);
        fa[4 * g] = v.x, fa[4 * g + 1] = v.y, fa[4 * g + 2] = v.z, fa[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < S::TN / 4; h++) {
        const float4 v = *reinterpret_cast<const float4 *>(rb + k * BN + h * S::LN * 4);
        fb[4 * h] = v.x, fb[4 * h + 1] = v.y, fb[4 * h + 2] = v.z, fb[4 * h + 3] = v.w;
    }
}

// C = A B for M, N multiples of 128 and K a multiple of BK: one BM x BN tile a block, STAGES slices
// of BK in shared memory, GROUP > 0: the blocks walk C in bands of GROUP block rows.
template <int BM, int BN, int BK, int STAGES, int GROUP>
__global__ void __launch_bounds__(SG_THREADS, 1)
    sgemm_wide_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int K, int N) {
    using S = SgWide<BM, BN, BK>;
    static_assert(STAGES >= 2, "stages");
    extern __shared__ float4 sg_smem[];
    float *smem = reinterpret_cast<float *>(sg_smem);

    int tm, tn;
    sg_tile_of_block<GROUP>((M + BM - 1) / BM, (N + BN - 1) / BN, &tm, &tn);
    const int row0 = tm * BM, col0 = tn * BN, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

    // Copies of A: warp w's copy j takes rows (w / (BK/8)) 4 + j A_ROWS + lane / 8, values of k
    // (w % (BK/8)) 8 + lane % 8; of B: row tid / (BN/4) + j B_ROWS, float4 tid % (BN/4).
    const int arow = (warp / (BK / 8)) * 4 + lane / 8, ak = (warp % (BK / 8)) * 8 + lane % 8;
    float *const as0 = smem + ak * S::AP + arow;
    const float *a_lo = A + (size_t)(row0 + arow) * K + ak;
    const float *a_hi = a_lo - (BM == 256 && row0 + 128 >= M ? (size_t)128 * K : 0);
    const int bk = tid / (BN / 4), bn = (tid % (BN / 4)) * 4;
    float *const bs0 = smem + S::A_FLOATS + bk * BN + bn;
    const float *b_next = B + (size_t)bk * N + (col0 + bn < N ? col0 + bn : col0 + bn - 128);
    const size_t b_step = (size_t)BK * N;

    // This thread's outputs: rows wm 64 + g 4 LM + lm 4 + {0..3}, columns wn 64 + h 4 LN + ln 4 + {0..3}.
    const int wm = warp / S::WN, wn = warp % S::WN, lm = lane / S::LN, ln = lane % S::LN;
    const float *const ra0 = smem + wm * 64 + lm * 4;
    const float *const rb0 = smem + S::A_FLOATS + wn * 64 + ln * 4;

    float acc[S::TM][S::TN];
#pragma unroll
    for (int i = 0; i < S::TM; i++)
#pragma unroll
        for (int j = 0; j < S::TN; j++) acc[i][j] = 0.0f;

    // Prologue: slices 0 .. STAGES-1 in flight, one batch each (empty past the end).
    const int tiles = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES; s++) {
        if (s < tiles) {
            sgw_copy_tile<BM, BN, BK>(as0 + s * S::FLOATS, bs0 + s * S::FLOATS, a_lo, a_hi, b_next, K, N);
            a_lo += BK, a_hi += BK, b_next += b_step;
        }
        __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 1); // slice 0 has landed
    __syncthreads();

    float fa[2][S::TM], fb[2][S::TN]; // the fragments of value k (k % 2) and of the next one
    if (tiles > 0) sgw_fragments<BM, BN, BK>(fa[0], fb[0], ra0, rb0, 0);
    int cur = 0; // the stage of slice t
    for (int t = 0; t < tiles; t++) {
        const int off = cur * S::FLOATS;
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                sgw_fragments<BM, BN, BK>(fa[(k + 1) % 2], fb[(k + 1) % 2], ra0 + off, rb0 + off, k + 1);
            } else if (t + 1 < tiles) {
                // Batches committed: STAGES + t, slice u in batch u; slice t + 1 has landed when at
                // most STAGES - 2 are pending. After the barrier everyone has read all of slice t,
                // so its stage takes slice t + STAGES.
                __pipeline_wait_prior(STAGES - 2);
                __syncthreads();
                if (t + STAGES < tiles) {
                    sgw_copy_tile<BM, BN, BK>(as0 + off, bs0 + off, a_lo, a_hi, b_next, K, N);
                    a_lo += BK, a_hi += BK, b_next += b_step;
                }
                __pipeline_commit();
                cur = cur + 1 == STAGES ? 0 : cur + 1;
                sgw_fragments<BM, BN, BK>(fa[0], fb[0], ra0 + cur * S::FLOATS, rb0 + cur * S::FLOATS, 0);
            }
#pragma unroll
            for (int i = 0; i < S::TM; i++)
#pragma unroll
                for (int j = 0; j < S::TN; j++) acc[i][j] += fa[k % 2][i] * fb[k % 2][j];
        }
    }

    // Warps whose 64 x 64 lies past M or N (the second half of a tile at the edge) store nothing;
    // the others store each row as TN / 4 float4 (a warp's store: whole 32-byte sectors).
    if (row0 + wm * 64 < M && col0 + wn * 64 < N) {
        float *const c_out = C + (size_t)(row0 + wm * 64 + lm * 4) * N + col0 + wn * 64 + ln * 4;
#pragma unroll
        for (int g = 0; g < S::TM / 4; g++)
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int h = 0; h < S::TN / 4; h++) {
                    const float *v = &acc[4 * g + i][4 * h];
                    *reinterpret_cast<float4 *>(c_out + (size_t)(g * 4 * S::LM + i) * N + h * 4 * S::LN) = make_float4(v[0], v[1], v[2], v[3]);
                }
    }
}

// The launcher of one configuration of step 4: the requirements of steps 1-3, one block per BM x BN
// tile (the last row or column of tiles may be half outside C).
template <int BM, int BN, int BK, int STAGES, int GROUP>
static cudaError_t sgemm_wide_launch(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    const long long limit = 2147483647LL;
    if (M < 0 || K < 0 || N < 0 || M % 128 || N % 128 || K % BK) return cudaErrorInvalidValue;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    if (((uintptr_t)d_a | (uintptr_t)d_b | (uintptr_t)d_c) % 16) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    constexpr size_t smem = STAGES * SgWide<BM, BN, BK>::BYTES;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(sgemm_wide_kernel<BM, BN, BK, STAGES, GROUP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    const unsigned blocks = (unsigned)((M + BM - 1) / BM) * (unsigned)((N + BN - 1) / BN);
    sgemm_wide_kernel<BM, BN, BK, STAGES, GROUP><<<blocks, SG_THREADS, smem>>>(d_a, d_b, d_c, M, K, N);
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
    // BM, BN, BK, stages, band height
    {"step 4: 256x128 tile, 16x8, BK 8, 3 stages", sgemm_wide_launch<256, 128, 8, 3, 0>},
    {"step 4: 256x128 tile, 16x8, BK 8, 4 stages", sgemm_wide_launch<256, 128, 8, 4, 0>},
    {"step 4: 256x128 tile, 16x8, BK 16, 3 stages", sgemm_wide_launch<256, 128, 16, 3, 0>},
    {"step 4: 128x256 tile, 8x16, BK 8, 3 stages", sgemm_wide_launch<128, 256, 8, 3, 0>},
    {"step 4: 128x256 tile, 8x16, BK 16, 3 stages", sgemm_wide_launch<128, 256, 16, 3, 0>},
    {"step 4: 256x128, BK 16, 3 st., bands of 8", sgemm_wide_launch<256, 128, 16, 3, 8>},
    // around the best of the first H200 run (128 x 256, BK 16, 3 stages: 0.92-0.93 x cuBLAS)
    {"step 4: 128x256 tile, 8x16, BK 16, 2 stages", sgemm_wide_launch<128, 256, 16, 2, 0>},
    {"step 4: 128x256 tile, 8x16, BK 16, 4 stages", sgemm_wide_launch<128, 256, 16, 4, 0>},
    {"step 4: 128x256 tile, 8x16, BK 32, 3 stages", sgemm_wide_launch<128, 256, 32, 3, 0>},
    {"step 4: 128x256, BK 16, 3 st., bands of 8", sgemm_wide_launch<128, 256, 16, 3, 8>},
    // around the best of the second run (BK 32, 3 stages: 0.94-0.95 x): half as many barriers again
    {"step 4: 128x256 tile, 8x16, BK 32, 2 stages", sgemm_wide_launch<128, 256, 32, 2, 0>},
    {"step 4: 128x256 tile, 8x16, BK 32, 4 stages", sgemm_wide_launch<128, 256, 32, 4, 0>},
};

/** Step k: its name and launcher; returns 0 past the last step. */
extern "C" int sgemm_step(int k, const char **name, SgemmFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
