/* yardstick.cu -- the profiler's yardstick: kernels whose counters were measured with Nsight Compute
 * on an H200. Built with `tools/simcc --profile`, run with SIM_PROFILE=1; the Check suite compares
 * the simulator's figures with these exactly.
 *
 * Measured on the H200 with 4096 blocks of 256 threads:
 *   coalesced  b[i] = a[i] * 2       32,768 global load requests,   131,072 sectors (4.0 per request)
 *   strided    b[i] = a[i * 32] * 2  32,768 global load requests, 1,048,576 sectors (32.0 per request)
 * Here 64 blocks of 256 threads (1/64 of the work), so the expected figures are exactly 1/64 of those:
 *   coalesced  512 requests,  2,048 sectors;  strided  512 requests, 16,384 sectors
 * (and the stores b[i], coalesced in both, 512 requests and 2,048 sectors).
 *   one block of 32x32 threads, t[tx][ty] = ...; __syncthreads(); ... = t[tx][ty]:
 *   __shared__ float t[32][32]  992 bank conflicts on loads and 992 on stores (as measured)
 *   __shared__ float t[32][33]    0 and 0
 *   divergent  if (i % 2) a[i] = sinf(a[i]); else a[i] = cosf(a[i]);
 *              19.51 (19.61 in a later run) threads per executed instruction; the if splits every
 *              warp at line 51 in ncu's source view. The simulator estimates GPU instructions (sinf
 *              at its measured cost) and gets 17.7; the Check suite allows 15 %. All of ncu's figures:
 *              tests/sim/profile/yardstick-h200.csv (keep line 51 where it is: the figures name it).
 *   warp_uniform  the same on (i / 32) % 2: no warp splits, 32 threads per instruction
 *   contended  atomicAdd(&count[0], 1) by every thread: one address takes all the atomics */
#include <cstdio>

__global__ void coalesced(const float *a, float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] * 2;
}

__global__ void strided(const float *a, float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i * 32] * 2;
}

__global__ void shared_conflicts(const float *in, float *out) {
    __shared__ float t[32][32];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    t[tx][ty] = in[ty * 32 + tx];
    __syncthreads();
    out[ty * 32 + tx] = t[tx][ty] * 2;
}

__global__ void shared_padded(const float *in, float *out) {
    __shared__ float t[32][33];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    t[tx][ty] = in[ty * 32 + tx];
    __syncthreads();
    out[ty * 32 + tx] = t[tx][ty] * 2;
}

__global__ void divergent(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i % 2) a[i] = sinf(a[i]);
    else a[i] = cosf(a[i]);
}

__global__ void warp_uniform(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i / 32) % 2) a[i] = sinf(a[i]);
    else a[i] = cosf(a[i]);
}

__global__ void contended(unsigned *count) { atomicAdd(&count[0], 1u); }

int main() {
    const int blocks = 64, threads = 256, n = blocks * threads;
    float *a, *b;
    cudaMalloc(&a, sizeof(float) * n * 32);
    cudaMalloc(&b, sizeof(float) * n);
    cudaMemset(a, 0, sizeof(float) * n * 32);
    coalesced<<<blocks, threads>>>(a, b, n);
    strided<<<blocks, threads>>>(a, b, n);
    shared_conflicts<<<1, dim3(32, 32)>>>(a, b);
    shared_padded<<<1, dim3(32, 32)>>>(a, b);
    divergent<<<blocks, threads>>>(b, n);
    warp_uniform<<<blocks, threads>>>(b, n);
    contended<<<blocks, threads>>>((unsigned *)a);
    cudaError_t e = cudaDeviceSynchronize();
    cudaFree(a);
    cudaFree(b);
    printf("%s\n", e == cudaSuccess ? "PASS" : cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
