/**
 * @file aos_soa_steps.cu
 * @brief Lesson 07's benchmark only: the steps from 07.4's AoS -> SoA conversion (what the
 *        exercise asks, and the reference does) to one that moves its bytes about as fast as a
 *        copy, each timed beside cudaMemcpy, so that the README can say what each step bought on
 *        the H200 (`make bench LESSON=07 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/07-coalescing/lesson.mk); bench.c finds
 * aos_soa_step() through a weak symbol. 07.4 itself stays what students write.
 *
 * The conversion is a transpose of an n x 8 matrix of floats: 32 bytes read and 32 written per
 * particle. Why each step is faster:
 *
 * - 07.4 (the reference): blocks of 256 threads, one 4-byte load and one 4-byte store per thread,
 *   32 particles (1 KiB) per block. Every access is coalesced (a warp's request is 128 consecutive
 *   bytes, 4 sectors, all used), but each thread has only 4 bytes in flight and each block lives
 *   for one load, a barrier and one store: the multiprocessors spend their time starting blocks and
 *   waiting on memory latency with too few bytes in flight to cover it.
 * - Step 1: no shared memory at all. One thread per particle loads its whole 32-byte struct with
 *   two 16-byte loads, then stores its 8 fields. A warp's store of one field is 32 consecutive
 *   floats (128 bytes, 4 sectors, all used); a warp's 16-byte load touches 32 sectors and uses half
 *   of each, and the other half comes from L1 on the second load: DRAM still moves each byte once.
 *   32 bytes in flight per thread instead of 4, and no barrier.
 * - Step 2: step 1 with 4 particles per thread (loads of all four issued before the first store):
 *   128 bytes in flight per thread.
 * - Step 3: a tile of 256 particles (8 KiB) per block of 256 threads, staged in shared memory:
 *   16-byte loads of consecutive vectors (a warp's request is 512 consecutive bytes, 16 sectors, all
 *   used, no reliance on L1) and 16-byte stores of 4 consecutive particles of one field (a warp
 *   writes 512 consecutive bytes of one field array). Rows of 260 floats keep both the scatter into
 *   shared memory and the vector reads from it free of bank conflicts.
 * - Step 4: step 3 with two tiles per block, the second tile's loads issued before the first
 *   tile's stores (16 KiB in flight per block).
 */
#include "coalescing.h"

typedef cudaError_t (*ConvertFn)(const Particle *, ParticlesSoA, size_t);

static unsigned step_blocks(size_t n, size_t per_block) { return (unsigned)((n + per_block - 1) / per_block); }

// Step 1: one particle per thread, two 16-byte loads, eight 4-byte stores.
__global__ void step_struct_kernel(const Particle *aos, ParticlesSoA soa, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 *p = reinterpret_cast<const float4 *>(aos + i);
    float4 a = p[0], b = p[1];
    soa.f[P_X][i] = a.x, soa.f[P_Y][i] = a.y, soa.f[P_Z][i] = a.z, soa.f[P_VX][i] = a.w;
    soa.f[P_VY][i] = b.x, soa.f[P_VZ][i] = b.y, soa.f[P_MASS][i] = b.z, soa.f[P_CHARGE][i] = b.w;
}

static cudaError_t run_struct(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    if (n == 0) return cudaSuccess;
    step_struct_kernel<<<step_blocks(n, 256), 256>>>(d_aos, d_soa, n);
    return cudaGetLastError();
}

// Step 2: PER particles per thread, i, i + blockDim, ...: every load issued before the first store.
#define STEP2_PER 4
__global__ void step_struct4_kernel(const Particle *aos, ParticlesSoA soa, size_t n) {
    size_t first = (size_t)blockIdx.x * blockDim.x * STEP2_PER + threadIdx.x;
    float4 a[STEP2_PER], b[STEP2_PER];
#pragma unroll
    for (int k = 0; k < STEP2_PER; k++) {
        size_t i = first + (size_t)k * blockDim.x;
        if (i < n) {
            const float4 *p = reinterpret_cast<const float4 *>(aos + i);
            a[k] = p[0], b[k] = p[1];
        }
    }
#pragma unroll
    for (int k = 0; k < STEP2_PER; k++) {
        size_t i = first + (size_t)k * blockDim.x;
        if (i < n) {
            soa.f[P_X][i] = a[k].x, soa.f[P_Y][i] = a[k].y, soa.f[P_Z][i] = a[k].z, soa.f[P_VX][i] = a[k].w;
            soa.f[P_VY][i] = b[k].x, soa.f[P_VZ][i] = b[k].y, soa.f[P_MASS][i] = b[k].z, soa.f[P_CHARGE][i] = b[k].w;
        }
    }
}

