/* misaligned.cu -- what a GPU faults on and a CPU lets pass, each mode one mistake:
 *   float4  a float4 load from a float pointer one element past a 16-byte boundary (a GPU stops the
 *           kernel with cudaErrorMisalignedAddress; the simulator names the access)
 *   aligned the same load from an aligned address (runs)
 *   host    a misaligned float4 load in host code (runs: the host is the CPU it is)
 *   divzero an integer division by zero in host code (SIGFPE, named as such)
 * Usage: misaligned MODE */
#include <cstdio>
#include <cstring>

__global__ void load_float4(const float *a, float *c, int offset) {
    const float4 *a4 = reinterpret_cast<const float4 *>(a + offset);
    float4 v = a4[0];
    c[0] = v.x + v.y + v.z + v.w;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    float *a = nullptr, *c = nullptr;
    cudaMalloc(&a, 64 * sizeof(float));
    cudaMalloc(&c, sizeof(float));
    cudaMemset(a, 0, 64 * sizeof(float));
    if (!strcmp(argv[1], "float4")) load_float4<<<1, 1>>>(a, c, 1);
    else if (!strcmp(argv[1], "aligned")) load_float4<<<1, 1>>>(a, c, 4);
    else if (!strcmp(argv[1], "host")) {
        static float h[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        volatile int one = 1;
        float4 v = *reinterpret_cast<const float4 *>(h + one);
        printf("host %g\n", v.x);
    } else if (!strcmp(argv[1], "divzero")) {
        volatile int zero = 0;
        printf("%d\n", 32 / zero);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("finished: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
