/* calls/01-hello-kernel.c -- lesson 01's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. fill_index_and_wait's
   `out` comes from cudaMallocHost: judge_ptr recognises it and sends the runner's own pinned buffer,
   with the judge's bytes in and the runner's bytes back at return (what was written by then). */
#include "hello.h"

#define CALLS(X)                                                                                  \
    X(cudaError_t, hello_gpu, NUM(unsigned, blocks), NUM(unsigned, threads))                      \
    X(cudaError_t, fill_index_gpu, DEV(int *, d_out), NUM(int, n))                                \
    X(cudaError_t, fill_pattern_gpu, DEV(int *, d_out), NUM(unsigned, blocks), NUM(unsigned, threads)) \
    X(cudaError_t, launch_error, DEV(int *, d_out), NUM(unsigned, threads))                       \
    X(cudaError_t, fill_index_and_wait, DEV(int *, out), NUM(int, n))
#include "calls_table.h"
