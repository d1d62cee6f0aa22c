/* spaced_launch.cu -- issue 27: a launch written with spaces between the brackets,
 * `kernel<< <grid, block >> >(args)`, as nvcc takes it (the CUDA Programming Guide prints launches
 * so), is a launch. Usage: spaced_launch spaced; prints "spaced: PASS". */
#include "expect.h"

__global__ void fill(int *p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
__global__ void add(int *p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] += v; }

static int mode_spaced() {
    int *d, h[64];
    cudaMalloc(&d, sizeof h);
    fill<< <2, 32 >> >(d, 5);
    add<< <dim3(2), dim3(32), 0, 0 >> >(d, 10);
    add << < 1, 64 >>
        > (d, 100); /* over two lines */
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 115 && h[63] == 115, "h[0] = %d, h[63] = %d (expected 5 + 10 + 100)", h[0], h[63]);
    cudaFree(d);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"spaced", mode_spaced}); }
