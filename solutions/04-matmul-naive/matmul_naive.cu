/**
 * @file matmul_naive.cu
 * @brief Lesson 04: matrix multiplication with one thread per output element -- 2D grids, which
 *        index goes to x, guards on both edges, and the same product through cuBLAS. (Reference solution.)
 */
#include "matmul_naive.h"

// TODO(04.1) begin
// Thread (x, y) of the grid computes C[row = y][col = x]. Column on x because the 32 threads of a
// warp have consecutive threadIdx.x: with col on x they read 32 neighbouring floats of B's row k
// and write 32 neighbouring floats of C (each a single wide memory transaction), while all of
// them read the same A[row][k] (one broadcast). With row on x, every thread of the warp would read
// a different row of A, K floats apart, and write C with a stride of N floats.
__global__ void matmul_naive_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    // The grid comes in whole blocks, so it overhangs the matrix on the right and at the bottom.
    if (row < M && col < N) {
        // Sum in a register and store once: C is written by exactly one thread, never read.
        float sum = 0.0f;
        // size_t products: row * K and k * N overflow int once a matrix passes 2^31 elements.
        for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        C[(size_t)row * N + col] = sum;
    }
}

extern "C" cudaError_t matmul_naive_gpu(const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int block_x, int block_y) {
    if (M == 0 || N == 0) return cudaSuccess; // nothing to compute, and an empty grid is a launch error
    dim3 block(block_x, block_y);
    // x counts columns (N), y counts rows (M); both rounded up to whole blocks.
    dim3 grid((N + block_x - 1) / block_x, (M + block_y - 1) / block_y);
    matmul_naive_kernel<<<grid, block>>>(d_A, d_B, d_C, M, K, N);
    return cudaGetLastError();
}
// TODO(04.1) end

// TODO(04.2) begin
// cuBLAS is column-major: it reads an R x C matrix as C columns of R floats. Our row-major M x N
// array C, read that way, is the N x M matrix C^T, and likewise A's array is A^T (K x M) and B's is
// B^T (N x K). So instead of C = A B we ask cuBLAS for C^T = B^T A^T, which needs no copies: pass
// B first, swap M and N, and give each matrix its row length as leading dimension.
extern "C" cublasStatus_t matmul_cublas_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N) {
    const float alpha = 1.0f, beta = 0.0f; // C = 1 * (B^T A^T) + 0 * C: the old C is not read
    return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N,
                       N, M, K,       // C^T is N x M; the shared dimension is still K
                       &alpha, d_B, N, // B^T: N x K, columns of N floats
                       d_A, K,         // A^T: K x M, columns of K floats
                       &beta, d_C, N); // C^T: N x M, columns of N floats
}
// TODO(04.2) end
