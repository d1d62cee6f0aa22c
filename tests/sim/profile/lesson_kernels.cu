/* lesson_kernels.cu -- the lessons' own kernels for the profiler's comparison with Nsight Compute:
 * the reference solutions of lessons 05 (tiled matrix product), 06 (reductions, divergence) and 07
 * (coalescing), each launched once or a few times at small sizes that are not multiples of the
 * block. Built by tools/simcc --profile for the simulator (the Check suite's "Profile" case) and by
 * nvcc -lineinfo for ncu (tools/ncu_yardstick.sh); docs/results/profiler.md compares the two line by
 * line. Inputs are seeded random; the values are not checked here (the lessons' graders do that). */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "../../../lessons/05-matmul-tiled/matmul_tiled.h"
#include "../../../lessons/06-reduction/reduce.h"
#include "../../../lessons/07-coalescing/coalescing.h"

static float *random_device_floats(size_t n, unsigned *seed) {
    float *h = (float *)malloc(n * sizeof(float)), *d = nullptr;
    for (size_t i = 0; i < n; i++) h[i] = (float)(rand_r(seed) % 2001 - 1000) / 1000.0f;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    return d;
}

int main() {
    unsigned seed = 20261130;
    cudaError_t e = cudaSuccess;
    /* 05: 100 x 100 matrices, not a multiple of the 16 x 16 tile */
    const int m = 100;
    float *a = random_device_floats(m * m, &seed), *b = random_device_floats(m * m, &seed), *c = random_device_floats(m * m, &seed);
    if (!e) e = matmul_reference_naive_gpu(a, b, c, m, m, m);
    if (!e) e = matmul_tiled_gpu(a, b, c, m, m, m);
    if (!e) e = matmul_register_tiled_gpu(a, b, c, m, m, m);
    /* 06: 20,000 + 123 values in blocks of 256 */
    const size_t n = 20123;
    float *in = random_device_floats(n, &seed), *out = random_device_floats(n, &seed), *scratch = random_device_floats(n, &seed);
    if (!e) e = reduce_interleaved_gpu(in, n, out, scratch, 256);
    if (!e) e = reduce_sequential_gpu(in, n, out, scratch, 256);
    if (!e) e = reduce_shuffle_gpu(in, n, out, scratch, 256);
    if (!e) e = channels_divergent_gpu(in, out, 4000 + 17, 256);
    if (!e) e = channels_uniform_gpu(in, out, 4000 + 17, 256);
    /* 07: strided copies, transposes of 100 x 70, particles */
    if (!e) e = copy_strided_gpu(in, out, 16384, 1, 0, 256);
    if (!e) e = copy_strided_gpu(in, out, 512, 32, 0, 256);
    if (!e) e = transpose_naive_gpu(a, c, 100, 70);
    if (!e) e = transpose_tiled_gpu(a, c, 100, 70);
    if (!e) e = transpose_padded_gpu(a, c, 100, 70);
    const size_t particles = 1000 + 7;
    Particle *p = (Particle *)random_device_floats(particles * PARTICLE_FIELDS, &seed);
    ParticlesSoA s;
    for (int k = 0; k < PARTICLE_FIELDS; k++) s.f[k] = random_device_floats(particles, &seed);
    if (!e) e = particles_aos_gpu(p, particles, 0.01f, 256);
    if (!e) e = particles_soa_gpu(s, particles, 0.01f, 256);
    if (!e) e = aos_to_soa_gpu(p, s, particles);
    if (!e) e = cudaDeviceSynchronize();
    printf("%s (seed 20261130)\n", e == cudaSuccess ? "PASS" : cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
