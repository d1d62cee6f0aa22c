/* calls/10-scan.c -- lesson 10's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer here
   is a device buffer: only pointers and numbers travel. */
#include "scan.h"

#define BLOCK_SCAN(X, f) X(cudaError_t, f, DEV(const unsigned *, d_in), DEV(unsigned *, d_out), NUM(size_t, n), NUM(unsigned, block))
#define SCAN(X, f, T)                                                                                                      \
    X(cudaError_t, f, DEV(const T *, d_in), DEV(T *, d_out), NUM(size_t, n), NUM(int, exclusive), NUM(unsigned, block), \
      DEV(void *, d_work))
#define SINGLE_PASS(X, f, T) X(cudaError_t, f, DEV(const T *, d_in), DEV(T *, d_out), NUM(size_t, n), DEV(void *, d_work))
#define CALLS(X)                                                                                                            \
    BLOCK_SCAN(X, block_scan_hs_gpu)                                                                                        \
    BLOCK_SCAN(X, block_scan_warp_gpu)                                                                                      \
    SCAN(X, scan_uint_gpu, unsigned)                                                                                        \
    SCAN(X, scan_float_gpu, float)                                                                                          \
    X(cudaError_t, compact_gpu, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), REAL(float, threshold),     \
      DEV(unsigned *, d_count), NUM(unsigned, block), DEV(void *, d_work))                                                  \
    SINGLE_PASS(X, scan_single_pass_uint_gpu, unsigned)                                                                     \
    SINGLE_PASS(X, scan_single_pass_float_gpu, float)
#include "calls_table.h"
