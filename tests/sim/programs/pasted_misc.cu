/* pasted_misc.cu -- issue 27: smaller things that code from books, courses and blogs uses, as nvcc
 * takes them: cudaSetDeviceFlags(cudaDeviceBlockingSync), cooperative_groups::block_tile_memory
 * handed to this_thread_block(), __device__ functions declared in a .cuh and defined after, with a
 * `static __shared__` array and __noinline__, kernels launched through function pointers, and a
 * kernel with a default argument launched without it.
 * Usage: pasted_misc misc; prints "misc: PASS". */
#include <cooperative_groups.h>
#include "expect.h"
#include "pasted_misc.cuh"

namespace cg = cooperative_groups;

__global__ void sum_kernel(float *out, const float *in) {
    float s = block_sum(in[threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = twice(s);
}

__global__ void with_tile_memory(int *out) {
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    out[block.thread_rank()] = (int)block.size();
}

__global__ void scan_kernel(float *out, const float *in, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = in[i] + 1.0f;
}
__global__ void scan_kernel2(float *out, const float *in, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = in[i] + 2.0f;
}
typedef void (*scan_fn)(float *, const float *, int);
/* a default argument, as nvcc allows for kernels */
__global__ void offset_kernel(float *out, const float *in, int n, float offset = 10.0f) {
    int i = threadIdx.x;
    if (i < n) out[i] = in[i] + offset;
}

static void run_scan(scan_fn k, float *out, const float *in, int n) { k<<<1, 128, 0>>>(out, in, n); }

static int mode_misc() {
    EXPECT_ERR(cudaSetDeviceFlags(cudaDeviceBlockingSync), cudaSuccess);
    EXPECT(cudaDeviceBlockingSync == 0x04 && cudaDeviceBlockingSync == cudaDeviceScheduleBlockingSync, "cudaDeviceBlockingSync = %d",
           (int)cudaDeviceBlockingSync);

    const int n = 128;
    float h[n], *in, *out;
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    sum_kernel<<<1, n>>>(out, in);
    float s = 0;
    cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost);
    EXPECT(s == 2.0f * n, "block_sum through the header gave %f, expected %d", s, 2 * n);

    int *d, hi[64];
    cudaMalloc(&d, sizeof hi);
    with_tile_memory<<<1, 64>>>(d);
    cudaMemcpy(hi, d, sizeof hi, cudaMemcpyDeviceToHost);
    EXPECT(hi[0] == 64 && hi[63] == 64, "this_thread_block(block_tile_memory) gave a block of %d", hi[63]);

    /* launches through function pointers */
    void (*k)(float *, const float *, int) = scan_kernel;
    size_t smem = 0;
    k<<<1, n, smem>>>(out, in, n);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[n - 1] == 2.0f, "k<<<1, n, smem>>>(out, in, n) gave %f", h[n - 1]);
    scan_fn table[2] = {scan_kernel, scan_kernel2};
    table[1]<<<1, n>>>(out, in, n);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 3.0f, "table[1]<<<...>>> gave %f", h[0]);
    run_scan(scan_kernel2, out, in, n);
    (*k)<<<1, n>>>(in, out, n);
    cudaMemcpy(h, in, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[5] == 4.0f, "launches through a parameter and (*k) gave %f", h[5]);
    offset_kernel<<<1, n>>>(out, in, n);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 14.0f, "a launch that leaves a default argument out gave %f", h[0]);
    offset_kernel<<<1, n>>>(out, in, n, 1.0f);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 5.0f, "a launch that gives the default argument gave %f", h[0]);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    cudaFree(in);
    cudaFree(out);
    cudaFree(d);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"misc", mode_misc}); }
