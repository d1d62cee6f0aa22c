// managed_memory.cu - unified memory from cudaMallocManaged: the host initialises it, a kernel
// updates it in place, and after cudaDeviceSynchronize the host reads and modifies it again.
// Build and run: nvcc -o managed_memory managed_memory.cu && ./managed_memory
#include <vector>
#include "sample_helpers.h"

struct Particle { float x, v; int hits; };

__global__ void step(Particle* p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += p[i].v * dt;
        if (p[i].x < 0.0f) { p[i].x = -p[i].x; p[i].v = -p[i].v; p[i].hits += 1; }
    }
}

static void stepHost(std::vector<Particle>& p, float dt)
{
    for (auto& q : p) {
        q.x += q.v * dt;
        if (q.x < 0.0f) { q.x = -q.x; q.v = -q.v; q.hits += 1; }
    }
}

int main()
{
    int dev = pickDevice(3);
    cudaDeviceProp prop;
    checkCuda(cudaGetDeviceProperties(&prop, dev));
    printf("managedMemory = %d, concurrentManagedAccess = %d\n", prop.managedMemory,
           prop.concurrentManagedAccess);

    const int n = 20000, threads = 256, blocks = (n + threads - 1) / threads;
    const float dt = 0.25f;
    Particle* p;
    checkCuda(cudaMallocManaged(&p, n * sizeof(Particle)));
    std::vector<Particle> ref(n);
    Lcg rng(112358);
    for (int i = 0; i < n; ++i) {  // quarter-valued positions and velocities keep the math exact
        p[i] = Particle{rng.nextInt(0, 40) * 0.25f, rng.nextInt(-20, 20) * 0.25f, 0};
        ref[i] = p[i];
    }

    for (int round = 0; round < 3; ++round) {
        step<<<blocks, threads>>>(p, n, dt);
        checkLastKernel();
        checkCuda(cudaDeviceSynchronize());  // required before the host touches managed memory
        stepHost(ref, dt);
        for (int i = 0; i < n; i += 2) { p[i].v += 0.5f; ref[i].v += 0.5f; }  // host edit in place
    }

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (p[i].x != ref[i].x || p[i].v != ref[i].v || p[i].hits != ref[i].hits) {
            if (bad++ < 5)
                printf("  p[%d] = {%g, %g, %d}, expected {%g, %g, %d}\n", i, p[i].x, p[i].v,
                       p[i].hits, ref[i].x, ref[i].v, ref[i].hits);
        }
    }
    long long hits = 0;
    for (int i = 0; i < n; ++i) hits += p[i].hits;
    printf("%d particles, %lld wall hits, %d mismatches\n", n, hits, bad);
    checkCuda(cudaFree(p));
    return finish(bad == 0);
}
