/* errors.cpp -- CUDA's error codes (names, strings, the last-error slot) and the simulator's own
   fatal diagnoses, which stop the program with one clear message. */
#include "internal.h"

#include <cassert>
#include <cstdarg>
#include <cstdio>
#include <unistd.h>

/* No default hook: weak, so it is null unless a test harness defines it. */
extern "C" void simcuda_on_fatal(const char *message) __attribute__((weak));

namespace simcuda {

static cudaError_t g_last_error = cudaSuccess;

void set_last_error(cudaError_t e) {
    if (e != cudaSuccess && e != cudaErrorNotReady) g_last_error = e;
}

cudaError_t record(cudaError_t e) {
    set_last_error(e);
    return e;
}

[[noreturn]] void fatal(const char *what, const std::string &detail, const char *hint) {
    std::string msg = "simcuda: error: ";
    msg += what;
    if (const LaunchRecord *L = current_launch()) {
        char buf[512];
        snprintf(buf, sizeof buf, " in kernel '%s' (launched at %s:%d), %s", L->cfg.site.kernel, L->cfg.site.file, L->cfg.site.line,
                 current_coordinates().c_str());
        msg += buf;
    }
    msg += ": ";
    msg += detail;
    Schedule s = current_schedule();
    if (s.mode == SCHED_RANDOM && current_launch()) {
        char buf[64];
        snprintf(buf, sizeof buf, " [schedule random:%llu]", s.seed);
        msg += buf;
    }
    fflush(stdout);
    /* A harness that takes the message (the grader) reports it itself; SIM_QUIET=1 then avoids
       printing it twice. */
    static const char *quiet = getenv("SIM_QUIET");
    bool hooked = simcuda_on_fatal != nullptr;
    if (!(hooked && quiet && *quiet == '1')) {
        fprintf(stderr, "%s\n", msg.c_str());
        if (hint) fprintf(stderr, "simcuda: hint: %s\n", hint);
        fflush(stderr);
    }
    std::string full = msg;
    if (hint) full += std::string(" (hint: ") + hint + ")";
    if (hooked) simcuda_on_fatal(full.c_str());
    _exit(1);
}

void warn(const std::string &line) {
    static const char *quiet = getenv("SIM_QUIET");
    if (quiet && *quiet == '1') return;
    fflush(stdout);
    fprintf(stderr, "simcuda: %s\n", line.c_str());
    fflush(stderr);
}

} // namespace simcuda

using namespace simcuda;

extern "C" {


cudaError_t cudaGetLastError(void) {
    cudaError_t e = g_last_error;
    g_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return g_last_error; }

struct ErrorText {
    cudaError_t code;
    const char *name, *text;
};
static const ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorSetOnActiveProcess, "cudaErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

static const ErrorText *find_error(cudaError_t e) {
    for (const ErrorText &t : kErrors)
        if (t.code == e) return &t;
    return nullptr;
}

const char *cudaGetErrorString(cudaError_t e) {
    const ErrorText *t = find_error(e);
    return t ? t->text : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e) {
    const ErrorText *t = find_error(e);
    return t ? t->name : "cudaErrorUnknown";
}

/* assert() inside a kernel names the thread that failed, as a GPU's device-side assert does. */
void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function) noexcept {
    if (current_launch()) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s:%u: %s: Assertion `%s` failed", file, line, function, assertion);
        fatal("device-side assert", buf, "on a GPU the program would continue with cudaErrorAssert from the next CUDA call");
    }
    fflush(stdout);
    fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
    abort();
}

} // extern "C"
