/* arch_intrinsics.cu -- a program that includes the per-architecture intrinsics headers, as code
 * written for sm_61's __dp4a does, and checks __dp4a and __byte_perm against the host. */
#include <cstdio>
#include <cstdint>
#include <sm_61_intrinsics.h>
#include <sm_32_intrinsics.h>
#include <sm_60_atomic_functions.h>

__global__ void dot4(const int *a, const int *b, int *out, unsigned *perm, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __dp4a(a[i], b[i], i);
        perm[i] = __byte_perm((unsigned)a[i], (unsigned)b[i], 0x5140);
    }
}

static int dp4a_host(int a, int b, int c) {
    for (int k = 0; k < 4; k++) c += (int)(int8_t)(a >> (8 * k)) * (int)(int8_t)(b >> (8 * k));
    return c;
}
static unsigned byte_perm_host(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x, r = 0;
    for (int k = 0; k < 4; k++) r |= ((v >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k);
    return (unsigned)r;
}

int main() {
    const int n = 1000;
    int *a, *b, *out;
    unsigned *perm;
    cudaMallocManaged(&a, n * sizeof(int));
    cudaMallocManaged(&b, n * sizeof(int));
    cudaMallocManaged(&out, n * sizeof(int));
    cudaMallocManaged(&perm, n * sizeof(unsigned));
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (int)s;
        s = s * 1664525u + 1013904223u;
        b[i] = (int)s;
    }
    dot4<<<(n + 255) / 256, 256>>>(a, b, out, perm, n);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (out[i] != dp4a_host(a[i], b[i], i) || perm[i] != byte_perm_host((unsigned)a[i], (unsigned)b[i], 0x5140)) bad++;
    printf("__dp4a and __byte_perm through <sm_61_intrinsics.h>: %d of %d wrong\n", bad, n);
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
