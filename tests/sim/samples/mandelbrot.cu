// mandelbrot.cu - escape-time Mandelbrot set: a 2D grid of 16x16 blocks computes an image of
// iteration counts. The device uses __fmul_rn/__fadd_rn (no fused multiply-add), so every pixel
// must equal the CPU's count exactly.
// Build and run: nvcc -o mandelbrot mandelbrot.cu && ./mandelbrot
#include <vector>
#include "sample_helpers.h"

#define MAX_ITER 256

__global__ void mandelbrotKernel(unsigned char* image, int width, int height, float x0, float y0,
                                 float step)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = __fadd_rn(x0, __fmul_rn((float)px, step));
    float ci = __fadd_rn(y0, __fmul_rn((float)py, step));
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < MAX_ITER) {
        float zr2 = __fmul_rn(zr, zr), zi2 = __fmul_rn(zi, zi);
        if (__fadd_rn(zr2, zi2) > 4.0f) break;
        float t = __fadd_rn(__fadd_rn(zr2, -zi2), cr);
        zi = __fadd_rn(__fmul_rn(2.0f, __fmul_rn(zr, zi)), ci);
        zr = t;
        ++it;
    }
    image[py * width + px] = (unsigned char)(it == MAX_ITER ? 0 : 1 + it % 255);
}

static void mandelbrotCpu(unsigned char* image, int width, int height, float x0, float y0,
                          float step)
{
    for (int py = 0; py < height; ++py)
        for (int px = 0; px < width; ++px) {
            // volatile temporaries: each product is rounded on its own, as on the device
            volatile float sx = (float)px * step, sy = (float)py * step;
            float cr = x0 + sx, ci = y0 + sy;
            float zr = 0.0f, zi = 0.0f;
            int it = 0;
            while (it < MAX_ITER) {
                volatile float zr2 = zr * zr, zi2 = zi * zi;
                if (zr2 + zi2 > 4.0f) break;
                volatile float d = zr2 - zi2;
                float t = d + cr;
                volatile float p = zr * zi;
                volatile float q = 2.0f * p;
                zi = q + ci;
                zr = t;
                ++it;
            }
            image[py * width + px] = (unsigned char)(it == MAX_ITER ? 0 : 1 + it % 255);
        }
}

int main()
{
    pickDevice(3);
    const int width = 300, height = 200;  // not multiples of 16
    const float x0 = -2.2f, y0 = -1.0f, step = 3.0f / width;
    std::vector<unsigned char> img(width * height), ref(width * height);

    unsigned char* dImg;
    checkCuda(cudaMalloc(&dImg, img.size()));
    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    mandelbrotKernel<<<grid, block>>>(dImg, width, height, x0, y0, step);
    checkLastKernel();
    checkCuda(cudaMemcpy(img.data(), dImg, img.size(), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dImg));

    mandelbrotCpu(ref.data(), width, height, x0, y0, step);
    int inside = 0;
    for (unsigned char v : img) inside += v == 0;
    printf("%dx%d image, %d pixels inside the set\n", width, height, inside);
    int bad = compareExact("pixel", img.data(), ref.data(), width * height);
    return finish(bad == 0 && inside > 0 && inside < width * height);
}
