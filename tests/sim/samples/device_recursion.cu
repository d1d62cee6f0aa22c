// device_recursion.cu - recursive __device__ functions (compute capability 2.0 and later): Euclid's
// gcd, an in-order walk of a binary search tree stored in arrays, and adaptive Simpson
// integration that splits an interval until the error estimate is small. The per-thread stack is
// raised with cudaDeviceSetLimit(cudaLimitStackSize) first, as deep recursion needs.
// Build and run: nvcc -o device_recursion device_recursion.cu && ./device_recursion
#include <algorithm>
#include <cmath>
#include <vector>
#include "sample_helpers.h"

__host__ __device__ unsigned gcd(unsigned a, unsigned b) { return b == 0 ? a : gcd(b, a % b); }

// Tree nodes: key[i], left[i], right[i] (-1 = none). Writes the keys in order; returns the count.
__device__ int inorder(const int* key, const int* left, const int* right, int node, int* out, int pos)
{
    if (node < 0) return pos;
    pos = inorder(key, left, right, left[node], out, pos);
    out[pos++] = key[node];
    return inorder(key, left, right, right[node], out, pos);
}

__host__ __device__ double f(double x, double k) { return sin(k * x) * exp(-x); }

__host__ __device__ double simpson(double a, double b, double fa, double fm, double fb)
{
    return (b - a) / 6.0 * (fa + 4.0 * fm + fb);
}

__host__ __device__ double adaptive(double a, double b, double fa, double fm, double fb,
                                    double whole, double eps, double k, int depth)
{
    double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm = f(lm, k), frm = f(rm, k);
    double left = simpson(a, m, fa, flm, fm), right = simpson(m, b, fm, frm, fb);
    if (depth <= 0 || fabs(left + right - whole) <= 15.0 * eps)
        return left + right + (left + right - whole) / 15.0;
    return adaptive(a, m, fa, flm, fm, left, eps / 2, k, depth - 1) +
           adaptive(m, b, fm, frm, fb, right, eps / 2, k, depth - 1);
}

__host__ __device__ double integrate(double a, double b, double k)
{
    double fa = f(a, k), fb = f(b, k), fm = f(0.5 * (a + b), k);
    return adaptive(a, b, fa, fm, fb, simpson(a, b, fa, fm, fb), 1e-9, k, 30);
}

__global__ void recursionKernel(const unsigned* ga, const unsigned* gb, unsigned* g, int n,
                                const int* key, const int* left, const int* right, int root,
                                int* sorted, int* count, const double* ks, double* integrals)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        g[i] = gcd(ga[i], gb[i]);
        integrals[i] = integrate(0.0, 4.0, ks[i]);
    }
    if (i == 0) *count = inorder(key, left, right, root, sorted, 0);
}

int main()
{
    pickDevice(3);
    const int n = 200, nodes = 300;
    Lcg rng(2718);
    std::vector<unsigned> a(n), b(n), g(n), refG(n);
    std::vector<double> ks(n), integ(n), refInteg(n);
    for (int i = 0; i < n; ++i) {
        unsigned c = rng.nextInt(1, 1000);
        a[i] = c * rng.nextInt(1, 5000);
        b[i] = c * rng.nextInt(1, 5000);
        refG[i] = gcd(a[i], b[i]);
        ks[i] = rng.nextFloat(0.5f, 8.0f);
        // closed form of the integral of sin(kx) e^-x over [0, 4]
        refInteg[i] = (ks[i] - exp(-4.0) * (sin(4 * ks[i]) + ks[i] * cos(4 * ks[i]))) /
                      (1.0 + ks[i] * ks[i]);
    }
    // A binary search tree built by inserting random distinct keys (unbalanced, depth > 10).
    std::vector<int> key(nodes), left(nodes, -1), right(nodes, -1);
    for (int i = 0; i < nodes; ++i) {
        key[i] = (int)((i * 7919u) % 100003u) ^ (int)(rng.next() & 0x7f000);
        int cur = 0;
        while (i > 0) {
            int& next = key[i] < key[cur] ? left[cur] : right[cur];
            if (next < 0) { next = i; break; }
            cur = next;
        }
    }
    std::vector<int> refSorted(key);
    std::sort(refSorted.begin(), refSorted.end());

    unsigned *dA = toDevice(a), *dB = toDevice(b), *dG;
    int *dKey = toDevice(key), *dLeft = toDevice(left), *dRight = toDevice(right), *dSorted, *dCount;
    double *dK = toDevice(ks), *dInteg;
    checkCuda(cudaMalloc(&dG, n * sizeof(unsigned)));
    checkCuda(cudaMalloc(&dInteg, n * sizeof(double)));
    checkCuda(cudaMalloc(&dSorted, nodes * sizeof(int)));
    checkCuda(cudaMalloc(&dCount, sizeof(int)));

    checkCuda(cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024));
    size_t stack = 0;
    checkCuda(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    recursionKernel<<<(n + 63) / 64, 64>>>(dA, dB, dG, n, dKey, dLeft, dRight, 0, dSorted, dCount,
                                           dK, dInteg);
    checkLastKernel();
    std::vector<int> sorted(nodes);
    int count = 0;
    checkCuda(cudaMemcpy(g.data(), dG, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(integ.data(), dInteg, n * sizeof(double), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(sorted.data(), dSorted, nodes * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));

    printf("stack limit %zu bytes; tree of %d nodes walked: %d keys\n", stack, nodes, count);
    int bad = compareExact("gcd", g.data(), refG.data(), n);
    bad += compareExact("inorder", sorted.data(), refSorted.data(), nodes);
    bad += compareNear("integral", integ.data(), refInteg.data(), n, 1e-7, 1e-8);
    freeDevice(dA, dB, dG, dK, dInteg, dKey, dLeft, dRight, dSorted, dCount);
    return finish(bad == 0 && count == nodes && stack >= 16 * 1024);
}
