/**
 * @file main.c
 * @brief Lesson 00's demo (`make run LESSON=00`): what your code reports about this machine --
 *        versions, device count, and a summary of every GPU -- checked for plausibility.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "device_info.h"

int main(void) {
#if ON_SIM
    printf("Lesson 00 on the CPU simulator (no GPU needed; the \"device\" below is simulated)\n");
#else
    printf("Lesson 00 on the GPU backend\n");
#endif
    CudaSetup setup;
    memset(&setup, 0, sizeof setup);
    cudaError_t err = cuda_setup(&setup);
    if (err != cudaSuccess) {
        /* No CUDA_CHECK here: a missing driver or GPU is the thing this demo should explain. */
        printf("cuda_setup failed: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
        if (err == cudaErrorInsufficientDriver)
            printf("  the driver is older than the runtime this program was built with: update the driver, or build with an older toolkit\n");
        if (err == cudaErrorNoDevice) printf("  no GPU is visible: run `make doctor`, or use the simulator (BACKEND=sim)\n");
        return 1;
    }
    if (setup.device_count <= 0 || setup.runtime[0] == '\0') {
        printf("cuda_setup returned nothing yet: do exercises 00.2 and 00.3 (make check LESSON=00)\n");
        return 1;
    }
    printf("CUDA runtime %s, driver supports up to CUDA %s, %d device(s)\n", setup.runtime, setup.driver, setup.device_count);
    if (setup.driver_version < setup.runtime_version)
        printf("  warning: the driver is older than the runtime; kernels will fail with cudaErrorInsufficientDriver\n");

    int bad = 0;
    for (int d = 0; d < setup.device_count; d++) {
        DeviceSummary s;
        memset(&s, 0, sizeof s);
        err = device_summary(d, &s);
        if (err != cudaSuccess) {
            printf("device %d: device_summary failed: %s\n", d, cudaGetErrorName(err));
            bad = 1;
            continue;
        }
        char text[1024];
        device_summary_format_cpu(&s, text, sizeof text);
        printf("device %d: %s", d, text);
        const char *odd = device_summary_check_cpu(&s);
        printf("  check: %s\n", odd ? odd : "plausible for a CUDA GPU");
        if (odd) bad = 1;
    }

    /* Asking for a device that is not there must be an error, not a made-up summary. */
    DeviceSummary none;
    err = device_summary(setup.device_count, &none);
    printf("device_summary(%d) (one past the last device) -> %s\n", setup.device_count, cudaGetErrorName(err));
    if (err != cudaErrorInvalidDevice) bad = 1;
    if (bad) printf("something is off: run `make check LESSON=00` for a diagnosis\n");
    return bad;
}
