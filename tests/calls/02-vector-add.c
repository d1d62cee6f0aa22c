/* calls/02-vector-add.c -- lesson 02's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. */
#include "vector_add.h"

#define CALLS(X)                                                                                                                     \
    X(cudaError_t, vector_add_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n), NUM(unsigned, block)) \
    X(cudaError_t, vector_add_host, IN(const float *, h_a, n * sizeof(float)), IN(const float *, h_b, n * sizeof(float)),                      \
      INOUT(float *, h_c, n * sizeof(float), "h_c", "the copy back writes more than n floats"), NUM(size_t, n))                               \
    X(cudaError_t, vector_add_grid_stride_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n),            \
      NUM(unsigned, block), NUM(unsigned, grid))                                                                                            \
    X(cudaError_t, vector_add_float4_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n),                 \
      NUM(unsigned, block), NUM(unsigned, grid))
#include "calls_table.h"
