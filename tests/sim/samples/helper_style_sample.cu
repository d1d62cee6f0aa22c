// helper_style_sample.cu - a program written the way NVIDIA's samples are: checkCudaErrors around
// every call, getLastCudaError after a launch, findCudaDevice, <cuda.h> and <cublas_v2.h> included
// for their error-name helpers. It compiles only if the CUDA headers' include guards exist.
// Build and run: nvcc -o helper_style_sample helper_style_sample.cu && ./helper_style_sample
#include <cuda.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "helper_style.h"

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

int main(int argc, char **argv) {
    printf("[Vector addition, helper style]\n");
    findCudaDevice(argc, (const char **)argv);
    if (!checkCudaCapabilities(3, 0)) {
        printf("needs compute capability 3.0; waived\n");
        exit(EXIT_WAIVED);
    }
    int numElements = 50000;
    size_t size = numElements * sizeof(float);
    float *h_A = (float *)malloc(size), *h_B = (float *)malloc(size), *h_C = (float *)malloc(size);
    for (int i = 0; i < numElements; ++i) {
        h_A[i] = (float)(i % 97) / 97.0f;
        h_B[i] = (float)(i % 89) / 89.0f;
    }
    float *d_A = NULL, *d_B = NULL, *d_C = NULL;
    checkCudaErrors(cudaMalloc((void **)&d_A, size));
    checkCudaErrors(cudaMalloc((void **)&d_B, size));
    checkCudaErrors(cudaMalloc((void **)&d_C, size));
    checkCudaErrors(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));
    int threadsPerBlock = 256;
    int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
    printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
    vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
    getLastCudaError("vectorAdd kernel<<<>>> failed");
    checkCudaErrors(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));
    for (int i = 0; i < numElements; ++i) {
        if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) {
            fprintf(stderr, "Result verification failed at element %d!\n", i);
            printf("FAIL\n");
            exit(EXIT_FAILURE);
        }
    }
    int driver = 0;
    checkCudaErrors(cuDriverGetVersion(&driver));
    printf("driver API version %d\n", driver);
    checkCudaErrors(cudaFree(d_A));
    checkCudaErrors(cudaFree(d_B));
    checkCudaErrors(cudaFree(d_C));
    free(h_A);
    free(h_B);
    free(h_C);
    printf(">>> Test PASSED <<<\nPASS\n");
    return 0;
}
