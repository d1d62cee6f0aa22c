/**
 * @file matmul_job.h
 * @brief One product C = A B as lesson 05's demo and benchmark time it: the launcher, operands and
 *        sizes in one struct, and the calls bench.h's timers take (a function of a void *).
 */
#ifndef LESSON_05_MATMUL_JOB_H
#define LESSON_05_MATMUL_JOB_H

#include "cuda_check.h"
#include "matmul_tiled.h"

/* The given naive launcher, 05.1's and 05.2's: all three take the same arguments. */
typedef cudaError_t (*MatmulFn)(const float *, const float *, float *, int, int, int);

/* h_/d_: where a buffer lives; a MatmulJob holds either (the CPU and the GPU are timed alike), so its fields name roles */
typedef struct {
    MatmulFn fn;
    const float *a, *b;
    float *c;
    int M, K, N;
} MatmulJob;

/* The job's launcher, on device buffers. */
static inline void matmul_job_gpu(void *ctx) {
    MatmulJob *j = (MatmulJob *)ctx;
    CUDA_CHECK(j->fn(j->a, j->b, j->c, j->M, j->K, j->N));
}

/* The CPU reference (matmul_cpu, sums in double), on host buffers. */
static inline void matmul_job_cpu(void *ctx) {
    MatmulJob *j = (MatmulJob *)ctx;
    matmul_cpu(j->a, j->b, j->c, j->M, j->K, j->N);
}

#endif
