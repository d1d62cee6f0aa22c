/* calls/03-image-grayscale.c -- lesson 03's functions across the judge/runner boundary, one row
   each: common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every image
   here is a device buffer: only pointers and numbers travel. */
#include "grayscale.h"

#define CALLS(X)                                                                                                     \
    X(cudaError_t, grayscale_gpu, DEV(const unsigned char *, d_rgb), DEV(unsigned char *, d_gray), NUM(int, width), \
      NUM(int, height), NUM(int, channels), NUM(unsigned, block_x), NUM(unsigned, block_y))                         \
    X(cudaError_t, rotate90_gpu, DEV(const unsigned char *, d_in), DEV(unsigned char *, d_out), NUM(int, width),    \
      NUM(int, height), NUM(unsigned, block_x), NUM(unsigned, block_y))                                             \
    X(cudaError_t, grayscale_wide_gpu, DEV(const unsigned char *, d_rgb), DEV(unsigned char *, d_gray),             \
      NUM(int, width), NUM(int, height), NUM(int, channels), NUM(unsigned, block))
#include "calls_table.h"
