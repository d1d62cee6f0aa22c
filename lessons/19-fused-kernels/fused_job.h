/**
 * @file fused_job.h
 * @brief One of lesson 19's kernels as its demo and benchmark time it: the operands and sizes in
 *        one struct, the call bench.h's timers take (a function of a void *), and the sizes both
 *        programs read from their command line.
 */
#ifndef LESSON_19_FUSED_JOB_H
#define LESSON_19_FUSED_JOB_H

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "fused.h"

typedef struct {
    int which; /* 0 softmax, 1 layer norm, 2 naive attention, 3 flash attention */
    const float *x, *g, *b;
    float *y;
    int rows, cols;
    const float *q, *k, *v;
    int bh, n, d, causal;
} FusedJob;

/* Runs the job's kernel once on the device (layer norm with eps 1e-5, as the grader uses). */
static inline void fused_job_run(void *ctx) {
    FusedJob *j = (FusedJob *)ctx;
    switch (j->which) {
    case 0: CUDA_CHECK(softmax_gpu(j->x, j->y, j->rows, j->cols)); break;
    case 1: CUDA_CHECK(layernorm_gpu(j->x, j->g, j->b, j->y, j->rows, j->cols, 1e-5f)); break;
    case 2: CUDA_CHECK(attention_naive_gpu(j->q, j->k, j->v, j->y, j->bh, j->n, j->d, j->causal)); break;
    default: CUDA_CHECK(attention_flash_gpu(j->q, j->k, j->v, j->y, j->bh, j->n, j->d, j->causal)); break;
    }
}

/* The sizes from `prog [rows cols bh n d]` (all five or none: then the caller's defaults stay),
   within what the kernels take. When they are not, prints why on stderr (the usage line ends with
   `note`) and returns 0: the caller exits with status 2. */
static inline int fused_read_sizes(int argc, char **argv, const char *prog, const char *note, int *rows, int *cols, int *bh, int *n, int *d) {
    if (argc == 6) *rows = atoi(argv[1]), *cols = atoi(argv[2]), *bh = atoi(argv[3]), *n = atoi(argv[4]), *d = atoi(argv[5]);
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [rows cols bh n d]   %s\n", prog, note);
        return 0;
    }
    if (*rows <= 0 || *cols <= 0 || *cols > ROW_MAX_COLS || *bh <= 0 || *n <= 0 || *d <= 0 || *d > ATT_MAX_D) {
        fprintf(stderr, "%s: sizes must be positive, cols at most %d and d at most %d\n", prog, ROW_MAX_COLS, ATT_MAX_D);
        return 0;
    }
    return 1;
}

#endif
