/**
 * @file matmul_job.h
 * @brief One product C = A B as lesson 04's demo and benchmark time it: the operands and sizes in
 *        one struct, and the calls bench.h's timers take (a function of a void *).
 */
#ifndef LESSON_04_MATMUL_JOB_H
#define LESSON_04_MATMUL_JOB_H

#include <stdlib.h>

#include "cuda_check.h"
#include "matmul_naive.h"

/* h_/d_: where a buffer lives; a MatmulJob holds either (the CPU and the GPU are timed on one), so its fields name roles */
typedef struct {
    const float *A, *B;
    float *C;
    int M, K, N;
    int bx, by;             /* the naive kernel's block shape */
    cublasHandle_t handle;  /* 04.2's handle (NULL where cuBLAS is not used) */
} MatmulJob;

/* The CPU reference (matmul_cpu, sums in double). */
static inline void matmul_job_cpu(void *ctx) {
    MatmulJob *j = (MatmulJob *)ctx;
    matmul_cpu(j->A, j->B, j->C, j->M, j->K, j->N);
}

/* 04.1, the naive kernel, with the job's block shape. */
static inline void matmul_job_naive(void *ctx) {
    MatmulJob *j = (MatmulJob *)ctx;
    CUDA_CHECK(matmul_naive_gpu(j->A, j->B, j->C, j->M, j->K, j->N, j->bx, j->by));
}

#endif
