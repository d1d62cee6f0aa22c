// jacobi2d.cu - 2D Laplace solver with Jacobi iteration: two device buffers swapped after every
// sweep (double buffering), a fixed boundary, and a convergence test whose largest change is
// reduced on the device (shared-memory block reduction, then atomicMax on the float's bits).
// Build and run: nvcc -o jacobi2d jacobi2d.cu && ./jacobi2d
#include <cstring>
#include <utility>
#include <vector>
#include "sample_helpers.h"

#define BX 32
#define BY 8

// One sweep: interior points become the mean of their four neighbours; the largest change of
// this sweep is folded into *maxDelta (non-negative floats order like their int bit patterns).
__global__ void jacobiSweep(const float* in, float* out, int nx, int ny, int* maxDelta)
{
    __shared__ float sDelta[BX * BY];
    int x = blockIdx.x * BX + threadIdx.x;
    int y = blockIdx.y * BY + threadIdx.y;
    int t = threadIdx.y * BX + threadIdx.x;
    float delta = 0.0f;
    if (x < nx && y < ny) {
        float v = in[y * nx + x];
        if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
            float sum = (in[y * nx + x - 1] + in[y * nx + x + 1]) +
                        (in[(y - 1) * nx + x] + in[(y + 1) * nx + x]);
            float nv = __fmul_rn(0.25f, sum);  // _rn: not fused into the subtraction below
            delta = fabsf(nv - v);
            v = nv;
        }
        out[y * nx + x] = v;  // boundary copied through
    }
    sDelta[t] = delta;
    __syncthreads();
    for (int s = BX * BY / 2; s > 0; s >>= 1) {
        if (t < s) sDelta[t] = fmaxf(sDelta[t], sDelta[t + s]);
        __syncthreads();
    }
    if (t == 0) atomicMax(maxDelta, __float_as_int(sDelta[0]));
}

int main()
{
    pickDevice(3);
    const int nx = 66, ny = 35, maxIters = 5000;  // not multiples of the block
    const float tol = 5e-4f;
    std::vector<float> grid(nx * ny, 0.0f);
    Lcg rng(99);
    for (int x = 0; x < nx; ++x) {  // hot top edge with noise, cold bottom
        grid[x] = 1.0f + rng.nextFloat(-0.1f, 0.1f);
        grid[(ny - 1) * nx + x] = 0.0f;
    }
    for (int y = 0; y < ny; ++y) {
        grid[y * nx] = (float)y / ny;
        grid[y * nx + nx - 1] = 0.5f;
    }

    float *dA, *dB;
    int* dMax;
    size_t bytes = nx * ny * sizeof(float);
    checkCuda(cudaMalloc(&dA, bytes));
    checkCuda(cudaMalloc(&dB, bytes));
    checkCuda(cudaMalloc(&dMax, sizeof(int)));
    checkCuda(cudaMemcpy(dA, grid.data(), bytes, cudaMemcpyHostToDevice));
    dim3 block(BX, BY), blocks((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    int iters = 0;
    float delta = 0.0f;
    do {
        checkCuda(cudaMemset(dMax, 0, sizeof(int)));
        jacobiSweep<<<blocks, block>>>(dA, dB, nx, ny, dMax);
        checkLastKernel();
        std::swap(dA, dB);
        int bits;
        checkCuda(cudaMemcpy(&bits, dMax, sizeof(int), cudaMemcpyDeviceToHost));
        memcpy(&delta, &bits, sizeof delta);
        ++iters;
    } while (delta > tol && iters < maxIters);
    std::vector<float> got(nx * ny);
    checkCuda(cudaMemcpy(got.data(), dA, bytes, cudaMemcpyDeviceToHost));

    // CPU reference: the same sweeps in the same order of additions.
    std::vector<float> a = grid, b = grid;
    int refIters = 0;
    float refDelta = 0.0f;
    do {
        refDelta = 0.0f;
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                float sum = (a[y * nx + x - 1] + a[y * nx + x + 1]) +
                            (a[(y - 1) * nx + x] + a[(y + 1) * nx + x]);
                float nv = 0.25f * sum;
                refDelta = fmaxf(refDelta, fabsf(nv - a[y * nx + x]));
                b[y * nx + x] = nv;
            }
        std::swap(a, b);
        ++refIters;
    } while (refDelta > tol && refIters < maxIters);

    printf("device: %d sweeps, last change %g; host: %d sweeps, last change %g\n", iters, delta,
           refIters, refDelta);
    int bad = compareNear("u", got.data(), a.data(), nx * ny, 1e-6, 1e-6);
    checkCuda(cudaFree(dA));
    checkCuda(cudaFree(dB));
    checkCuda(cudaFree(dMax));
    return finish(bad == 0 && iters == refIters && iters < maxIters);
}