static cudaError_t run_struct4(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    if (n == 0) return cudaSuccess;
    step_struct4_kernel<<<step_blocks(n, 256 * STEP2_PER), 256>>>(d_aos, d_soa, n);
    return cudaGetLastError();
}

// Steps 3 and 4: TILES tiles of 256 particles per block of 256 threads, through shared memory.
#define TILE_P 256
#define ROW (TILE_P + 4) // 4 * 260 = 16 (mod 32): fields h * 4 + e of h = 0 and h = 1 sit 16 banks apart

// Thread t loads vectors t and t + 256 of the tile (vector q is half q % 2 of particle q / 2).
__device__ static void tile_load(const Particle *aos, size_t first, unsigned count, float4 v[2]) {
    const float4 *src = reinterpret_cast<const float4 *>(aos + first);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        unsigned q = threadIdx.x + h * TILE_P;
        if (q / 2 < count) v[h] = src[q];
    }
}

// Parks the two vectors by field: s[field][particle].
__device__ static void tile_park(float (*s)[ROW], unsigned count, const float4 v[2]) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
        unsigned q = threadIdx.x + h * TILE_P, p = q / 2, f = (q % 2) * 4;
        if (p < count) s[f][p] = v[h].x, s[f + 1][p] = v[h].y, s[f + 2][p] = v[h].z, s[f + 3][p] = v[h].w;
    }
}

// soa.f[f] for a computed f, picked by selects: indexing the kernel's parameter with a variable
// would copy the whole struct to local memory first.
__device__ static float *field_array(const ParticlesSoA &soa, unsigned f) {
    float *p = soa.f[0];
#pragma unroll
    for (unsigned k = 1; k < PARTICLE_FIELDS; k++)
        if (f == k) p = soa.f[k];
    return p;
}

// Thread t writes 4 consecutive particles of fields t / 64 and t / 64 + 4 (16-byte stores); a
// partial tile, or one whose particles are not 4-aligned in the arrays, is written one float at a time.
__device__ static void tile_store(const float (*s)[ROW], ParticlesSoA soa, size_t first, unsigned count) {
    unsigned m = threadIdx.x % 64;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        unsigned f = threadIdx.x / 64 + 4 * h;
        float *dst = field_array(soa, f) + first;
        if (count == TILE_P) {
            *reinterpret_cast<float4 *>(dst + 4 * m) = *reinterpret_cast<const float4 *>(&s[f][4 * m]);
        } else {
            for (unsigned p = m; p < count; p += 64) dst[p] = s[f][p];
        }
    }
}

template <int TILES>
__global__ void __launch_bounds__(TILE_P) step_tile_kernel(const Particle *aos, ParticlesSoA soa, size_t n) {
    __shared__ __align__(16) float s[PARTICLE_FIELDS][ROW];
    float4 v[TILES][2];
    size_t first = (size_t)blockIdx.x * TILES * TILE_P;
#pragma unroll
    for (int k = 0; k < TILES; k++) { // every load of the block's tiles issued first
        size_t f = first + (size_t)k * TILE_P;
        if (f < n) tile_load(aos, f, n - f < TILE_P ? (unsigned)(n - f) : TILE_P, v[k]);
    }
#pragma unroll
    for (int k = 0; k < TILES; k++) {
        size_t f = first + (size_t)k * TILE_P;
        if (f >= n) break; // the same for the whole block: no thread skips a barrier another reaches
        unsigned count = n - f < TILE_P ? (unsigned)(n - f) : TILE_P;
        if (k > 0) __syncthreads(); // the previous tile is written out before it is overwritten
        tile_park(s, count, v[k]);
        __syncthreads();
        tile_store(s, soa, f, count);
    }
}

template <int TILES>
static cudaError_t run_tile(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    if (n == 0) return cudaSuccess;
    step_tile_kernel<TILES><<<step_blocks(n, (size_t)TILES * TILE_P), TILE_P>>>(d_aos, d_soa, n);
    return cudaGetLastError();
}

static const struct {
    const char *name;
    ConvertFn fn;
} kSteps[] = {
    {"step 1: a struct per thread, 2 x 16-byte loads, no shared memory", run_struct},
    {"step 2: step 1 with 4 structs per thread", run_struct4},
    {"step 3: 256-particle tile in shared memory, 16-byte loads and stores", run_tile<1>},
    {"step 4: step 3 with 2 tiles per block, loads issued first", run_tile<2>},
};

/** Step k of the ladder: its name and launcher; returns 0 past the last step. */
extern "C" int aos_soa_step(int k, const char **name, ConvertFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
