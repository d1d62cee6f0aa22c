/* parallel_serial.cu -- launches that must stay on one core (sim/README.md, "Parallel launches"):
 * a __device__ counter that every block increments (each worker process would have its own copy),
 * and blocks that wait for each other (a ticket taken with atomicAdd, then a flag polled with
 * atomicAdd(flag, 0)). Built without AddressSanitizer; run by the Check suite's "Parallel" case
 * with SIM_WORKERS=2: the answers are right and "parallel launches: 0". */
#include <cstdio>
#include <simcuda/graphs.h>

__device__ int g_counter;

__global__ void count_blocks(int *dummy) {
    dummy[blockIdx.x * blockDim.x + threadIdx.x] = 0;
    if (threadIdx.x == 0) atomicAdd(&g_counter, 1);
}

/* Chained blocks: each takes a ticket, waits for the previous ticket's flag, adds its part. */
__global__ void chained(int *ticket, int *flags, int *total) {
    __shared__ int t;
    if (threadIdx.x == 0) {
        t = atomicAdd(ticket, 1);
        if (t > 0)
            while (atomicAdd(&flags[t - 1], 0) == 0) {
            }
        *total += t;
        atomicExch(&flags[t], 1);
    }
    __syncthreads();
}

int main() {
    const int blocks = 1024; /* with 256 threads: large enough for a parallel launch */
    int *dummy, *ticket, *flags, *total;
    cudaMalloc(&dummy, blocks * 256 * 4);
    cudaMalloc(&ticket, 4);
    cudaMalloc(&flags, blocks * 4);
    cudaMalloc(&total, 4);
    int zero = 0;
    cudaMemcpyToSymbol(g_counter, &zero, 4);
    count_blocks<<<blocks, 256>>>(dummy);
    int counted = -1;
    cudaMemcpyFromSymbol(&counted, g_counter, 4);
    printf("__device__ counter: %d of %d blocks\n", counted, blocks);
    cudaMemset(ticket, 0, 4);
    cudaMemset(flags, 0, blocks * 4);
    cudaMemset(total, 0, 4);
    chained<<<blocks, 256>>>(ticket, flags, total);
    int sum = -1;
    cudaMemcpy(&sum, total, 4, cudaMemcpyDeviceToHost);
    printf("chained blocks: total %d, expected %d\n", sum, blocks * (blocks - 1) / 2);
    printf("parallel launches: %llu\n", simcuda_parallel_launches());
    return 0;
}
