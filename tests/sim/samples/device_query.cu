// device_query.cu - enumerates devices with cudaGetDeviceCount/cudaGetDeviceProperties, checks the
// architectural limits, cudaRuntimeGetVersion/cudaDriverGetVersion and cudaMemGetInfo.
// Build and run: nvcc -o device_query device_query.cu && ./device_query
#include <cstring>
#include "sample_helpers.h"

// Record a failed check and keep going, so that every problem is reported.
#define EXPECT(cond) \
    do { if (!(cond)) { printf("  check failed: %s\n", #cond); ok = false; } } while (0)

int main()
{
    bool ok = true;
    int count = 0;
    checkCuda(cudaGetDeviceCount(&count));
    printf("%d CUDA device(s)\n", count);
    EXPECT(count >= 1);
    for (int dev = 0; dev < count; ++dev) {
        cudaDeviceProp p;
        checkCuda(cudaGetDeviceProperties(&p, dev));
        printf("Device %d: \"%s\"\n", dev, p.name);
        printf("  compute capability        %d.%d\n", p.major, p.minor);
        printf("  multiprocessors           %d\n", p.multiProcessorCount);
        printf("  global memory             %zu MiB\n", p.totalGlobalMem >> 20);
        printf("  shared memory per block   %zu bytes\n", p.sharedMemPerBlock);
        printf("  max threads per block     %d\n", p.maxThreadsPerBlock);
        printf("  max block dims            %d x %d x %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
               p.maxThreadsDim[2]);
        printf("  max grid dims             %d x %d x %d\n", p.maxGridSize[0], p.maxGridSize[1],
               p.maxGridSize[2]);
        printf("  warp size                 %d\n", p.warpSize);
        EXPECT(strlen(p.name) > 0);
        EXPECT(p.major >= 1 && p.minor >= 0);
        EXPECT(p.multiProcessorCount > 0);
        EXPECT(p.totalGlobalMem > 0);
        EXPECT(p.maxThreadsPerBlock == 1024);
        EXPECT(p.warpSize == 32);
        EXPECT(p.sharedMemPerBlock == 48 * 1024);
        EXPECT(p.maxThreadsDim[0] == 1024 && p.maxThreadsDim[1] == 1024 && p.maxThreadsDim[2] == 64);
        EXPECT(p.maxGridSize[0] == 2147483647 && p.maxGridSize[1] == 65535 &&
               p.maxGridSize[2] == 65535);
    }

    // Asking for a device that does not exist is an error (non-sticky: clear it afterwards).
    cudaDeviceProp bogus;
    cudaError_t err = cudaGetDeviceProperties(&bogus, count);
    printf("cudaGetDeviceProperties(%d) -> %s\n", count, cudaGetErrorName(err));
    EXPECT(err == cudaErrorInvalidDevice);
    cudaGetLastError();

    pickDevice(1);
    int runtimeVersion = 0, driverVersion = 0;
    checkCuda(cudaRuntimeGetVersion(&runtimeVersion));
    checkCuda(cudaDriverGetVersion(&driverVersion));
    printf("runtime version %d.%d, driver version %d.%d\n", runtimeVersion / 1000,
           runtimeVersion % 1000 / 10, driverVersion / 1000, driverVersion % 1000 / 10);
    EXPECT(runtimeVersion > 0);
    EXPECT(driverVersion > 0);

    size_t freeBytes = 0, totalBytes = 0;
    checkCuda(cudaMemGetInfo(&freeBytes, &totalBytes));
    printf("memory: %zu MiB free of %zu MiB\n", freeBytes >> 20, totalBytes >> 20);
    EXPECT(totalBytes > 0);
    EXPECT(freeBytes <= totalBytes);
    return finish(ok);
}
