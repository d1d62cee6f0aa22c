/**
 * @file cub_ref.cu
 * @brief CUB's inclusive scan for lesson 10's benchmark: the library version the lesson's scans are
 *        measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"

static void *temp = NULL;
static size_t temp_bytes = 0;

// Makes sure the temporary buffer holds `need` bytes.
static cudaError_t reserve(size_t need) {
    if (need <= temp_bytes) return cudaSuccess;
    cudaFree(temp);
    temp = NULL;
    temp_bytes = 0;
    cudaError_t e = cudaMalloc(&temp, need);
    if (e == cudaSuccess) temp_bytes = need;
    return e;
}

extern "C" cudaError_t cub_inclusive_sum_gpu(const float *d_in, float *d_out, size_t n) {
    size_t need = 0;
    cudaError_t e = cub::DeviceScan::InclusiveSum(NULL, need, d_in, d_out, (int)n);
    if (e == cudaSuccess) e = reserve(need);
    if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(temp, need, d_in, d_out, (int)n);
    return e;
}

extern "C" void cub_ref_free(void) {
    cudaFree(temp);
    temp = NULL;
    temp_bytes = 0;
}
