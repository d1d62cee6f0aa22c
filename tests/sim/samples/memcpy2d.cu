// memcpy2d.cu - pitched 2D data without cudaMallocPitch: cudaMalloc with a hand-computed pitch,
// cudaMemcpy2D of a sub-rectangle host->device, device->device (other pitch) and back into place.
// Build and run: nvcc -o memcpy2d memcpy2d.cu && ./memcpy2d
#include <vector>
#include "sample_helpers.h"

// Rows are `pitch` bytes apart; only the first `width` floats of each row are data.
__global__ void transform(float* base, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float* row = (float*)((char*)base + y * pitch);
        row[x] = 2.0f * row[x] + (float)(y - x);
    }
}

int main()
{
    pickDevice(3);
    const int W = 37, H = 29;               // host matrix, densely packed
    const int c0 = 5, r0 = 3, w = 23, h = 17;  // sub-rectangle that is processed
    const size_t rowBytes = w * sizeof(float);
    const size_t pitch = (rowBytes + 127) / 128 * 128, pitch2 = 256;  // device row strides
    std::vector<float> host(W * H), result(W * H);
    Lcg rng(271828);
    for (auto& v : host) v = (float)rng.nextInt(-1000, 1000);
    result = host;

    float *dA, *dB;
    checkCuda(cudaMalloc(&dA, pitch * h));
    checkCuda(cudaMalloc(&dB, pitch2 * h));
    checkCuda(cudaMemset(dA, 0xAB, pitch * h));  // padding must keep this pattern
    checkCuda(cudaMemcpy2D(dA, pitch, &host[r0 * W + c0], W * sizeof(float), rowBytes, h,
                           cudaMemcpyHostToDevice));
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    transform<<<grid, block>>>(dA, pitch, w, h);
    checkLastKernel();
    checkCuda(cudaMemcpy2D(dB, pitch2, dA, pitch, rowBytes, h, cudaMemcpyDeviceToDevice));
    checkCuda(cudaMemcpy2D(&result[r0 * W + c0], W * sizeof(float), dB, pitch2, rowBytes, h,
                           cudaMemcpyDeviceToHost));
    std::vector<unsigned char> raw(pitch * h);
    checkCuda(cudaMemcpy(raw.data(), dA, pitch * h, cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dA));
    checkCuda(cudaFree(dB));

    // Inside the rectangle: transformed values; outside: the host data must be untouched.
    std::vector<float> ref = host;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            ref[(r0 + y) * W + c0 + x] = 2.0f * host[(r0 + y) * W + c0 + x] + (float)(y - x);
    int bad = compareExact("matrix", result.data(), ref.data(), W * H);
    int padBad = 0;
    for (int y = 0; y < h; ++y)
        for (size_t b = rowBytes; b < pitch; ++b) padBad += raw[y * pitch + b] != 0xAB;
    if (padBad) printf("  %d padding bytes were overwritten\n", padBad);
    printf("%dx%d block at (%d,%d) of a %dx%d matrix, device pitch %zu bytes\n", w, h, c0, r0, W, H,
           pitch);
    return finish(bad == 0 && padBad == 0);
}
