/**
 * @file cub_ref.cu
 * @brief CUB's sum for lesson 06's benchmark: the library version that the lesson's kernels are
 *        measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"
#include "cub_workspace.h"

extern "C" cudaError_t cub_sum_gpu(const float *d_in, size_t n, float *d_out) {
    return cub_run([&](void *temp, size_t &bytes) { return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, (int)n); });
}

extern "C" void cub_ref_free(void) { cub_workspace_free(); }
