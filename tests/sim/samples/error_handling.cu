// error_handling.cu - launch configuration errors (too many threads, blockDim.z, gridDim.y), the
// non-sticky cudaGetLastError, cudaGetErrorName/String, and cudaMemcpy with a contradictory kind.
// Build and run: nvcc -o error_handling error_handling.cu && ./error_handling
#include <cstring>
#include "sample_helpers.h"

__global__ void markRan(int* flag) { if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(flag, 1); }

static bool expectError(const char* what, cudaError_t got, cudaError_t want)
{
    printf("%-32s -> %s\n", what, cudaGetErrorName(got));
    if (got != want) printf("  expected %s\n", cudaGetErrorName(want));
    return got == want;
}

int main()
{
    pickDevice(3);
    bool ok = true;
    int* dFlag;
    checkCuda(cudaMalloc(&dFlag, sizeof(int)));
    checkCuda(cudaMemset(dFlag, 0, sizeof(int)));
    cudaGetLastError();  // start from a clean state

    // Each bad configuration is reported by cudaGetLastError, which then resets to cudaSuccess.
    markRan<<<1, 1025>>>(dFlag);
    ok &= expectError("1025 threads per block", cudaGetLastError(), cudaErrorInvalidValue);
    ok &= expectError("  second cudaGetLastError", cudaGetLastError(), cudaSuccess);
    markRan<<<1, dim3(1, 1, 65)>>>(dFlag);
    ok &= expectError("blockDim.z = 65", cudaGetLastError(), cudaErrorInvalidValue);
    ok &= expectError("  second cudaGetLastError", cudaGetLastError(), cudaSuccess);
    markRan<<<dim3(1, 70000), 32>>>(dFlag);
    ok &= expectError("gridDim.y = 70000", cudaGetLastError(), cudaErrorInvalidValue);
    ok &= expectError("  second cudaGetLastError", cudaGetLastError(), cudaSuccess);

    const char* name = cudaGetErrorName(cudaErrorInvalidValue);
    const char* text = cudaGetErrorString(cudaErrorInvalidValue);
    printf("cudaErrorInvalidValue: name \"%s\", string \"%s\"\n", name, text);
    if (!name || strcmp(name, "cudaErrorInvalidValue") != 0) ok = false;
    if (!text || strlen(text) == 0) ok = false;
    if (strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") != 0) ok = false;

    // Host-to-device kind, but the source is device memory and the destination host memory.
    int host = 0;
    cudaError_t err = cudaMemcpy(&host, dFlag, sizeof(int), cudaMemcpyHostToDevice);
    ok &= expectError("cudaMemcpy with the wrong kind", err, cudaErrorInvalidValue);
    cudaGetLastError();  // clear the recorded error before going on

    // None of the failed launches ran; the context still works for a valid launch.
    markRan<<<2, 64>>>(dFlag);
    checkLastKernel();
    checkCuda(cudaMemcpy(&host, dFlag, sizeof(int), cudaMemcpyDeviceToHost));
    printf("valid launch after the errors: flag = %d (expected 1)\n", host);
    if (host != 1) ok = false;
    checkCuda(cudaFree(dFlag));
    return finish(ok);
}
