/**
 * @file convolution.cu
 * @brief Lesson 08: 2D convolution with clamp-to-edge borders -- direct, with the filter in constant
 *        memory, with shared-memory tiles and halos -- and the separable Gaussian blur. (Reference solution.)
 */
#include "convolution.h"

// Filter widths are odd, 1 to CONV_MAX_FW (radius r = fw / 2 up to 7); anything else is refused.
static bool bad_width(int fw) { return fw < 1 || fw > CONV_MAX_FW || fw % 2 == 0; }

// The nearest coordinate inside 0 .. n-1: the clamp-to-edge border rule.
__device__ __forceinline__ int clamp_to(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

// TODO(08.1) begin
// One thread per output pixel; the filter is read from global memory. Tap (fx, fy) meets the pixel
// at offset (r - fx, r - fy): a convolution, so the filter is used turned half a turn.
__global__ void conv2d_kernel(const float *in, float *out, int width, int height, const float *filter, int fw) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return; // no barrier in this kernel, so returning early is fine
    int r = fw / 2;
    float acc = 0.0f;
    for (int fy = 0; fy < fw; fy++) {
        const float *row = in + (size_t)clamp_to(y + r - fy, height) * width;
        for (int fx = 0; fx < fw; fx++) acc += filter[fy * fw + fx] * row[clamp_to(x + r - fx, width)];
    }
    out[(size_t)y * width + x] = acc;
}

extern "C" cudaError_t conv2d_gpu(const float *d_in, float *d_out, int width, int height, const float *d_filter, int fw, unsigned block_x,
                                  unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    dim3 block(block_x, block_y);
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    conv2d_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, fw);
    return cudaGetLastError();
}
// TODO(08.1) end

// The filter in constant memory (08.2, 08.3): 64 KiB per device, cached, and served to a whole warp
// in one go when every thread reads the same address -- which is what happens here, since all the
// threads of a warp are at the same tap (fx, fy) at the same time.
__constant__ float c_filter[CONV_MAX_FW * CONV_MAX_FW];

// TODO(08.2) begin

// Copies fw * fw floats from the host into c_filter (used by 08.2 and 08.3).
static cudaError_t upload_filter(const float *h_filter, int fw) {
    return cudaMemcpyToSymbol(c_filter, h_filter, (size_t)fw * fw * sizeof(float));
}

__global__ void conv2d_const_kernel(const float *in, float *out, int width, int height, int fw) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = fw / 2;
    float acc = 0.0f;
    for (int fy = 0; fy < fw; fy++) {
        const float *row = in + (size_t)clamp_to(y + r - fy, height) * width;
        for (int fx = 0; fx < fw; fx++) acc += c_filter[fy * fw + fx] * row[clamp_to(x + r - fx, width)];
    }
    out[(size_t)y * width + x] = acc;
}

extern "C" cudaError_t conv2d_const_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned block_x,
                                        unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_filter(h_filter, fw);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    conv2d_const_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}
// TODO(08.2) end

// TODO(08.3) begin
// A block of T x T threads computes a T x T tile of the output. It needs the input under the tile
// plus r pixels on every side (the halo): (T + 2r)^2 pixels, loaded once into shared memory by all
// the block's threads together, then read (2r + 1)^2 times over by the multiply-adds.
// T = blockDim.x = blockDim.y (8, 16 or 32); the array is sized for the largest tile and filter.
__global__ void conv2d_tiled_kernel(const float *in, float *out, int width, int height, int fw) {
    __shared__ float tile[32 + 2 * CONV_MAX_RADIUS][32 + 2 * CONV_MAX_RADIUS];
    const int T = blockDim.x;
    int r = fw / 2, side = T + 2 * r;
    int tx = threadIdx.x, ty = threadIdx.y;
    // The image coordinates of shared slot (0, 0): the tile's corner, r pixels up and to the left.
    int x0 = blockIdx.x * T - r, y0 = blockIdx.y * T - r;
    // side^2 slots, T^2 threads: each thread loads slots t, t + T^2, t + 2 T^2, ... Outside the
    // image (edge blocks, and blocks that stick out) the clamp picks the nearest edge pixel.
    for (int s = ty * T + tx; s < side * side; s += T * T) {
        int sy = s / side, sx = s % side;
        tile[sy][sx] = in[(size_t)clamp_to(y0 + sy, height) * width + clamp_to(x0 + sx, width)];
    }
    // Every slot is written before anyone reads: the multiply-adds read slots of other threads.
    __syncthreads();
    int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    if (x < width && y < height) { // only the store is guarded: every thread loaded and waited above
        float acc = 0.0f;
        // Image pixel (x + r - fx, y + r - fy) sits in slot (tx + 2r - fx, ty + 2r - fy).
        for (int fy = 0; fy < fw; fy++)
            for (int fx = 0; fx < fw; fx++) acc += c_filter[fy * fw + fx] * tile[ty + 2 * r - fy][tx + 2 * r - fx];
        out[(size_t)y * width + x] = acc;
    }
}

