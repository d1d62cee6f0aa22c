/* calls/17-tensor-cores.c -- lesson 17's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. A, B and C are
   device buffers: only pointers and sizes travel. */
#include "tensor_cores.h"

#define PRODUCT(X, f, T) X(cudaError_t, f, DEV(const T *, d_a), DEV(const T *, d_b), DEV(float *, d_c), NUM(int, M), NUM(int, N), NUM(int, K))
#define CALLS(X)                                                                                                            \
    X(cudaError_t, wmma_tiles_gpu, DEV(const tc_half *, d_a), DEV(const tc_half *, d_b), DEV(float *, d_c), NUM(int, tiles)) \
    PRODUCT(X, wmma_gemm_gpu, tc_bf16)                                                                                      \
    PRODUCT(X, wmma_gemm_padded_gpu, tc_half)
#include "calls_table.h"
