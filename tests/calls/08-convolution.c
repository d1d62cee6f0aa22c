/* calls/08-convolution.c -- lesson 08's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Images are
   device buffers (only pointers travel); the filters of 08.2 - 08.4 are host arrays and travel by
   value. */
#include "convolution.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_conv2d_gpu(const RunnerCall *c) {
    return conv2d_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), (int)rc_i64(c, 5), (unsigned)rc_u64(c, 6),
                      (unsigned)rc_u64(c, 7));
}
static int64_t call_conv2d_const_gpu(const RunnerCall *c) {
    return conv2d_const_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), (int)rc_i64(c, 5),
                            (unsigned)rc_u64(c, 6), (unsigned)rc_u64(c, 7));
}
static int64_t call_conv2d_tiled_gpu(const RunnerCall *c) {
    return conv2d_tiled_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), (int)rc_i64(c, 5),
                            (unsigned)rc_u64(c, 6));
}
static int64_t call_conv_rows_gpu(const RunnerCall *c) {
    return conv_rows_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), (int)rc_i64(c, 5), (unsigned)rc_u64(c, 6),
                         (unsigned)rc_u64(c, 7));
}
static int64_t call_conv_cols_gpu(const RunnerCall *c) {
    return conv_cols_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), (int)rc_i64(c, 5), (unsigned)rc_u64(c, 6),
                         (unsigned)rc_u64(c, 7));
}
static int64_t call_conv_separable_gpu(const RunnerCall *c) {
    return conv_separable_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), rc_ptr(c, 5), rc_ptr(c, 6),
                              (int)rc_i64(c, 7), (unsigned)rc_u64(c, 8), (unsigned)rc_u64(c, 9));
}

const RunnerFunction runner_functions[] = {
    {"conv2d_gpu", call_conv2d_gpu},
    {"conv2d_const_gpu", call_conv2d_const_gpu},
    {"conv2d_tiled_gpu", call_conv2d_tiled_gpu},
    {"conv_rows_gpu", call_conv_rows_gpu},
    {"conv_cols_gpu", call_conv_cols_gpu},
    {"conv_separable_gpu", call_conv_separable_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static void judge_int(JudgeCall *c, int v) { judge_u64(c, (uint64_t)(int64_t)v); }
/* A host filter of `count` floats (count 0 when fw is out of range: the function must refuse it
   before reading any). */
static void judge_taps(JudgeCall *c, const float *h, int count) { judge_in(c, h, count > 0 ? (size_t)count * sizeof(float) : 0); }
static int filter_count(int fw, int square) { return fw < 1 || fw > CONV_MAX_FW ? 0 : square ? fw * fw : fw; }

cudaError_t conv2d_gpu(const float *d_in, float *d_out, int width, int height, const float *d_filter, int fw, unsigned block_x,
                       unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, "conv2d_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_ptr(&c, d_filter);
    judge_int(&c, fw);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t conv2d_const_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned block_x,
                             unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, "conv2d_const_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_taps(&c, h_filter, filter_count(fw, 1));
    judge_int(&c, fw);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t conv2d_tiled_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned tile) {
    JudgeCall c;
    judge_begin(&c, "conv2d_tiled_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_taps(&c, h_filter, filter_count(fw, 1));
    judge_int(&c, fw);
    judge_u64(&c, tile);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t pass(const char *name, const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                        unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_taps(&c, h_taps, filter_count(fw, 0));
    judge_int(&c, fw);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t conv_rows_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                          unsigned block_y) {
    return pass("conv_rows_gpu", d_in, d_out, width, height, h_taps, fw, block_x, block_y);
}

cudaError_t conv_cols_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                          unsigned block_y) {
    return pass("conv_cols_gpu", d_in, d_out, width, height, h_taps, fw, block_x, block_y);
}

cudaError_t conv_separable_gpu(const float *d_in, float *d_tmp, float *d_out, int width, int height, const float *h_row, const float *h_col,
                               int fw, unsigned block_x, unsigned block_y) {
    JudgeCall c;
    judge_begin(&c, "conv_separable_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_tmp);
    judge_ptr(&c, d_out);
    judge_int(&c, width);
    judge_int(&c, height);
    judge_taps(&c, h_row, filter_count(fw, 0));
    judge_taps(&c, h_col, filter_count(fw, 0));
    judge_int(&c, fw);
    judge_u64(&c, block_x);
    judge_u64(&c, block_y);
    return (cudaError_t)judge_finish(&c);
}
#endif
