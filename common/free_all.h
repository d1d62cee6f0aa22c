/**
 * @file free_all.h
 * @brief FREE_ALL(a, b, ...) and CUDA_FREE_ALL(d_a, d_b, ...): a program's buffers freed in one
 *        line each, in the order named; the tests and the demos both end their work this way.
 */
#ifndef COMMON_FREE_ALL_H
#define COMMON_FREE_ALL_H

#include <stddef.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/** free() on each of `count` host buffers, in order (NULL ones are skipped, as free does). */
static inline void free_each(void *const *bufs, size_t count) {
    for (size_t i = 0; i < count; i++) free(bufs[i]);
}

/** cudaFree() on each of `count` device buffers, in order: the same calls as if written out
    (unchecked, as a teardown's frees were: the results are already in). */
static inline void cuda_free_each(void *const *bufs, size_t count) {
    for (size_t i = 0; i < count; i++) cudaFree(bufs[i]);
}

/* The arguments as an array and its length, so that adding a buffer is adding its name. */
#define BUFFER_LIST(...) ((void *const[]){__VA_ARGS__}), (sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
/** free() on each buffer named. */
#define FREE_ALL(...) free_each(BUFFER_LIST(__VA_ARGS__))
/** cudaFree() on each device buffer named. */
#define CUDA_FREE_ALL(...) cuda_free_each(BUFFER_LIST(__VA_ARGS__))

#endif
