/* calls/00-setup.c -- lesson 00's functions across the judge/runner boundary: the judge's stubs,
   which the grader calls as if they were the student's functions, and the runner's table, which
   calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every output here
   is a host buffer: it travels both ways, sized from the header's contract, and the bytes after it
   are guarded. */
#include "device_info.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_device_summary(const RunnerCall *c) {
    if (c->req->args[1].bytes < sizeof(DeviceSummary)) return cudaErrorInvalidValue;
    return device_summary((int)rc_i64(c, 0), rc_ptr(c, 1));
}
static int64_t call_cuda_version_string(const RunnerCall *c) {
    cuda_version_string((int)rc_i64(c, 0), rc_ptr(c, 1), rc_u64(c, 2));
    return 0;
}
static int64_t call_cuda_setup(const RunnerCall *c) {
    if (c->req->args[0].bytes < sizeof(CudaSetup)) return cudaErrorInvalidValue;
    return cuda_setup(rc_ptr(c, 0));
}

/* Zeroes the runner's stack below the frame that calls the student's functions (every call is
   made from the same depth), so a student's uninitialised local struct cudaDeviceProp cannot hold
   what an earlier call left there. */
static __attribute__((noinline)) int64_t b_scrub_stack(const RunnerCall *c) {
    (void)c;
    volatile unsigned char junk[32768];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = 0;
    return 0;
}

const RunnerFunction runner_functions[] = {
    {"device_summary", call_device_summary},
    {"cuda_version_string", call_cuda_version_string},
    {"cuda_setup", call_cuda_setup},
    {"grade.ScrubStack", b_scrub_stack},
    {NULL, NULL},
};

#else
#include "judge.h"

cudaError_t device_summary(int device, DeviceSummary *out) {
    JudgeCall c;
    judge_begin(&c, "device_summary", 1);
    judge_u64(&c, (uint64_t)(int64_t)device);
    judge_inout(&c, out, sizeof *out, "out", "*out is one DeviceSummary; write only its fields");
    return (cudaError_t)judge_finish(&c);
}

void cuda_version_string(int version, char *buf, size_t size) {
    JudgeCall c;
    judge_begin(&c, "cuda_version_string", 1);
    judge_u64(&c, (uint64_t)(int64_t)version);
    judge_inout(&c, buf, size, "buf", "sprintf ignores the size; use snprintf(buf, size, ...)");
    judge_u64(&c, size);
    judge_finish(&c);
}

cudaError_t cuda_setup(CudaSetup *out) {
    JudgeCall c;
    judge_begin(&c, "cuda_setup", 1);
    judge_inout(&c, out, sizeof *out, "out", "*out is one CudaSetup; format the versions with cuda_version_string(v, buf, sizeof buf)");
    return (cudaError_t)judge_finish(&c);
}
#endif
