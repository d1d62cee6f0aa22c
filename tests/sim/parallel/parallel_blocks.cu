/* parallel_blocks.cu -- block-parallel kernels for the simulator's parallel launches (sim/README.md,
 * "Parallel launches"): built without AddressSanitizer, run by the Check suite's "Parallel" case with
 * SIM_WORKERS=1 and 2 under every schedule, whose outputs must be identical. Every launch has 2^18
 * threads or more, as a parallel launch needs.
 *   matmul   a 16x16-tiled matmul of small integers (exact in float): checksum, and the CPU's answer
 *   reduce   a shuffle reduction into one int with atomicAdd: the sum, and the CPU's
 *   printf   every block prints one line (the output must come in the schedule's block order)
 *   oob      block 37 writes far outside its buffer: the simulator's error names block 37
 *   assert   block 41 fails a device-side assert: the lines, then cudaErrorAssert
 * Each mode but oob (which stops at the error) ends with "parallel launches: N"
 * (simcuda_parallel_launches). */
#include <cassert>
#include <cstdio>
#include <cstring>
#include <vector>
#include <simcuda/graphs.h>

#include "../typical_kernels.cuh"

__global__ void say_block(int *touched) {
    touched[blockIdx.x * blockDim.x + threadIdx.x] = 1;
    if (threadIdx.x == 0) printf("block %d says hello\n", blockIdx.x);
}

__global__ void write_far(int *p) {
    long long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 37 && threadIdx.x == 5) i += 1ll << 40; /* far outside any mapping */
    p[i] = 1;
}

__global__ void assert_in_block(int *p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] = 2;
    assert(blockIdx.x != 41);
}

static void finish() { printf("parallel launches: %llu\n", simcuda_parallel_launches()); }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "matmul";
    if (!strcmp(mode, "matmul")) {
        const int n = 512; /* 2^18 threads: large enough to run in parallel */
        std::vector<float> a(n * n), b(n * n), c(n * n);
        for (int i = 0; i < n * n; i++) {
            a[i] = (float)(i * 7 % 13) - 6;
            b[i] = (float)(i * 5 % 11) - 5;
        }
        float *A, *B, *C;
        cudaMalloc(&A, n * n * 4);
        cudaMalloc(&B, n * n * 4);
        cudaMalloc(&C, n * n * 4);
        cudaMemcpy(A, a.data(), n * n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(B, b.data(), n * n * 4, cudaMemcpyHostToDevice);
        matmul_tiled<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(A, B, C, n);
        cudaMemcpy(c.data(), C, n * n * 4, cudaMemcpyDeviceToHost);
        unsigned long long hash = 1469598103934665603ull;
        int wrong = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                float ref = 0;
                for (int k = 0; k < n; k++) ref += a[i * n + k] * b[k * n + j];
                if (ref != c[i * n + j]) wrong++;
                unsigned u;
                memcpy(&u, &c[i * n + j], 4);
                hash = (hash ^ u) * 1099511628211ull;
            }
        printf("matmul %dx%d: checksum %016llx, %d elements differ from the CPU\n", n, n, hash, wrong);
    } else if (!strcmp(mode, "reduce")) {
        const int n = 1 << 20;
        std::vector<int> h(n);
        long long ref = 0;
        for (int i = 0; i < n; i++) ref += h[i] = i % 1000 - 499;
        int *in, *out;
        cudaMalloc(&in, n * 4);
        cudaMalloc(&out, 4);
        cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
        cudaMemset(out, 0, 4);
        reduce_shuffle<<<n / 256, 256>>>(in, out, n);
        int sum = 0;
        cudaMemcpy(&sum, out, 4, cudaMemcpyDeviceToHost);
        printf("reduce 2^20: sum %d, the CPU's %lld\n", sum, ref);
    } else if (!strcmp(mode, "printf")) {
        int *t;
        cudaMalloc(&t, 1024 * 256 * 4);
        say_block<<<1024, 256>>>(t);
        cudaDeviceSynchronize();
    } else if (!strcmp(mode, "oob")) {
        int *p;
        cudaMalloc(&p, 1024 * 256 * 4);
        write_far<<<1024, 256>>>(p);
        cudaDeviceSynchronize();
    } else if (!strcmp(mode, "assert")) {
        int *p;
        cudaMalloc(&p, 1024 * 256 * 4);
        assert_in_block<<<1024, 256>>>(p);
        printf("after the kernel: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    }
    finish();
    return 0;
}
