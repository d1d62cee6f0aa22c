/**
 * @file cub_ref.h
 * @brief Lesson 10's benchmark ceiling from CUB: the library's inclusive scan of floats, wrapped as
 *        a C function (CUB is C++; bench.c is C). Only the benchmark links it.
 */
#ifndef LESSON_10_CUB_REF_H
#define LESSON_10_CUB_REF_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cub::DeviceScan::InclusiveSum of n floats from d_in to d_out. Keeps its temporary storage between
    calls (so that a timed call does not allocate). Does not wait. */
cudaError_t cub_inclusive_sum_gpu(const float *d_in, float *d_out, size_t n);

/** Frees the temporary storage. */
void cub_ref_free(void);

#ifdef __cplusplus
}
#endif
#endif
