// monte_carlo_pi.cu - Monte-Carlo estimate of pi with cuRAND's device API: a setup kernel gives
// every thread its own XORWOW state with curand_init(seed, subsequence = thread id, 0), states are
// kept in global memory between launches, each thread draws points with curand_uniform and the
// hits are counted with a block reduction and atomicAdd. Also checks that a fixed seed repeats.
// Build and run: nvcc -o monte_carlo_pi monte_carlo_pi.cu && ./monte_carlo_pi
#include <curand_kernel.h>
#include <cmath>
#include "sample_helpers.h"

#define THREADS 128

__global__ void setupStates(curandState* states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void countHits(curandState* states, int pointsPerThread, unsigned long long* hits,
                          int* outOfRange)
{
    __shared__ unsigned int s[THREADS];
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];  // work on a register copy, store it back at the end
    unsigned int count = 0;
    for (int i = 0; i < pointsPerThread; ++i) {
        float x = curand_uniform(&local), y = curand_uniform(&local);
        if (!(x > 0.0f && x <= 1.0f) || !(y > 0.0f && y <= 1.0f)) atomicAdd(outOfRange, 1);
        if (x * x + y * y <= 1.0f) ++count;
    }
    states[id] = local;
    s[threadIdx.x] = count;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(hits, (unsigned long long)s[0]);
}

static unsigned long long run(curandState* dStates, int blocks, unsigned long long seed,
                              int pointsPerThread, int launches, unsigned long long* dHits,
                              int* dBad)
{
    setupStates<<<blocks, THREADS>>>(dStates, seed);
    checkLastKernel();
    checkCuda(cudaMemset(dHits, 0, sizeof(unsigned long long)));
    for (int l = 0; l < launches; ++l) {  // the states carry on from launch to launch
        countHits<<<blocks, THREADS>>>(dStates, pointsPerThread, dHits, dBad);
        checkLastKernel();
    }
    unsigned long long hits;
    checkCuda(cudaMemcpy(&hits, dHits, sizeof hits, cudaMemcpyDeviceToHost));
    return hits;
}

int main()
{
    pickDevice(3);
    const int blocks = 32, pointsPerThread = 64, launches = 4;
    const int threads = blocks * THREADS;
    curandState* dStates;
    unsigned long long* dHits;
    int* dBad;
    checkCuda(cudaMalloc(&dStates, threads * sizeof(curandState)));
    checkCuda(cudaMalloc(&dHits, sizeof(unsigned long long)));
    checkCuda(cudaMalloc(&dBad, sizeof(int)));
    checkCuda(cudaMemset(dBad, 0, sizeof(int)));

    unsigned long long a = run(dStates, blocks, 1234ULL, pointsPerThread, launches, dHits, dBad);
    unsigned long long b = run(dStates, blocks, 1234ULL, pointsPerThread, launches, dHits, dBad);
    unsigned long long c = run(dStates, blocks, 98765ULL, pointsPerThread, launches, dHits, dBad);
    int bad;
    checkCuda(cudaMemcpy(&bad, dBad, sizeof bad, cudaMemcpyDeviceToHost));

    double total = (double)threads * pointsPerThread * launches;
    double p = M_PI / 4.0, sigma = 4.0 * sqrt(p * (1.0 - p) / total);
    double piA = 4.0 * a / total, piC = 4.0 * c / total;
    printf("%.0f points: pi ~ %.6f (seed 1234), %.6f (seed 98765); 6 sigma = %.6f\n", total, piA,
           piC, 6 * sigma);
    bool ok = fabs(piA - M_PI) < 6 * sigma && fabs(piC - M_PI) < 6 * sigma;
    if (a != b) printf("  the same seed gave %llu and %llu hits\n", a, b);
    if (a == c) printf("  different seeds gave the same %llu hits\n", a);
    if (bad) printf("  %d draws outside (0, 1]\n", bad);
    freeDevice(dStates, dHits, dBad);
    return finish(ok && a == b && a != c && bad == 0);
}
