/* cuda_arch.cu -- issue 27: __CUDA_ARCH__ as nvcc's two passes see it. Inside __device__ and
 * __global__ functions it is 900 (an sm_90 device pass), so `#if __CUDA_ARCH__ >= 610` takes its
 * device branch, also in a header and through a macro defined under #ifdef __CUDA_ARCH__; host
 * code and __host__ __device__ functions see the host pass (no __CUDA_ARCH__), as nvcc's host pass
 * does. Usage: cuda_arch arch; prints "arch: PASS". */
#include "expect.h"
#include "cuda_arch.cuh"

__device__ int dp4a_or_fallback(int a, int b) {
#if __CUDA_ARCH__ >= 610
    return __dp4a(a, b, 0) + 1000; /* the sm_61+ branch */
#else
    return -1; /* an older GPU's fallback */
#endif
}

__host__ __device__ int either() {
#ifdef __CUDA_ARCH__
    return 1;
#else
    return 0; /* the simulator runs __host__ __device__ functions as the host pass compiles them */
#endif
}

__global__ void report(int *out) {
    out[0] = dp4a_or_fallback(0x01010101, 0x02020202);
    out[1] = header_arch();
    out[2] = COMPILED_FOR;
#ifdef __CUDA_ARCH__
    out[3] = __CUDA_ARCH__;
#else
    out[3] = 0;
#endif
    out[4] = either();
}

static int mode_arch() {
    int *d, h[5];
    cudaMalloc(&d, sizeof h);
    report<<<1, 1>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 1008, "`#if __CUDA_ARCH__ >= 610` in a __device__ function gave %d (1008: its device branch)", h[0]);
    EXPECT(h[1] == 900, "a header's __device__ function saw __CUDA_ARCH__ = %d", h[1]);
    EXPECT(h[2] == 2, "a macro defined under #ifdef __CUDA_ARCH__ was %d in a kernel (2: the device pass's)", h[2]);
    EXPECT(h[3] == 900, "__CUDA_ARCH__ in a kernel = %d", h[3]);
    EXPECT(h[4] == 0, "a __host__ __device__ function called from a kernel saw the device pass");
#ifdef __CUDA_ARCH__
    EXPECT(false, "host code saw __CUDA_ARCH__");
#endif
    EXPECT(COMPILED_FOR == 1 && either() == 0, "host code saw the device pass's macro or branch");
    cudaFree(d);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"arch", mode_arch}); }
