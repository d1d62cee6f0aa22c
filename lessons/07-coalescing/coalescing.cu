/**
 * @file coalescing.cu
 * @brief Lesson 07: coalescing -- a strided copy, matrix transposes through shared-memory tiles
 *        (plain, then padded against bank conflicts), and particles as an array of structs and as
 *        a struct of arrays.
 *
 * Your file: edit only the regions between `TODO(07.k) begin` and `TODO(07.k) end`.
 * Grade with `make check LESSON=07`; stuck? `make hint LESSON=07`. See what the memory system
 * does with your accesses: `make profile LESSON=07`.
 */
#include "coalescing.h"

// Given: blocks of `block` threads for n elements, rounded up.
static unsigned blocks_for(size_t n, unsigned block) { return (unsigned)((n + block - 1) / block); }

// Given: the transposes' grid, one block per TILE_DIM x TILE_DIM tile of the input: x walks
// the columns, y the rows.
static dim3 tile_grid(int rows, int cols) { return dim3((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM); }

// TODO(07.1) begin
// One thread per output element: thread i reads in[offset + i * stride].
__global__ void copy_strided_kernel(const float *in, float *out, size_t n, unsigned stride, unsigned offset) {
    // TODO(07.1): i from blockIdx, blockDim and threadIdx (as a size_t, since i * stride can pass
    // 2^32); if i < n, out[i] = in[offset + i * stride].
}

extern "C" cudaError_t copy_strided_gpu(const float *d_in, float *d_out, size_t n, unsigned stride, unsigned offset, unsigned block) {
    if (block == 0 || block > 1024 || stride == 0) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(07.1): enough blocks of `block` threads for n elements (blocks_for)
    copy_strided_kernel<<<grid, block>>>(d_in, d_out, n, stride, offset);
    return cudaGetLastError();
}
// TODO(07.1) end

// Given: the naive transpose. Block (x, y) covers the TILE_DIM x TILE_DIM tile of the input at
// tile column x, tile row y; each of its TILE_DIM x BLOCK_ROWS threads moves 4 elements, rows
// threadIdx.y, + 8, + 16, + 24. Neighbouring threads (threadIdx.x) read neighbouring columns of
// one input row -- coalesced -- and write neighbouring *rows* of the output, `rows` floats apart:
// 32 sectors for every 32 floats written.
__global__ void transpose_naive_kernel(const float *in, float *out, int rows, int cols) {
    int c = blockIdx.x * TILE_DIM + threadIdx.x;
    int r = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (r + j < rows && c < cols) out[(size_t)c * rows + r + j] = in[(size_t)(r + j) * cols + c];
}

extern "C" cudaError_t transpose_naive_gpu(const float *d_in, float *d_out, int rows, int cols) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    transpose_naive_kernel<<<tile_grid(rows, cols), dim3(TILE_DIM, BLOCK_ROWS)>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}

// TODO(07.2) begin
// Read the tile along input rows into shared memory, wait, then write it along output rows:
// both global accesses coalesced.
__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols) {
    // TODO(07.2):
    //  0. a tile of TILE_DIM x TILE_DIM floats in shared memory (__shared__ float tile[..][..]);
    //  1. load: as in transpose_naive_kernel, thread (x, y) takes input column
    //     blockIdx.x * TILE_DIM + x and rows blockIdx.y * TILE_DIM + y + j, j = 0, 8, 16, 24;
    //     each element inside the matrix goes to tile[y + j][x];
    //  2. wait until the whole tile is in shared memory;
    //  3. store: the tile's place in the output is mirrored -- tile row blockIdx.x, tile column
    //     blockIdx.y -- and threadIdx.x must again walk along a row, now an *output* row: column
    //     blockIdx.y * TILE_DIM + x, rows blockIdx.x * TILE_DIM + y + j get tile[x][y + j]
    //     (a column of the tile), where inside the cols x rows output.
}

extern "C" cudaError_t transpose_tiled_gpu(const float *d_in, float *d_out, int rows, int cols) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    transpose_tiled_kernel<<<tile_grid(rows, cols), dim3(TILE_DIM, BLOCK_ROWS)>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}
// TODO(07.2) end

// TODO(07.3) begin
// 07.2 without bank conflicts: the same kernel, with a tile whose columns do not sit in one bank.
__global__ void transpose_padded_kernel(const float *in, float *out, int rows, int cols) {
    // TODO(07.3): copy your 07.2 kernel here, then change the tile's shape so that the 32
    // elements of a column fall in 32 different banks (README: "Bank conflicts").
}

extern "C" cudaError_t transpose_padded_gpu(const float *d_in, float *d_out, int rows, int cols) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    transpose_padded_kernel<<<tile_grid(rows, cols), dim3(TILE_DIM, BLOCK_ROWS)>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}
// TODO(07.3) end

// Given: the particle update on the array of structs. Each thread touches 6 floats of its own
// 32-byte particle, so the 32 threads of a warp reading `x` touch 32 different sectors.
__global__ void particles_aos_kernel(Particle *p, size_t n, float dt) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
        p[i].z += p[i].vz * dt;
    }
}

extern "C" cudaError_t particles_aos_gpu(Particle *d_p, size_t n, float dt, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    particles_aos_kernel<<<blocks_for(n, block), block>>>(d_p, n, dt);
    return cudaGetLastError();
}

// TODO(07.4) begin
// The same update on the struct of arrays: a warp reads 32 consecutive x, then 32 consecutive vx...
__global__ void particles_soa_kernel(ParticlesSoA s, size_t n, float dt) {
    // TODO(07.4): i as in 07.1; if i < n: s.f[P_X][i] += s.f[P_VX][i] * dt, and y, z alike.
}

extern "C" cudaError_t particles_soa_gpu(ParticlesSoA d_s, size_t n, float dt, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(07.4): one thread per particle
    particles_soa_kernel<<<grid, block>>>(d_s, n, dt);
    return cudaGetLastError();
}

// AoS -> SoA is a transpose of an n x 8 matrix. A block of 256 threads takes 32 particles: it
// reads their 256 floats as one flat, coalesced run, parks them in shared memory by field, then
// warp k writes field k of the 32 particles -- 32 consecutive floats of array k.
#define CONVERT_PARTICLES 32
__global__ void aos_to_soa_kernel(const Particle *aos, ParticlesSoA soa, size_t n) {
    // TODO(07.4):
    //  1. a __shared__ float array s[PARTICLE_FIELDS][...] -- its row length decides the bank
    //     conflicts (README: "AoS to SoA");
    //  2. first = blockIdx.x * CONVERT_PARTICLES, count = how many of the 32 particles exist;
    //     thread t < count * 8 reads float first * 8 + t of the flat array
    //     (reinterpret_cast<const float *>(aos)), which is field t % 8 of particle t / 8, and
    //     parks it in s[t % 8][t / 8];
    //  3. wait until every float is parked;
    //  4. warp k = t / 32 writes field k: lane i = t % 32 < count stores s[k][i] to
    //     soa.f[k][first + i].
}

extern "C" cudaError_t aos_to_soa_gpu(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(07.4): one block of CONVERT_PARTICLES * PARTICLE_FIELDS threads per 32 particles
    aos_to_soa_kernel<<<grid, CONVERT_PARTICLES * PARTICLE_FIELDS>>>(d_aos, d_soa, n);
    return cudaGetLastError();
}
// TODO(07.4) end
