/**
 * @file cub_ref.cu
 * @brief CUB's inclusive scan for lesson 10's benchmark: the library version the lesson's scans are
 *        measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"
#include "cub_workspace.h"

extern "C" cudaError_t cub_inclusive_sum_gpu(const float *d_in, float *d_out, size_t n) {
    return cub_run([&](void *temp, size_t &bytes) { return cub::DeviceScan::InclusiveSum(temp, bytes, d_in, d_out, (int)n); });
}

extern "C" void cub_ref_free(void) { cub_workspace_free(); }
