/* typical_kernels.cuh -- two kernels of the kind the lessons write, shared by the simulator's
 * benchmark (bench/bench_sim.cu times them) and its parallel-launch test (parallel/parallel_blocks.cu
 * runs them on several cores and compares): one copy, so the test covers what the benchmark times.
 *   matmul_tiled    C = A B for n x n matrices, n a multiple of TILE, in TILE x TILE shared tiles
 *                   (a __syncthreads-heavy kernel); launch n / TILE x n / TILE blocks of TILE x TILE
 *   reduce_shuffle  *out += the sum of in[0..n), by warp shuffles, then one atomicAdd per block
 *                   (float for the benchmark, int for exact sums in the test) */
#ifndef TESTS_SIM_TYPICAL_KERNELS_CUH
#define TESTS_SIM_TYPICAL_KERNELS_CUH

#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

template <typename T>
__global__ void reduce_shuffle(const T *in, T *out, int n) {
    __shared__ T warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = i < n ? in[i] : T(0);
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : T(0);
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}

#endif
