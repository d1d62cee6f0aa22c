/**
 * @file device_info.cu
 * @brief Lesson 00: asking the CUDA runtime what it sees -- devices, compute capability, limits,
 *        and the runtime and driver versions. No kernels yet: every call here runs on the host.
 *        (Reference solution.)
 */
#include <stdio.h>
#include <string.h>

#include "device_info.h"

// TODO(00.1) begin
// One call fetches everything the runtime knows about a device (about a hundred fields); we keep
// the few that later lessons use. The call fails for a device number that does not exist, and that
// error is the caller's to see, so it is returned rather than ignored.
extern "C" cudaError_t device_summary(int device, DeviceSummary *out) {
    struct cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess) return err; // prop holds nothing useful: leave *out alone
    // prop.name is a 256-byte array too; snprintf always NUL-terminates, strncpy does not.
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->major = prop.major;
    out->minor = prop.minor;
    out->multiprocessors = prop.multiProcessorCount;
    out->global_mem_bytes = prop.totalGlobalMem; // already in bytes
    out->warp_size = prop.warpSize;
    out->max_threads_per_block = prop.maxThreadsPerBlock;
    out->shared_mem_per_block = prop.sharedMemPerBlock; // per block, not per multiprocessor
    return cudaSuccess;
}
// TODO(00.1) end

// TODO(00.2) begin
// CUDA encodes a version as 1000 * major + 10 * minor: 12080 is 12.8 (the last digit is unused).
extern "C" void cuda_version_string(int version, char *buf, size_t size) {
    snprintf(buf, size, "%d.%d", version / 1000, (version % 1000) / 10);
}
// TODO(00.2) end

// TODO(00.3) begin
// The runtime (libcudart, which your program links) and the driver (installed with the GPU) are
// versioned separately; the driver must be at least as new as the runtime.
extern "C" cudaError_t cuda_setup(CudaSetup *out) {
    cudaError_t err = cudaGetDeviceCount(&out->device_count);
    if (err == cudaSuccess) err = cudaRuntimeGetVersion(&out->runtime_version);
    if (err == cudaSuccess) err = cudaDriverGetVersion(&out->driver_version);
    if (err != cudaSuccess) return err;
    cuda_version_string(out->runtime_version, out->runtime, sizeof out->runtime);
    cuda_version_string(out->driver_version, out->driver, sizeof out->driver);
    return cudaSuccess;
}
// TODO(00.3) end
