/**
 * @file cub_ref.h
 * @brief Lesson 06's benchmark ceiling from CUB: the library's sum of n floats, wrapped as a C
 *        function (CUB is C++; bench.c is C). Only the benchmark links it.
 */
#ifndef LESSON_06_CUB_REF_H
#define LESSON_06_CUB_REF_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cub::DeviceReduce::Sum of the n floats of d_in into *d_out. Keeps its temporary storage
    between calls (the first call allocates it). Does not wait. */
cudaError_t cub_sum_gpu(const float *d_in, size_t n, float *d_out);

/** Frees the temporary storage. */
void cub_ref_free(void);

#ifdef __cplusplus
}
#endif
#endif
