// conv2d_tiled.cu - 2D convolution with the filter in __constant__ memory and input tiles with a
// halo staged in __shared__ memory (the block loads (T+2R)^2 pixels with a strided loop, then each
// thread computes one output); zero padding at the image border; compared with a naive kernel and
// the CPU.
// Build and run: nvcc -o conv2d_tiled conv2d_tiled.cu && ./conv2d_tiled
#include <vector>
#include "sample_helpers.h"

#define R 2                       // filter radius: 5x5
#define FW (2 * R + 1)
#define TILE 16
#define SHARED_W (TILE + 2 * R)

__constant__ float cFilter[FW * FW];

__global__ void convNaive(const float* in, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int fy = -R; fy <= R; ++fy)
        for (int fx = -R; fx <= R; ++fx) {
            int ix = x + fx, iy = y + fy;
            if (ix >= 0 && ix < w && iy >= 0 && iy < h)
                s += cFilter[(fy + R) * FW + fx + R] * in[iy * w + ix];
        }
    out[y * w + x] = s;
}

__global__ void convTiled(const float* in, float* out, int w, int h)
{
    __shared__ float tile[SHARED_W][SHARED_W];
    int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
    for (int i = threadIdx.y * TILE + threadIdx.x; i < SHARED_W * SHARED_W; i += TILE * TILE) {
        int ty = i / SHARED_W, tx = i % SHARED_W;
        int ix = x0 + tx, iy = y0 + ty;
        tile[ty][tx] = (ix >= 0 && ix < w && iy >= 0 && iy < h) ? in[iy * w + ix] : 0.0f;
    }
    __syncthreads();
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
#pragma unroll
    for (int fy = 0; fy < FW; ++fy)
#pragma unroll
        for (int fx = 0; fx < FW; ++fx) s += cFilter[fy * FW + fx] * tile[threadIdx.y + fy][threadIdx.x + fx];
    out[y * w + x] = s;
}

int main()
{
    pickDevice(3);
    const int w = 123, h = 77;
    std::vector<float> img(w * h), filter(FW * FW), outN(w * h), outT(w * h);
    std::vector<double> ref(w * h), gotN(w * h), gotT(w * h);
    Lcg rng(17);
    for (float& v : img) v = rng.nextFloat(0.0f, 255.0f);
    for (float& v : filter) v = rng.nextFloat(-1.0f, 1.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int fy = -R; fy <= R; ++fy)
                for (int fx = -R; fx <= R; ++fx) {
                    int ix = x + fx, iy = y + fy;
                    if (ix >= 0 && ix < w && iy >= 0 && iy < h)
                        s += (double)filter[(fy + R) * FW + fx + R] * img[iy * w + ix];
                }
            ref[y * w + x] = s;
        }

    float *dIn, *dOut;
    checkCuda(cudaMalloc(&dIn, w * h * sizeof(float)));
    checkCuda(cudaMalloc(&dOut, w * h * sizeof(float)));
    checkCuda(cudaMemcpy(dIn, img.data(), w * h * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpyToSymbol(cFilter, filter.data(), FW * FW * sizeof(float)));
    dim3 block(TILE, TILE), grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    convNaive<<<grid, block>>>(dIn, dOut, w, h);
    checkLastKernel();
    checkCuda(cudaMemcpy(outN.data(), dOut, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemset(dOut, 0, w * h * sizeof(float)));
    convTiled<<<grid, block>>>(dIn, dOut, w, h);
    checkLastKernel();
    checkCuda(cudaMemcpy(outT.data(), dOut, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; ++i) { gotN[i] = outN[i]; gotT[i] = outT[i]; }
    int bad = compareNear("naive", gotN.data(), ref.data(), w * h, 1e-5, 2e-2);
    bad += compareNear("tiled", gotT.data(), ref.data(), w * h, 1e-5, 2e-2);
    printf("%dx%d image, %dx%d filter: %s\n", w, h, FW, FW, bad ? "mismatch" : "both kernels agree");
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));
    return finish(bad == 0);
}
