/**
 * @file cub_ref.cu
 * @brief CUB's sum for lesson 06's benchmark: the library version that the lesson's kernels are
 *        measured against (see cub_ref.h).
 */
#include <cub/cub.cuh>

#include "cub_ref.h"

static void *temp = NULL;
static size_t temp_bytes = 0;

extern "C" cudaError_t cub_sum_gpu(const float *d_in, size_t n, float *d_out) {
    // CUB's two-call protocol: ask how much temporary storage it needs, then reduce with it.
    size_t need = 0;
    cudaError_t e = cub::DeviceReduce::Sum(NULL, need, d_in, d_out, (int)n);
    if (e == cudaSuccess && need > temp_bytes) {
        cudaFree(temp);
        temp = NULL;
        temp_bytes = 0;
        e = cudaMalloc(&temp, need);
        if (e == cudaSuccess) temp_bytes = need;
    }
    if (e == cudaSuccess) e = cub::DeviceReduce::Sum(temp, need, d_in, d_out, (int)n);
    return e;
}

extern "C" void cub_ref_free(void) {
    cudaFree(temp);
    temp = NULL;
    temp_bytes = 0;
}
