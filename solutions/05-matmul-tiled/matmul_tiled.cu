/**
 * @file matmul_tiled.cu
 * @brief Lesson 05: matrix multiplication with shared-memory tiles and __syncthreads() (05.1),
 *        then register tiles where each thread computes an 8 x 8 piece of C (05.2). (Reference solution.)
 */
#include <stdint.h>

#include "matmul_tiled.h"

// ---- given: size checks shared by every launcher --------------------------------------------

// The kernels index with int, so every matrix must have fewer than 2^31 elements.
static cudaError_t matmul_validate(int M, int K, int N) {
    if (M < 0 || K < 0 || N < 0) return cudaErrorInvalidValue;
    const long long limit = 2147483647LL;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    return cudaSuccess;
}

// ---- given: the naive kernel, the benchmark's baseline ---------------------------------------

// One thread per element of C, everything read from global memory: each element of A is read N
// times and each element of B M times (the caches absorb some of that, not all).
__global__ void matmul_naive_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x; // x is the column: neighbouring threads read neighbouring B
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

extern "C" cudaError_t matmul_reference_naive_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t err = matmul_validate(M, K, N);
    if (err != cudaSuccess || M == 0 || N == 0) return err;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul_naive_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}

// TODO(05.1) begin
// A block of TILE x TILE threads computes one TILE x TILE tile of C. It walks along K one tile at
// a time: every thread copies one element of A's tile and one of B's tile into shared memory,
// then each thread does TILE multiply-adds from shared memory. Each element loaded from global
// memory is thus used TILE times instead of once.
#define TILE MATMUL_TILE

__global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[TILE][TILE]; // As[ty][k]: A(row, t + k) for the block's rows
    __shared__ float Bs[TILE][TILE]; // Bs[k][tx]: B(t + k, col) for the block's columns
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty; // x is the column: a warp touches consecutive words of B and C
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        // Partial tiles (at the right and bottom edges, and the last one along K) are padded with
        // zeros: a zero adds nothing to the sum, and no slot is left holding an older value.
        int a_col = t + tx, b_row = t + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        // Barrier 1: the tiles are complete before anyone reads them (thread (ty, tx) reads slots
        // that 2 * (TILE - 1) other threads store).
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        // Barrier 2: everyone has finished reading these tiles before the next pass overwrites them.
        __syncthreads();
    }
    // Threads outside C still took part in loading and in both barriers; only now do they drop out.
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" cudaError_t matmul_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t err = matmul_validate(M, K, N);
    if (err != cudaSuccess || M == 0 || N == 0) return err;
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); // x covers the N columns, y the M rows
    matmul_tiled_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}
// TODO(05.1) end

// TODO(05.2) begin
// A block of 256 threads computes a 128 x 128 tile of C; thread (ty, tx) of its 16 x 16 layout
// computes 8 x 8 of those elements, held in 64 registers. Per step along K, the block stages a
// 128 x 8 slice of A and an 8 x 128 slice of B in shared memory; each thread reads 8 values of A
// and 8 of B from it and does 64 multiply-adds: 4 FMAs per shared-memory float instead of 05.1's 1/2.
#define RT_BM 128 // rows of C per block
#define RT_BN 128 // columns of C per block
#define RT_BK 8   // K-step: the depth of the shared-memory slices
#define RT_TM 8   // rows of C per thread
#define RT_TN 8   // columns of C per thread
#define RT_THREADS ((RT_BM / RT_TM) * (RT_BN / RT_TN)) // 256
#define RT_PAD 4  // extra columns in As: keeps its transposed stores free of bank conflicts

// Loads this thread's share of the next slices into registers: one float4 of A (4 consecutive k of
// one row) and one float4 of B (4 consecutive columns of one row). Out-of-range elements are 0.
// VEC: K and N are multiples of 4 and the pointers 16-byte aligned, so whole float4 loads are
// legal and a float4 is either entirely inside the matrix or entirely outside it.
template <bool VEC>
__device__ __forceinline__ void rt_load(const float *A, const float *B, int M, int K, int N, int a_row, int a_k, int b_k, int b_col,
                                        float4 &a, float4 &b) {
    // (a_row, a_k): the first of A's 4 elements; (b_k, b_col): the first of B's 4 elements.
    if (VEC) {
        a = (a_row < M && a_k < K) ? *reinterpret_cast<const float4 *>(&A[a_row * K + a_k]) : make_float4(0.f, 0.f, 0.f, 0.f);
        b = (b_k < K && b_col < N) ? *reinterpret_cast<const float4 *>(&B[b_k * N + b_col]) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
        bool r_ok = a_row < M, k_ok = b_k < K;
        a.x = (r_ok && a_k + 0 < K) ? A[a_row * K + a_k + 0] : 0.0f;
        a.y = (r_ok && a_k + 1 < K) ? A[a_row * K + a_k + 1] : 0.0f;
        a.z = (r_ok && a_k + 2 < K) ? A[a_row * K + a_k + 2] : 0.0f;
        a.w = (r_ok && a_k + 3 < K) ? A[a_row * K + a_k + 3] : 0.0f;
        b.x = (k_ok && b_col + 0 < N) ? B[b_k * N + b_col + 0] : 0.0f;
        b.y = (k_ok && b_col + 1 < N) ? B[b_k * N + b_col + 1] : 0.0f;
        b.z = (k_ok && b_col + 2 < N) ? B[b_k * N + b_col + 2] : 0.0f;
        b.w = (k_ok && b_col + 3 < N) ? B[b_k * N + b_col + 3] : 0.0f;
    }
}

