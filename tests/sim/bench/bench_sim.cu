/* bench_sim.cu -- how fast the CPU simulator runs typical kernels (`make bench-sim`).
 * Reports context switches per second (a barrier-heavy kernel), and the time of a 1024x1024-element
 * vector add, a 512^3 shared-memory tiled matmul and a 2^22-element shuffle reduction.
 * Built without AddressSanitizer; each figure is the median of 3 runs. Also runs with nvcc. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "../typical_kernels.cuh"

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

/* 1024 threads meeting `rounds` barriers: 2 switches per thread per barrier. */
__global__ void barriers(int rounds, int *sink) {
    int x = threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        x += r;
        __syncthreads();
    }
    if (x == -1) *sink = x;
}

template <class F>
static double median_seconds(F run) {
    std::vector<double> t;
    for (int i = 0; i < 3; i++) {
        auto t0 = std::chrono::steady_clock::now();
        run();
        cudaDeviceSynchronize();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[1];
}

int main() {
    const int n = 1024 * 1024, m = 512, r = 1 << 22, rounds = 200;
    float *a, *b, *c, *A, *B, *C, *in, *out;
    int *sink;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
    cudaMalloc(&A, m * m * 4); cudaMalloc(&B, m * m * 4); cudaMalloc(&C, m * m * 4);
    cudaMalloc(&in, r * 4); cudaMalloc(&out, 4); cudaMalloc(&sink, 4);
    cudaMemset(a, 0, n * 4); cudaMemset(b, 0, n * 4);
    cudaMemset(A, 0, m * m * 4); cudaMemset(B, 0, m * m * 4); cudaMemset(in, 0, r * 4);

    double t_bar = median_seconds([&] { barriers<<<1, 1024>>>(rounds, sink); });
    double switches = 2.0 * 1024 * rounds;
    double t_add = median_seconds([&] { vector_add<<<n / 256, 256>>>(a, b, c, n); });
    double t_mm = median_seconds([&] { matmul_tiled<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m); });
    double t_red = median_seconds([&] { reduce_shuffle<<<r / 256, 256>>>(in, out, r); });
    printf("simulator benchmark (median of 3 runs)\n");
    printf("  context switches           %12.1f million/s  (1024 threads x %d barriers in %.3f s)\n", switches / t_bar / 1e6, rounds, t_bar);
    printf("  vector add, 1024x1024      %12.3f s\n", t_add);
    printf("  tiled matmul 16x16, 512^3  %12.3f s\n", t_mm);
    printf("  shuffle reduction, 2^22    %12.3f s\n", t_red);
    return 0;
}
