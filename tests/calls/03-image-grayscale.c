/* calls/03-image-grayscale.c -- lesson 03's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every image
   here is a device buffer: only pointers and numbers travel. */
#include "grayscale.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_grayscale_gpu(const RunnerCall *c) {
    return grayscale_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (unsigned)rc_u64(c, 5),
                         (unsigned)rc_u64(c, 6));
}
static int64_t call_rotate90_gpu(const RunnerCall *c) {
    return rotate90_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), (unsigned)rc_u64(c, 4), (unsigned)rc_u64(c, 5));
}
static int64_t call_grayscale_wide_gpu(const RunnerCall *c) {
    return grayscale_wide_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (unsigned)rc_u64(c, 5));
}

const RunnerFunction runner_functions[] = {
    {"grayscale_gpu", call_grayscale_gpu},
    {"rotate90_gpu", call_rotate90_gpu},
    {"grayscale_wide_gpu", call_grayscale_wide_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static void judge_int(JudgeCall *c, int v) { judge_u64(c, (uint64_t)(int64_t)v); }

cudaError_t grayscale_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block_x,
                          unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, "grayscale_gpu", 1);
    judge_ptr(&c, d_rgb);
    judge_ptr(&c, d_gray);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_int(&c, channels);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t rotate90_gpu(const unsigned char *d_in, unsigned char *d_out, int width, int height, unsigned block_x, unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, "rotate90_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t grayscale_wide_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "grayscale_wide_gpu", 1);
    judge_ptr(&c, d_rgb);
    judge_ptr(&c, d_gray);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_int(&c, channels);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}
#endif