extern "C" cudaError_t conv2d_tiled_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned tile) {
    if (bad_width(fw) || (tile != 8 && tile != 16 && tile != 32)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_filter(h_filter, fw);
    if (e != cudaSuccess) return e;
    dim3 block(tile, tile);
    dim3 grid((width + tile - 1) / tile, (height + tile - 1) / tile);
    conv2d_tiled_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}
// TODO(08.3) end

// The two passes' taps (08.4), in constant memory for the same reason as 08.2's filter. Each is
// stored centred in CONV_MAX_FW slots, zeros around it: tap m multiplies the pixel 7 - m away
// whatever fw is, so the kernels below index registers with constants only (an array indexed with
// a number known only at run time would live in slow local memory), and a zero tap adds 0.
__constant__ float c_row_taps[CONV_MAX_FW];
__constant__ float c_col_taps[CONV_MAX_FW];

// TODO(08.4) begin

// The row pass reads each pixel once from global memory into shared memory, and each thread then
// computes ROW_OUTPUTS neighbouring outputs from registers: one 16-byte shared-memory read brings 4
// pixels, and every pixel serves up to 15 outputs without being read again.
#ifndef ROW_OUTPUTS // a multiple of 4 (may be set with -D to compare)
#define ROW_OUTPUTS 4
#endif
#define ROW_HALO 8 // at least the largest radius (7), and a multiple of 4 so float4 reads stay aligned

// The taps centred in CONV_MAX_FW slots (see above), from the fw given.
static void centre_taps(const float *taps, int fw, float *centred) {
    int r = fw / 2;
    for (int m = 0; m < CONV_MAX_FW; m++) centred[m] = 0.0f;
    for (int i = 0; i < fw; i++) centred[CONV_MAX_RADIUS - r + i] = taps[i];
}

// Block: blockDim.y rows, each a segment of ROW_OUTPUTS * blockDim.x outputs. Thread t computes
// outputs x0 + 4t .. x0 + 4t + 3 (for ROW_OUTPUTS = 4) from the 20 pixels s[4t .. 4t + 19], where
// s[j] is the input at x0 - ROW_HALO + j (clamped at the left and right edges when loaded).
__global__ void conv_rows_kernel(const float *in, float *out, int width, int height) {
    extern __shared__ float4 row_tiles[]; // float4: 16-byte aligned
    const int span = ROW_OUTPUTS * blockDim.x, pitch = span + 2 * ROW_HALO;
    const int y = blockIdx.y * blockDim.y + threadIdx.y, x0 = blockIdx.x * span;
    float *s = (float *)row_tiles + threadIdx.y * pitch;
    if (y < height) { // neighbouring threads load neighbouring pixels: coalesced
        const float *row = in + (size_t)y * width;
        const int first = x0 - ROW_HALO;
        if (width % 4 == 0 && first >= 0 && first + pitch <= width) {
            // away from the left and right edges nothing is clamped, and with rows a multiple of 4
            // floats long every 4 pixels are one aligned 16-byte load: a quarter of the instructions
            const float4 *src = (const float4 *)(row + first);
            for (int j = threadIdx.x; j < pitch / 4; j += blockDim.x) row_tiles[threadIdx.y * (pitch / 4) + j] = src[j];
        } else {
            for (int j = threadIdx.x; j < pitch; j += blockDim.x) s[j] = row[clamp_to(first + j, width)];
        }
    }
    __syncthreads();
    const int x = x0 + ROW_OUTPUTS * threadIdx.x;
    if (y >= height || x >= width) return;
    float v[ROW_OUTPUTS + 16];
#pragma unroll
    for (int q = 0; q < ROW_OUTPUTS / 4 + 4; q++) {
        float4 f = *(const float4 *)&s[ROW_OUTPUTS * threadIdx.x + 4 * q];
        v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
    }
    // Output x + k needs pixel x + k + 7 - m for tap m, that is v[k + 15 - m]; m ascending, as in
    // the CPU reference, so the sums round the same way.
    float acc[ROW_OUTPUTS];
#pragma unroll
    for (int k = 0; k < ROW_OUTPUTS; k++) acc[k] = 0.0f;
#pragma unroll
    for (int m = 0; m < CONV_MAX_FW; m++)
#pragma unroll
        for (int k = 0; k < ROW_OUTPUTS; k++) acc[k] += c_row_taps[m] * v[k + 15 - m];
    float *o = out + (size_t)y * width + x;
    if (width % 4 == 0 && x + ROW_OUTPUTS <= width) { // every row starts 16-byte aligned, and x is a multiple of 4
#pragma unroll
        for (int k = 0; k < ROW_OUTPUTS; k += 4) *(float4 *)(o + k) = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
    } else {
        for (int k = 0; k < ROW_OUTPUTS && x + k < width; k++) o[k] = acc[k];
    }
}

// The column pass: each thread walks down one column computing COL_OUTPUTS outputs, keeping their
// sums in registers. Every input row it loads (COL_OUTPUTS + 14 of them, clamped at the top and
// bottom: the intermediate image's border rule is the input's) serves up to 15 outputs; the warp's
// 32 threads are 32 neighbouring columns, so each load is one coalesced 128-byte row segment.
#define COL_OUTPUTS 16
__global__ void conv_cols_kernel(const float *in, float *out, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * COL_OUTPUTS;
    if (x >= width || y0 >= height) return;
    float acc[COL_OUTPUTS];
#pragma unroll
    for (int k = 0; k < COL_OUTPUTS; k++) acc[k] = 0.0f;
    // Row i (0 .. COL_OUTPUTS + 13) is the input at y0 - 7 + i. Output y0 + k needs tap m times
    // row k + 14 - m; walking the rows upwards adds each output's taps in ascending m.
#pragma unroll
    for (int i = COL_OUTPUTS + 2 * CONV_MAX_RADIUS - 1; i >= 0; i--) {
        float v = in[(size_t)clamp_to(y0 - CONV_MAX_RADIUS + i, height) * width + x];
#pragma unroll
        for (int k = 0; k < COL_OUTPUTS; k++)
            if (k + 2 * CONV_MAX_RADIUS - i >= 0 && k + 2 * CONV_MAX_RADIUS - i < CONV_MAX_FW)
                acc[k] += c_col_taps[k + 2 * CONV_MAX_RADIUS - i] * v;
    }
#pragma unroll
    for (int k = 0; k < COL_OUTPUTS; k++)
        if (y0 + k < height) out[(size_t)(y0 + k) * width + x] = acc[k];
}

// The taps travel with the kernel: a 60-byte Async copy into the same stream, which the kernel
// after it waits for without making the host wait.
static cudaError_t upload_taps(const void *symbol, const float *h_taps, int fw) {
    float centred[CONV_MAX_FW];
    centre_taps(h_taps, fw, centred);
    return cudaMemcpyToSymbolAsync(symbol, centred, sizeof centred, 0, cudaMemcpyHostToDevice, 0);
}

extern "C" cudaError_t conv_rows_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_taps(c_row_taps, h_taps, fw);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    dim3 grid((width + ROW_OUTPUTS * block_x - 1) / (ROW_OUTPUTS * block_x), (height + block_y - 1) / block_y);
    size_t smem = (size_t)block_y * (ROW_OUTPUTS * block_x + 2 * ROW_HALO) * sizeof(float);
    conv_rows_kernel<<<grid, block, smem>>>(d_in, d_out, width, height);
    return cudaGetLastError();
}

extern "C" cudaError_t conv_cols_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_taps(c_col_taps, h_taps, fw);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    unsigned rows_per_block = COL_OUTPUTS * block_y;
    dim3 grid((width + block_x - 1) / block_x, (height + rows_per_block - 1) / rows_per_block);
    conv_cols_kernel<<<grid, block>>>(d_in, d_out, width, height);
    return cudaGetLastError();
}

extern "C" cudaError_t conv_separable_gpu(const float *d_in, float *d_tmp, float *d_out, int width, int height, const float *h_row,
                                          const float *h_col, int fw, unsigned block_x, unsigned block_y) {
    // f[fy][fx] = h_col[fy] * h_row[fx]: the row taps run along x, the column taps along y. Both
    // launches go to the same stream, so the column pass starts after the row pass has finished.
    cudaError_t e = conv_rows_gpu(d_in, d_tmp, width, height, h_row, fw, block_x, block_y);
    if (e != cudaSuccess) return e;
    return conv_cols_gpu(d_tmp, d_out, width, height, h_col, fw, block_x, block_y);
}
// TODO(08.4) end
