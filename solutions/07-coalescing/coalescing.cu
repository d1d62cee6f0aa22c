/**
 * @file coalescing.cu
 * @brief Lesson 07: coalescing -- a strided copy, matrix transposes through shared-memory tiles
 *        (plain, then padded against bank conflicts), and particles as an array of structs and as
 *        a struct of arrays. (Reference solution.)
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
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[offset + i * stride];
}

extern "C" cudaError_t copy_strided_gpu(const float *d_in, float *d_out, size_t n, unsigned stride, unsigned offset, unsigned block) {
    if (block == 0 || block > 1024 || stride == 0) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    copy_strided_kernel<<<blocks_for(n, block), block>>>(d_in, d_out, n, stride, offset);
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
// both global accesses coalesced. Reading a *column* of tile[32][32] makes the 32 threads of a
// warp hit one bank: 07.3 fixes that.
__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols) {
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int c = blockIdx.x * TILE_DIM + threadIdx.x; // input column
    int r = blockIdx.y * TILE_DIM + threadIdx.y; // input row (first of 4)
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (r + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r + j) * cols + c];
    __syncthreads(); // the whole tile is in shared memory before anyone reads a column of it

    // The output tile sits at the mirrored place: tile row blockIdx.x, tile column blockIdx.y.
    c = blockIdx.y * TILE_DIM + threadIdx.x; // output column (an input row)
    r = blockIdx.x * TILE_DIM + threadIdx.y; // output row (an input column)
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (r + j < cols && c < rows) out[(size_t)(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" cudaError_t transpose_tiled_gpu(const float *d_in, float *d_out, int rows, int cols) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    transpose_tiled_kernel<<<tile_grid(rows, cols), dim3(TILE_DIM, BLOCK_ROWS)>>>(d_in, d_out, rows, cols);
    return cudaGetLastError();
}
// TODO(07.2) end

// TODO(07.3) begin
// The reference goes beyond the padded tile that 07.3 asks for (README, "Benchmark": the steps
// measured on the H200). Each block of 32 x 8 threads moves a 64 x 64 tile, 16 elements per
// thread instead of 4: four times the loads in flight per thread before the barrier, a quarter of
// the blocks to start and end for the same bytes. Still 4-byte accesses, 32 consecutive floats per
// warp request, and no bank conflicts: with 65 floats per row, element (i, k) sits in bank
// (i + k) % 32, so a warp's 32 elements of a row, and of a column, fall in 32 different banks.
#define BIG_TILE (2 * TILE_DIM)

__global__ void transpose_padded_kernel(const float *in, float *out, int rows, int cols) {
    __shared__ float tile[BIG_TILE][BIG_TILE + 1];
    int c0 = blockIdx.x * BIG_TILE, r0 = blockIdx.y * BIG_TILE;
#pragma unroll
    for (int h = 0; h < BIG_TILE; h += TILE_DIM)
#pragma unroll
        for (int j = 0; j < BIG_TILE; j += BLOCK_ROWS) {
            int r = r0 + threadIdx.y + j, c = c0 + threadIdx.x + h;
            if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x + h] = in[(size_t)r * cols + c];
        }
    __syncthreads(); // the whole tile is in shared memory before anyone reads a column of it
#pragma unroll
    for (int h = 0; h < BIG_TILE; h += TILE_DIM)
#pragma unroll
        for (int j = 0; j < BIG_TILE; j += BLOCK_ROWS) {
            int r = c0 + threadIdx.y + j, c = r0 + threadIdx.x + h; // output row r is input column r
            if (r < cols && c < rows) out[(size_t)r * rows + c] = tile[threadIdx.x + h][threadIdx.y + j];
        }
}

extern "C" cudaError_t transpose_padded_gpu(const float *d_in, float *d_out, int rows, int cols) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    dim3 grid((cols + BIG_TILE - 1) / BIG_TILE, (rows + BIG_TILE - 1) / BIG_TILE);
    transpose_padded_kernel<<<grid, dim3(TILE_DIM, BLOCK_ROWS)>>>(d_in, d_out, rows, cols);
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
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s.f[P_X][i] += s.f[P_VX][i] * dt;
        s.f[P_Y][i] += s.f[P_VY][i] * dt;
        s.f[P_Z][i] += s.f[P_VZ][i] * dt;
    }
}

extern "C" cudaError_t particles_soa_gpu(ParticlesSoA d_s, size_t n, float dt, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    particles_soa_kernel<<<blocks_for(n, block), block>>>(d_s, n, dt);
    return cudaGetLastError();
}

// AoS -> SoA is a transpose of an n x 8 matrix. A block of 256 threads takes 32 particles: it
// reads their 256 floats as one flat, coalesced run (thread t: float t, which is field t % 8 of
// particle t / 8), parks them in shared memory by field, then warp k writes field k of the 32
// particles -- 32 consecutive floats of array k.
#define CONVERT_PARTICLES 32
__global__ void aos_to_soa_kernel(const Particle *aos, ParticlesSoA soa, size_t n) {
    // Rows of 36, not 33: a warp stores 4 particles x 8 fields, to (k, i) = (t % 8, t / 8), and
    // with rows of 36 = 4 (mod 32) banks 4k + i (+ a constant) are all different; with 33 they
    // would be k + i, and (1, 0) would meet (0, 1).
    __shared__ float s[PARTICLE_FIELDS][CONVERT_PARTICLES + 4];
    const float *flat = reinterpret_cast<const float *>(aos);
    size_t first = (size_t)blockIdx.x * CONVERT_PARTICLES;
    unsigned count = n - first < CONVERT_PARTICLES ? (unsigned)(n - first) : CONVERT_PARTICLES;
    unsigned t = threadIdx.x;
    if (t < count * PARTICLE_FIELDS) s[t % PARTICLE_FIELDS][t / PARTICLE_FIELDS] = flat[first * PARTICLE_FIELDS + t];
    __syncthreads(); // every field is parked before any warp writes one out
    unsigned k = t / CONVERT_PARTICLES, i = t % CONVERT_PARTICLES;
    if (i < count) soa.f[k][first + i] = s[k][i];
}

extern "C" cudaError_t aos_to_soa_gpu(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    if (n == 0) return cudaSuccess;
    aos_to_soa_kernel<<<blocks_for(n, CONVERT_PARTICLES), CONVERT_PARTICLES * PARTICLE_FIELDS>>>(d_aos, d_soa, n);
    return cudaGetLastError();
}
// TODO(07.4) end
