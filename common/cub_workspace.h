/**
 * @file cub_workspace.h
 * @brief CUB's two-call protocol for the benchmarks' library ceilings (lessons/NN/ceiling/cub_ref.cu):
 *        ask a device algorithm how much temporary storage it needs, grow one buffer to that size,
 *        then run it with the buffer. C++ (CUB is); include it from one .cu file per program.
 */
#ifndef COMMON_CUB_WORKSPACE_H
#define COMMON_CUB_WORKSPACE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* One buffer for every call of the program: it only grows, so timed runs allocate nothing. */
static void *cub_temp = NULL;
static size_t cub_temp_bytes = 0;

/** Frees the buffer (the ceilings' cub_ref_free()). */
static inline void cub_workspace_free(void) {
    cudaFree(cub_temp);
    cub_temp = NULL;
    cub_temp_bytes = 0;
}

/** Runs `algorithm(temp, bytes)` the CUB way: once with no storage to learn the bytes it needs, then
    with the buffer grown to them. Returns the first error (of either call or of the cudaMalloc). */
template <typename Algorithm>
static cudaError_t cub_run(Algorithm algorithm) {
    size_t need = 0;
    cudaError_t e = algorithm(NULL, need);
    if (e == cudaSuccess && need > cub_temp_bytes) {
        cub_workspace_free();
        e = cudaMalloc(&cub_temp, need);
        if (e == cudaSuccess) cub_temp_bytes = need;
    }
    if (e == cudaSuccess) e = algorithm(cub_temp, need);
    return e;
}

#endif
