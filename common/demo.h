/**
 * @file demo.h
 * @brief What the lessons' demos (main.c) and benchmarks (bench.c) all do around the kernels:
 *        read the sizes from the command line, make random inputs, copy them to the device, and
 *        count the outputs outside a tolerance. One copy here, so every demo reads and checks alike.
 */
#ifndef COMMON_DEMO_H
#define COMMON_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The three sizes of a product from `prog [n | a b c]`: with one argument all three are n, with
    three they are taken in order, with none they keep their defaults. Returns 0 for any other
    number of arguments (the caller prints its usage); the values are not checked. */
int demo_read_sizes(int argc, char **argv, int *a, int *b, int *c);

/** A benchmark's frame from `bench [width height]`: 8K (7680 x 4320) on a GPU, 640 x 360 on the
    simulator, unless both are given. Returns 0 after printing the usage line on stderr when either
    is not positive (the caller exits with status 2). */
int demo_read_frame(int argc, char **argv, int *w, int *h);

/** The log2 of a benchmark's size: atoi(argv[1]) when given, else `fallback`; outside lo..hi it
    prints `usage` and a newline on stderr and returns -1 (the caller exits with status 2). */
int demo_read_log2(int argc, char **argv, int fallback, int lo, int hi, const char *usage);

/** The name of device 0 (cudaGetDeviceProperties, CUDA_CHECK'd), for a demo's title line. */
const char *demo_device_name(void);

/** For a call of an exercise the student may not have written yet: on an error prints
    "  <what>: <error name> -- not done yet? `make check LESSON=<lesson>` says more" and returns 0,
    so the demo goes on with the other exercises; returns 1 for cudaSuccess. */
int demo_done(const char *lesson, const char *what, cudaError_t e);

/** demo_done for a launcher: a launch that was accepted is waited for (cudaDeviceSynchronize), so
    an error of the kernel itself counts too, and the line gives the error's description as well:
    "  <what>: <error name> (<description>) -- not done yet? ...". */
int demo_launched(const char *lesson, const char *what, cudaError_t e);

/** malloc(bytes) (one byte at least); when the host is out of memory, prints `no_memory` and a
    newline on stderr and exits with status 1, as every demo did by hand. */
void *demo_alloc(size_t bytes, const char *no_memory);

/** n floats drawn uniformly from [lo, hi) by seed (grade_fill_floats: the grader's inputs), in
    memory from demo_alloc(.., no_memory). */
float *demo_random_floats(size_t n, uint64_t seed, float lo, float hi, const char *no_memory);

/** The host side of a demo's matrix product C = A B: A (M x K) and B (K x N) drawn from [-1, 1)
    with seeds 1 and 2, as the grader draws them, and room for C twice: the CPU's answer and the
    GPU's copied back. */
typedef struct {
    float *a, *b, *want, *got;
} DemoProduct;

/** The buffers of an M x K x N product, from demo_alloc (out of memory: no_memory, exit 1); the
    caller frees the four. */
DemoProduct demo_product(int M, int K, int N, const char *no_memory);

/** A device copy of n host floats (cudaMalloc of one float at least, then cudaMemcpy; CUDA_CHECK on both). */
float *demo_to_device(const float *h, size_t n);

/** How many of the n elements of got are outside atol + rtol |want| (NaN counts as outside, as in
    the grader); when worst is not NULL it gets the largest |got - want| (infinity for a NaN). */
size_t demo_count_wrong(const float *got, const float *want, size_t n, double atol, double rtol, double *worst);

#ifdef __cplusplus
}
#endif
#endif
