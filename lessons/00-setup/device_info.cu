/**
 * @file device_info.cu
 * @brief Lesson 00: asking the CUDA runtime what it sees -- devices, compute capability, limits,
 *        and the runtime and driver versions. No kernels yet: every call here runs on the host.
 *
 * Your file: edit only the regions between `TODO(00.k) begin` and `TODO(00.k) end`.
 * Grade with `make check LESSON=00`; stuck? `make hint LESSON=00`.
 */
#include <stdio.h>
#include <string.h>

#include "device_info.h"

// TODO(00.1) begin
extern "C" cudaError_t device_summary(int device, DeviceSummary *out) {
    // TODO(00.1): call cudaGetDeviceProperties(&prop, device) on a struct cudaDeviceProp; if it
    // fails, return its error. Otherwise copy name, major, minor, multiProcessorCount,
    // totalGlobalMem, warpSize, maxThreadsPerBlock and sharedMemPerBlock into *out.
    (void)device;
    (void)out;
    return cudaSuccess;
}
// TODO(00.1) end

// TODO(00.2) begin
extern "C" void cuda_version_string(int version, char *buf, size_t size) {
    // TODO(00.2): CUDA writes version major.minor as 1000 * major + 10 * minor. Write
    // "major.minor" into buf with snprintf (it never writes more than `size` bytes).
    (void)version;
    (void)buf;
    (void)size;
}
// TODO(00.2) end

// TODO(00.3) begin
extern "C" cudaError_t cuda_setup(CudaSetup *out) {
    // TODO(00.3): fill out->device_count (cudaGetDeviceCount), out->runtime_version
    // (cudaRuntimeGetVersion) and out->driver_version (cudaDriverGetVersion), stopping at the first
    // error; then format both versions into out->runtime and out->driver with cuda_version_string.
    (void)out;
    return cudaSuccess;
}
// TODO(00.3) end
