/**
 * @file cub_ref.h
 * @brief Lesson 09's benchmark ceilings from CUB: the library's byte histogram and float maximum,
 *        wrapped as C functions (CUB is C++; bench.c is C). Only the benchmark links them.
 */
#ifndef LESSON_09_CUB_REF_H
#define LESSON_09_CUB_REF_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cub::DeviceHistogram::HistogramEven: d_hist[v] = bytes of d_in equal to v (256 bins, levels
    0..256). Keeps its temporary storage between calls. Does not wait. */
cudaError_t cub_histogram_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist);

/** cub::DeviceReduce::Max over n floats into *d_max. Keeps its temporary storage. Does not wait. */
cudaError_t cub_max_float_gpu(const float *d_in, size_t n, float *d_max);

/** Frees the temporary storage of both. */
void cub_ref_free(void);

#ifdef __cplusplus
}
#endif
#endif
