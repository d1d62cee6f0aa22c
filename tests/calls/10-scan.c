/* calls/10-scan.c -- lesson 10's functions across the judge/runner boundary: the judge's stubs,
   which the grader calls as if they were the student's functions, and the runner's table, which
   calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every buffer here
   is a device buffer: only pointers and numbers travel. */
#include "scan.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_block_scan_hs_gpu(const RunnerCall *c) { return block_scan_hs_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (unsigned)rc_u64(c, 3)); }
static int64_t call_block_scan_warp_gpu(const RunnerCall *c) {
    return block_scan_warp_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (unsigned)rc_u64(c, 3));
}
static int64_t call_scan_uint_gpu(const RunnerCall *c) {
    return scan_uint_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (int)rc_u64(c, 3), (unsigned)rc_u64(c, 4), rc_ptr(c, 5));
}
static int64_t call_scan_float_gpu(const RunnerCall *c) {
    return scan_float_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (int)rc_u64(c, 3), (unsigned)rc_u64(c, 4), rc_ptr(c, 5));
}
static int64_t call_compact_gpu(const RunnerCall *c) {
    return compact_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (float)rc_double(c, 3), rc_ptr(c, 4), (unsigned)rc_u64(c, 5), rc_ptr(c, 6));
}
static int64_t call_scan_single_pass_uint_gpu(const RunnerCall *c) {
    return scan_single_pass_uint_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), rc_ptr(c, 3));
}
static int64_t call_scan_single_pass_float_gpu(const RunnerCall *c) {
    return scan_single_pass_float_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), rc_ptr(c, 3));
}

const RunnerFunction runner_functions[] = {
    {"block_scan_hs_gpu", call_block_scan_hs_gpu},
    {"block_scan_warp_gpu", call_block_scan_warp_gpu},
    {"scan_uint_gpu", call_scan_uint_gpu},
    {"scan_float_gpu", call_scan_float_gpu},
    {"compact_gpu", call_compact_gpu},
    {"scan_single_pass_uint_gpu", call_scan_single_pass_uint_gpu},
    {"scan_single_pass_float_gpu", call_scan_single_pass_float_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static cudaError_t block_scan_call(const char *name, const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}
cudaError_t block_scan_hs_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    return block_scan_call("block_scan_hs_gpu", d_in, d_out, n, block);
}
cudaError_t block_scan_warp_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    return block_scan_call("block_scan_warp_gpu", d_in, d_out, n, block);
}

static cudaError_t scan_call(const char *name, const void *d_in, void *d_out, size_t n, int exclusive, unsigned block, void *d_work) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, (uint64_t)exclusive);
    judge_u64(&c, block);
    judge_ptr(&c, d_work);
    return (cudaError_t)judge_finish(&c);
}
cudaError_t scan_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, int exclusive, unsigned block, void *d_work) {
    return scan_call("scan_uint_gpu", d_in, d_out, n, exclusive, block, d_work);
}
cudaError_t scan_float_gpu(const float *d_in, float *d_out, size_t n, int exclusive, unsigned block, void *d_work) {
    return scan_call("scan_float_gpu", d_in, d_out, n, exclusive, block, d_work);
}

cudaError_t compact_gpu(const float *d_in, float *d_out, size_t n, float threshold, unsigned *d_count, unsigned block, void *d_work) {
    JudgeCall c;
    judge_begin(&c, "compact_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_double(&c, threshold);
    judge_ptr(&c, d_count);
    judge_u64(&c, block);
    judge_ptr(&c, d_work);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t single_pass_call(const char *name, const void *d_in, void *d_out, size_t n, void *d_work) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_ptr(&c, d_work);
    return (cudaError_t)judge_finish(&c);
}
cudaError_t scan_single_pass_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, void *d_work) {
    return single_pass_call("scan_single_pass_uint_gpu", d_in, d_out, n, d_work);
}
cudaError_t scan_single_pass_float_gpu(const float *d_in, float *d_out, size_t n, void *d_work) {
    return single_pass_call("scan_single_pass_float_gpu", d_in, d_out, n, d_work);
}
#endif
