/* calls/08-convolution.c -- lesson 08's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Images are
   device buffers (only pointers travel); the filters of 08.2 - 08.4 are host arrays and travel by
   value. */
#include "convolution.h"

/* A host filter of fw * fw taps (square) or fw taps: 0 bytes when fw is out of range (the function
   must refuse it before reading any). */
#define TAPS(T, n, square) IN(T, n, taps_bytes(fw, square))
#define IMAGE DEV(const float *, d_in), DEV(float *, d_out), NUM(int, width), NUM(int, height)
#define PASS(X, f) X(cudaError_t, f, IMAGE, TAPS(const float *, h_taps, 0), NUM(int, fw), NUM(unsigned, block_x), NUM(unsigned, block_y))
#define CALLS(X)                                                                                                                  \
    X(cudaError_t, conv2d_gpu, IMAGE, DEV(const float *, d_filter), NUM(int, fw), NUM(unsigned, block_x), NUM(unsigned, block_y)) \
    X(cudaError_t, conv2d_const_gpu, IMAGE, TAPS(const float *, h_filter, 1), NUM(int, fw), NUM(unsigned, block_x),              \
      NUM(unsigned, block_y))                                                                                                     \
    X(cudaError_t, conv2d_tiled_gpu, IMAGE, TAPS(const float *, h_filter, 1), NUM(int, fw), NUM(unsigned, tile))                  \
    PASS(X, conv_rows_gpu)                                                                                                        \
    PASS(X, conv_cols_gpu)                                                                                                        \
    X(cudaError_t, conv_separable_gpu, DEV(const float *, d_in), DEV(float *, d_tmp), DEV(float *, d_out), NUM(int, width),       \
      NUM(int, height), TAPS(const float *, h_row, 0), TAPS(const float *, h_col, 0), NUM(int, fw), NUM(unsigned, block_x),       \
      NUM(unsigned, block_y))

#ifndef GRADE_RUNNER_SIDE
#include <stddef.h>

static size_t taps_bytes(int fw, int square) {
    int count = fw < 1 || fw > CONV_MAX_FW ? 0 : square ? fw * fw : fw;
    return count > 0 ? (size_t)count * sizeof(float) : 0;
}
#endif
#include "calls_table.h"
