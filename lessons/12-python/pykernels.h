/**
 * @file pykernels.h
 * @brief Lesson 12's C API: the library Python loads with ctypes (`libpykernels.so`), the same
 *        function names and contracts as lessons 02 and 05, plus what the grader and the benchmark
 *        read from it; and the CPU references.
 *
 * Your work in this lesson is in Python (cudalib.py, numba_kernels.py, cupy_kernels.py); this
 * header and pykernels.cu are given. `make lib LESSON=12` builds pykernels.cu into a shared
 * library; `make lib LESSON=02` and `make lib LESSON=05` build your own lessons the same way, and a
 * module written against this header loads any of the three. Device pointers are named d_*.
 */
#ifndef LESSON_12_PYKERNELS_H
#define LESSON_12_PYKERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** As lesson 02's: d_c[i] = d_a[i] + d_b[i] for i < n, one thread per element, `block` threads per
    block. Returns the launch's error; does not wait. */
cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block);

/** As lesson 05's: C = A B, row-major, A M x K, B K x N, C M x N (any sizes >= 0, each matrix below
    2^31 elements; cudaErrorInvalidValue otherwise). Here it runs the naive kernel, one thread per
    element of C: the grader's stand-in for your tiled one, with the same name and contract. Returns
    the launch's error; does not wait. */
cudaError_t matmul_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** How many kernels named `kernel` this library has launched since it was loaded
    ("vector_add_kernel", "matmul_naive_kernel"); 0 for any other name. */
unsigned long long pykernels_launches(const char *kernel);

/** Device allocations alive right now (cudaMalloc without cudaFree) on the simulator; -1 on a GPU,
    where the runtime cannot tell. */
long long pykernels_live_allocations(void);

/** The benchmark's C loop: calls `fn` (a function with vector_add_gpu's signature, e.g. the one of
    `make lib LESSON=02`) `reps` times between two CUDA events; returns milliseconds per call, or a
    negative number on an error. */
double pykernels_time_vector_add(void *fn, const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, int reps);
/** The benchmark's ceiling for vector add: one device-to-device cudaMemcpy of `bytes`, `reps`
    times; milliseconds per copy (negative on an error). */
double pykernels_time_copy(void *d_dst, const void *d_src, size_t bytes, int reps);
/** The same for a function with matmul_tiled_gpu's signature. */
double pykernels_time_matmul(void *fn, const float *d_a, const float *d_b, float *d_c, int M, int K, int N, int reps);

/** The CPU reference of vector_add_gpu: c[i] = a[i] + b[i]. */
void vector_add_cpu(const float *a, const float *b, float *c, size_t n);
/** The CPU reference of matmul_tiled_gpu: sums in double, rounded to float once. */
void matmul_cpu(const float *a, const float *b, float *c, int M, int K, int N);
/** The CPU reference of 12.3's grayscale: gray = (299 r + 587 g + 114 b + 500) / 1000 per pixel of
    a packed RGB image (3 bytes per pixel, row-major), as lesson 03's. */
void grayscale_cpu(const unsigned char *rgb, unsigned char *gray, int width, int height);

#ifdef __cplusplus
}
#endif
#endif
