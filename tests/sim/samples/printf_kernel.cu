// printf_kernel.cu - device-side printf from a few threads (%d, %u, %x, %f, %s, %c, %lld); the
// output is flushed by cudaDeviceSynchronize. Line order between threads is not defined.
// Build and run: nvcc -o printf_kernel printf_kernel.cu && ./printf_kernel
#include "sample_helpers.h"

__global__ void hello(int* count)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 16 == 0) {  // 2 blocks x 2 printing threads = 4 lines
        printf("Hello from block %d, thread %u: gid=%d hex=%x square=%.2f tag=%s%c big=%lld\n",
               (int)blockIdx.x, threadIdx.x, gid, 0xC0DE + gid, gid * 0.5f * gid, "cuda",
               'X' + (int)blockIdx.x, 1000000000000LL + gid);
        atomicAdd(count, 1);
    }
}

int main()
{
    pickDevice(3);
    int* dCount;
    checkCuda(cudaMalloc(&dCount, sizeof(int)));
    checkCuda(cudaMemset(dCount, 0, sizeof(int)));
    fflush(stdout);  // keep host output ahead of the device output
    hello<<<2, 32>>>(dCount);
    checkLastKernel();
    checkCuda(cudaDeviceSynchronize());
    int count = 0;
    checkCuda(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dCount));
    printf("%d device threads printed (expected 4)\n", count);
    return finish(count == 4);
}
