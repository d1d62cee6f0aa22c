/* calls/09-atomics.c -- lesson 09's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer here
   is a device buffer: only pointers and numbers travel. */
#include "histogram.h"

#define CALLS(X)                                                                                                                   \
    X(cudaError_t, histogram_global_gpu, DEV(const unsigned char *, d_in), NUM(size_t, n), DEV(unsigned *, d_hist), NUM(unsigned, block)) \
    X(cudaError_t, histogram_shared_gpu, DEV(const unsigned char *, d_in), NUM(size_t, n), DEV(unsigned *, d_hist), NUM(unsigned, block), \
      NUM(unsigned, grid))                                                                                                         \
    X(cudaError_t, max_float_atomic_gpu, DEV(const float *, d_in), NUM(size_t, n), DEV(float *, d_max), NUM(unsigned, block))
#include "calls_table.h"
