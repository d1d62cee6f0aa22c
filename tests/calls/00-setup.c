/* calls/00-setup.c -- lesson 00's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every output here
   is a host buffer: it travels both ways, sized from the header's contract, and the bytes after it
   are guarded. */
#include "device_info.h"

#define CALLS(X)                                                                                                                   \
    X(cudaError_t, device_summary, NUM(int, device), OBJ(DeviceSummary *, out, "*out is one DeviceSummary; write only its fields")) \
    X(void, cuda_version_string, NUM(int, version), INOUT(char *, buf, size, "buf", "sprintf ignores the size; use snprintf(buf, size, ...)"), \
      NUM(size_t, size))                                                                                                           \
    X(cudaError_t, cuda_setup,                                                                                                     \
      OBJ(CudaSetup *, out, "*out is one CudaSetup; format the versions with cuda_version_string(v, buf, sizeof buf)"))

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

/* Zeroes the runner's stack below the frame that calls the student's functions (every call is
   made from the same depth), so a student's uninitialised local struct cudaDeviceProp cannot hold
   what an earlier call left there. */
static __attribute__((noinline)) int64_t b_scrub_stack(const RunnerCall *c) {
    (void)c;
    volatile unsigned char junk[32768];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = 0;
    return 0;
}
#define RUNNER_EXTRA {"grade.ScrubStack", b_scrub_stack},
#endif
#include "calls_table.h"
