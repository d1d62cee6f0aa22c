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

// The two passes' taps (08.4), in constant memory for the same reason as 08.2's filter.
__constant__ float c_row_taps[CONV_MAX_FW];
__constant__ float c_col_taps[CONV_MAX_FW];

// TODO(08.4) begin

// Along the row: fw reads of the same row, neighbouring threads reading neighbouring floats, so
// each warp's loads are contiguous and the repeats come from the L1 cache.
__global__ void conv_rows_kernel(const float *in, float *out, int width, int height, int fw) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = fw / 2;
    const float *row = in + (size_t)y * width;
    float acc = 0.0f;
    if (x >= r && x + r < width) {
        // Away from the left and right edges (almost every pixel) no clamp is needed. Unrolled over
        // the largest width, every tap index is a constant: the multiply-add takes its tap straight
        // from the constant bank, leaving one load and one FMA per tap. Same order as below.
#pragma unroll
        for (int i = 0; i < CONV_MAX_FW; i++)
            if (i < fw) acc += c_row_taps[i] * row[x + r - i];
    } else {
        for (int i = 0; i < fw; i++) acc += c_row_taps[i] * row[clamp_to(x + r - i, width)];
    }
    out[(size_t)y * width + x] = acc;
}

// Down the column: the same, one row apart. The intermediate image is clamped at the top and
// bottom exactly like the input: the column pass is a convolution of its own input.
__global__ void conv_cols_kernel(const float *in, float *out, int width, int height, int fw) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int r = fw / 2;
    float acc = 0.0f;
    if (y >= r && y + r < height) { // away from the top and bottom edges: no clamp, as in the row pass
        const float *p = in + (size_t)(y + r) * width + x;
#pragma unroll
        for (int j = 0; j < CONV_MAX_FW; j++)
            if (j < fw) acc += c_col_taps[j] * p[-(ptrdiff_t)j * width];
    } else {
        for (int j = 0; j < fw; j++) acc += c_col_taps[j] * in[(size_t)clamp_to(y + r - j, height) * width + x];
    }
    out[(size_t)y * width + x] = acc;
}

extern "C" cudaError_t conv_rows_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    // The Async copy joins the stream like the kernel after it, without making the host wait for
    // it in between: the benchmark times each pass with its copy, and a pass takes ~0.1 ms.
    cudaError_t e = cudaMemcpyToSymbolAsync(c_row_taps, h_taps, fw * sizeof(float), 0, cudaMemcpyHostToDevice, 0);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    conv_rows_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}

extern "C" cudaError_t conv_cols_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = cudaMemcpyToSymbolAsync(c_col_taps, h_taps, fw * sizeof(float), 0, cudaMemcpyHostToDevice, 0);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    conv_cols_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
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
