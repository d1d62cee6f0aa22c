// matrix_mul_shared.cu - C = A * B with 16x16 shared-memory tiles and __syncthreads(),
// on matrix sizes that are not multiples of the tile size (edge tiles are zero-padded).
// Build and run: nvcc -o matrix_mul_shared matrix_mul_shared.cu && ./matrix_mul_shared
#include <vector>
#include "sample_helpers.h"

#define TILE 16

// A is M x K, B is K x N, C is M x N, all row-major.
__global__ void matMulTiled(const float* A, const float* B, float* C, int M, int K, int N)
{
    __shared__ float tileA[TILE][TILE];
    __shared__ float tileB[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int aCol = t * TILE + threadIdx.x;
        int bRow = t * TILE + threadIdx.y;
        tileA[threadIdx.y][threadIdx.x] = (row < M && aCol < K) ? A[row * K + aCol] : 0.0f;
        tileB[threadIdx.y][threadIdx.x] = (bRow < K && col < N) ? B[bRow * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += tileA[threadIdx.y][k] * tileB[k][threadIdx.x];
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main()
{
    pickDevice(3);
    const int M = 70, K = 50, N = 60;
    std::vector<float> A(M * K), B(K * N), C(M * N), ref(M * N);
    Lcg rng(2024);
    for (auto& x : A) x = rng.nextFloat(-1.0f, 1.0f);
    for (auto& x : B) x = rng.nextFloat(-1.0f, 1.0f);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0.0;
            for (int k = 0; k < K; ++k) s += (double)A[i * K + k] * B[k * N + j];
            ref[i * N + j] = (float)s;
        }

    float *dA, *dB, *dC;
    checkCuda(cudaMalloc(&dA, A.size() * sizeof(float)));
    checkCuda(cudaMalloc(&dB, B.size() * sizeof(float)));
    checkCuda(cudaMalloc(&dC, C.size() * sizeof(float)));
    checkCuda(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemset(dC, 0xFF, C.size() * sizeof(float)));  // NaN pattern: catches unwritten outputs

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    printf("C(%dx%d) = A(%dx%d) * B(%dx%d), grid %ux%u of %ux%u threads\n", M, N, M, K, K, N,
           grid.x, grid.y, block.x, block.y);
    matMulTiled<<<grid, block>>>(dA, dB, dC, M, K, N);
    checkLastKernel();
    checkCuda(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dA));
    checkCuda(cudaFree(dB));
    checkCuda(cudaFree(dC));

    // |each term| <= 1, K = 50 terms in float: an absolute error of 1e-4 is generous.
    int bad = compareNear("C", C.data(), ref.data(), M * N, 1e-5, 1e-4);
    return finish(bad == 0);
}
