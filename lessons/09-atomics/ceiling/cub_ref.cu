/**
 * @file cub_ref.cu
 * @brief CUB's histogram and maximum for lesson 09's benchmark: the library versions that the
 *        lesson's kernels are measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"

static void *temp = NULL;
static size_t temp_bytes = 0;

// Makes sure the shared temporary buffer holds `need` bytes.
static cudaError_t reserve(size_t need) {
    if (need <= temp_bytes) return cudaSuccess;
    cudaFree(temp);
    temp = NULL;
    temp_bytes = 0;
    cudaError_t e = cudaMalloc(&temp, need);
    if (e == cudaSuccess) temp_bytes = need;
    return e;
}

extern "C" cudaError_t cub_histogram_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist) {
    size_t need = 0;
    cudaError_t e = cub::DeviceHistogram::HistogramEven(NULL, need, d_in, d_hist, 257, 0, 256, (int)n);
    if (e == cudaSuccess) e = reserve(need);
    if (e == cudaSuccess) e = cub::DeviceHistogram::HistogramEven(temp, need, d_in, d_hist, 257, 0, 256, (int)n);
    return e;
}

extern "C" cudaError_t cub_max_float_gpu(const float *d_in, size_t n, float *d_max) {
    size_t need = 0;
    cudaError_t e = cub::DeviceReduce::Max(NULL, need, d_in, d_max, (int)n);
    if (e == cudaSuccess) e = reserve(need);
    if (e == cudaSuccess) e = cub::DeviceReduce::Max(temp, need, d_in, d_max, (int)n);
    return e;
}

extern "C" void cub_ref_free(void) {
    cudaFree(temp);
    temp = NULL;
    temp_bytes = 0;
}
