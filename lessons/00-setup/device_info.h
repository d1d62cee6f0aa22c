/**
 * @file device_info.h
 * @brief Lesson 00's C API: what the CUDA runtime can tell you about the machine -- the GPUs it
 *        sees, each GPU's compute capability and limits, and the runtime and driver versions.
 *
 * The demo (main.c) and the grader (tests/test_00_setup.c) call these; you write the first three
 * in device_info.cu. The *_cpu functions (device_info_cpu.c) are given: they only format and
 * sanity-check what your code returns.
 */
#ifndef LESSON_00_DEVICE_INFO_H
#define LESSON_00_DEVICE_INFO_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The handful of facts about one GPU that later lessons depend on. */
typedef struct {
    char name[256];              /**< marketing name, e.g. "NVIDIA H200" (NUL-terminated) */
    int major;                   /**< compute capability, major part: 9 for an H100/H200 (sm_90) */
    int minor;                   /**< compute capability, minor part: 0 for sm_90 */
    int multiprocessors;         /**< streaming multiprocessors (SMs): 132 on an H200 */
    size_t global_mem_bytes;     /**< global (device) memory, in bytes */
    int warp_size;               /**< threads that execute in lock-step: 32 on every NVIDIA GPU so far */
    int max_threads_per_block;   /**< the largest block a kernel may be launched with: 1024 */
    size_t shared_mem_per_block; /**< bytes of shared memory a block gets without opting in: 48 KiB */
} DeviceSummary;

/** The software side: how many GPUs the runtime sees, and the two versions that must agree. */
typedef struct {
    int device_count;    /**< from cudaGetDeviceCount */
    int runtime_version; /**< from cudaRuntimeGetVersion: 13000 means CUDA 13.0 */
    int driver_version;  /**< from cudaDriverGetVersion: the newest CUDA the installed driver supports */
    char runtime[16];    /**< runtime_version as text, "13.0" (see cuda_version_string) */
    char driver[16];     /**< driver_version as text */
} CudaSetup;

/** 00.1: fills *out for GPU number `device` (0, 1, ...) from cudaGetDeviceProperties. Returns that
    call's error: cudaErrorInvalidDevice when `device` does not exist (out is then not to be trusted). */
cudaError_t device_summary(int device, DeviceSummary *out);

/** 00.2: writes CUDA's version number as text, major.minor: 13000 -> "13.0", 12080 -> "12.8".
    Writes at most `size` bytes including the terminating NUL (like snprintf); size >= 1. */
void cuda_version_string(int version, char *buf, size_t size);

/** 00.3: fills *out with the device count and the runtime and driver versions (numbers and text).
    Returns the first CUDA error, or cudaSuccess. */
cudaError_t cuda_setup(CudaSetup *out);

/** Given (not an exercise): formats a summary as a few lines of text, like snprintf; returns the
    length the full text needs. */
size_t device_summary_format_cpu(const DeviceSummary *s, char *buf, size_t size);

/** Given (not an exercise): NULL if the summary looks like a real CUDA GPU, else one line saying
    which value is implausible (e.g. a compute capability of 0.9). */
const char *device_summary_check_cpu(const DeviceSummary *s);

#ifdef __cplusplus
}
#endif
#endif
