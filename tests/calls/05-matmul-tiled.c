/* calls/05-matmul-tiled.c -- lesson 05's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. A, B and C are
   device buffers: only pointers and sizes travel. */
#include "matmul_tiled.h"

#define PRODUCT(X, f) X(cudaError_t, f, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(int, M), NUM(int, K), NUM(int, N))
#define CALLS(X) PRODUCT(X, matmul_tiled_gpu) PRODUCT(X, matmul_register_tiled_gpu) PRODUCT(X, matmul_reference_naive_gpu)
#include "calls_table.h"
