/**
 * @file cub_ref.cu
 * @brief CUB's histogram and maximum for lesson 09's benchmark: the library versions that the
 *        lesson's kernels are measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"
#include "cub_workspace.h"

extern "C" cudaError_t cub_histogram_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist) {
    return cub_run([&](void *temp, size_t &bytes) { return cub::DeviceHistogram::HistogramEven(temp, bytes, d_in, d_hist, 257, 0, 256, (int)n); });
}

extern "C" cudaError_t cub_max_float_gpu(const float *d_in, size_t n, float *d_max) {
    return cub_run([&](void *temp, size_t &bytes) { return cub::DeviceReduce::Max(temp, bytes, d_in, d_max, (int)n); });
}

extern "C" void cub_ref_free(void) { cub_workspace_free(); }
