/* launch_errors.cu -- invalid launch configurations and API misuse must return CUDA's error codes
 * (values measured on an H200 with CUDA 13.0); prints one line per case, then PASS or FAIL.
 * Build: nvcc -o launch_errors launch_errors.cu  (or tools/simcc) */
#include <cstdio>

__global__ void touch(int *p) {
    if (p && threadIdx.x == 0 && blockIdx.x == 0) *p = 42;
}
__global__ void uses_dynamic_shared(int *p) {
    extern __shared__ int buf[];
    buf[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) *p = buf[0] + 7;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-48s %s\n", what, cudaGetErrorName(got));
    if (got != want) {
        printf("  expected %s\n", cudaGetErrorName(want));
        failures++;
    }
}

int main() {
    int *d = nullptr, h = 0;
    cudaMalloc(&d, sizeof(int));
    touch<<<1, 1025>>>(d);
    expect("1025 threads per block", cudaGetLastError(), cudaErrorInvalidValue);
    expect("  ... then cleared", cudaGetLastError(), cudaSuccess);
    touch<<<dim3(1, 70000), 32>>>(d);
    expect("gridDim.y = 70000", cudaGetLastError(), cudaErrorInvalidValue);
    touch<<<0, 32>>>(d);
    expect("gridDim.x = 0", cudaGetLastError(), cudaErrorInvalidValue);
    touch<<<1, dim3(1, 1, 65)>>>(d);
    expect("blockDim.z = 65", cudaGetLastError(), cudaErrorInvalidValue);
    touch<<<1, dim3(32, 33)>>>(d);
    expect("32 x 33 = 1056 threads", cudaGetLastError(), cudaErrorInvalidValue);
    uses_dynamic_shared<<<1, 32, 64 * 1024>>>(d);
    expect("64 KiB dynamic shared without opt-in", cudaGetLastError(), cudaErrorInvalidValue);
    expect("opt in to 64 KiB", cudaFuncSetAttribute(uses_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024), cudaSuccess);
    uses_dynamic_shared<<<1, 32, 64 * 1024>>>(d);
    expect("64 KiB dynamic shared after opt-in", cudaGetLastError(), cudaSuccess);
    expect("synchronize", cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
    printf("%-48s %d\n", "kernel after opt-in wrote", h);
    if (h != 7) failures++;
    touch<<<1, 1024>>>(d);
    expect("1024 threads per block", cudaGetLastError(), cudaSuccess);
    int host_value = 0;
    expect("memcpy kind contradicts pointers", cudaMemcpy(&host_value, d, sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    expect("  ... also reported by cudaGetLastError", cudaGetLastError(), cudaErrorInvalidValue);
    expect("  ... not sticky", cudaMemcpy(&host_value, d, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    printf("%-48s %d\n", "value copied back", host_value);
    if (host_value != 42) failures++;
    cudaEvent_t never;
    cudaEventCreate(&never);
    float ms = 0;
    expect("elapsed time of unrecorded events", cudaEventElapsedTime(&ms, never, never), cudaErrorInvalidResourceHandle);
    expect("cudaSetDevice(99)", cudaSetDevice(99), cudaErrorInvalidDevice);
    printf("%-48s %s / %s\n", "names", cudaGetErrorName(cudaErrorInvalidValue), cudaGetErrorString(cudaErrorInvalidValue));
    cudaFree(d);
    printf(failures ? "FAIL\n" : "PASS\n");
    return failures ? 1 : 0;
}