template <bool VEC>
__global__ void __launch_bounds__(RT_THREADS, 2) matmul_register_tiled_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                                                               float *__restrict__ C, int M, int K, int N) {
    // As is stored transposed, As[k][m], so that a thread's 8 values of A for one k sit side by
    // side and come out of shared memory as two float4 reads, like B's.
    __shared__ __align__(16) float As[RT_BK][RT_BM + RT_PAD];
    __shared__ __align__(16) float Bs[RT_BK][RT_BN];

    const int tid = threadIdx.x;
    const int tx = tid % (RT_BN / RT_TN), ty = tid / (RT_BN / RT_TN);
    const int row0 = blockIdx.y * RT_BM, col0 = blockIdx.x * RT_BN;
    // Loading roles: 2 threads per row of the 128 x 8 slice of A, 32 threads per row of the 8 x 128 slice of B.
    const int a_r = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_c = (tid % 32) * 4;

    // This thread's rows are ty*4 + {0..3} and 64 + ty*4 + {0..3} (columns likewise with tx), not 8
    // adjacent ones: then the 8 threads that read shared memory together read 32 adjacent floats
    // of Bs (no bank conflicts), and the stores to C are 16-byte pieces of full 256-byte rows.
    float acc[RT_TM][RT_TN];
#pragma unroll
    for (int i = 0; i < RT_TM; i++)
#pragma unroll
        for (int j = 0; j < RT_TN; j++) acc[i][j] = 0.0f;

    float4 a_next, b_next;
    rt_load<VEC>(A, B, M, K, N, row0 + a_r, a_k, b_k, col0 + b_c, a_next, b_next);
    for (int t = 0; t < K; t += RT_BK) {
        // Store the slices loaded during the previous step (or before the loop).
        As[a_k + 0][a_r] = a_next.x;
        As[a_k + 1][a_r] = a_next.y;
        As[a_k + 2][a_r] = a_next.z;
        As[a_k + 3][a_r] = a_next.w;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_c]) = b_next;
        // Barrier 1: the slices are complete before anyone reads them.
        __syncthreads();
        // Start loading the next slices now; the loads are in flight while we compute (prefetch).
        if (t + RT_BK < K) rt_load<VEC>(A, B, M, K, N, row0 + a_r, t + RT_BK + a_k, t + RT_BK + b_k, col0 + b_c, a_next, b_next);
#pragma unroll
        for (int k = 0; k < RT_BK; k++) {
            float a[RT_TM], b[RT_TN];
            float4 v;
            v = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
            v = *reinterpret_cast<const float4 *>(&As[k][ty * 4 + RT_BM / 2]);
            a[4] = v.x, a[5] = v.y, a[6] = v.z, a[7] = v.w;
            v = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
            v = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4 + RT_BN / 2]);
            b[4] = v.x, b[5] = v.y, b[6] = v.z, b[7] = v.w;
#pragma unroll
            for (int i = 0; i < RT_TM; i++)
#pragma unroll
                for (int j = 0; j < RT_TN; j++) acc[i][j] += a[i] * b[j];
        }
        // Barrier 2: everyone is done reading As and Bs before the next pass stores into them.
        __syncthreads();
    }

    // Write the 8 x 8 results; the guards drop the parts of edge blocks that lie outside C.
#pragma unroll
    for (int i = 0; i < RT_TM; i++) {
        int row = row0 + (i < 4 ? ty * 4 + i : RT_BM / 2 + ty * 4 + i - 4);
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int col = col0 + h * (RT_BN / 2) + tx * 4;
            const float *v = &acc[i][h * 4];
            if (VEC) {
                if (col < N) *reinterpret_cast<float4 *>(&C[row * N + col]) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (col + j < N) C[row * N + col + j] = v[j];
            }
        }
    }
}

extern "C" cudaError_t matmul_register_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t err = matmul_validate(M, K, N);
    if (err != cudaSuccess || M == 0 || N == 0) return err;
    dim3 block(RT_THREADS);
    dim3 grid((N + RT_BN - 1) / RT_BN, (M + RT_BM - 1) / RT_BM);
    // float4 loads need 16-byte alignment: every row must start on a multiple of 4 floats.
    bool vec = K % 4 == 0 && N % 4 == 0 && (((uintptr_t)d_a | (uintptr_t)d_b | (uintptr_t)d_c) % 16) == 0;
    if (vec) matmul_register_tiled_kernel<true><<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    else matmul_register_tiled_kernel<false><<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}
// TODO(05.2) end
