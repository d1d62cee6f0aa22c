/**
 * @file fused_blur.cu
 * @brief Lesson 08's benchmark only: the separable blur in one pass ("going further" after 08.4),
 *        timed beside the two-pass reference and cudaMemcpy (`make bench LESSON=08 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/08-convolution/lesson.mk); bench.c finds
 * fused_blur_step() through a weak symbol. 08.4 itself stays what students write.
 *
 * The two passes of 08.4 each read the image and write it once: 4 image-sized transfers. Here a
 * block blurs a tile of the output in one kernel; the intermediate rows never reach global memory.
 * DRAM moves the image once in and once out; the halo rows and columns that neighbouring tiles both
 * read come from L2. The steps (times on the H200 in lessons/08-convolution/README.md):
 *
 * 1. rows staged (fused_blur_kernel): the input rows the tile needs (TH + 14, clamped at the top and
 *    bottom) and TW + 16 columns of each are copied into shared memory with 16-byte loads; each
 *    thread computes 4 neighbouring outputs of the row pass from 20 staged pixels in registers, for
 *    all TH + 14 rows, into a second tile; then each thread walks down one column of that tile
 *    keeping TH / G sums in registers and writes them (32 neighbouring columns per warp).
 * 2. rows direct (fused_direct_kernel): the row pass reads its 20 pixels straight from global
 *    memory with 16-byte loads that neighbouring threads share through L1: no staging tile, one
 *    barrier fewer, twice the blocks per multiprocessor.
 * 3. columns first (fused_cols_first_kernel): the column pass first, straight from global memory
 *    (each thread walks down one column of the tile and its halo: TH + 14 coalesced loads for TH
 *    sums in registers) into one shared-memory tile, then the row pass from it with 16-byte loads
 *    and stores. Its first phase is 08.4's faster pass, and it needs one tile, not two.
 * 4. step 3 with __launch_bounds__(256, 4): at most 64 registers a thread (91 without, no spills
 *    with), so 4 blocks share a multiprocessor instead of 2 and twice the loads are in flight.
 *
 * The taps are added in the same order as the two-pass kernels (m ascending); columns first sums
 * the same products in another order, so results agree with the two passes to rounding.
 */
#include "convolution.h"

// in, out, width, height, row taps, column taps, filter width (bench.c declares the same type)
typedef cudaError_t (*FusedBlurFn)(const float *, float *, int, int, const float *, const float *, int);

#define FB_RADIUS CONV_MAX_RADIUS // 7: filters narrower than 15 are centred in 15 slots with zeros
#define FB_HALO 8                 // at least the radius, and a multiple of 4 so float4 loads stay aligned
#define FB_THREADS 256

__constant__ float c_fused_row[CONV_MAX_FW];
__constant__ float c_fused_col[CONV_MAX_FW];

__device__ __forceinline__ int fb_clamp(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

// The row pass of one group of 4 outputs: output k (0..3) sums tap m times v[k + 15 - m], v holding
// the 20 input pixels from 8 before the first output on; the 4 sums go to dst as one float4.
__device__ __forceinline__ void fb_row_taps(const float (&v)[20], float *dst) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int m = 0; m < CONV_MAX_FW; m++)
#pragma unroll
        for (int k = 0; k < 4; k++) acc[k] += c_fused_row[m] * v[k + 15 - m];
    *(float4 *)dst = make_float4(acc[0], acc[1], acc[2], acc[3]);
}

// The column pass from the row pass's tile s_tmp (TW wide): thread t takes column t % TW and the
// strip of PER outputs of group g = t / TW. Intermediate row i of the strip is tile row g * PER + i,
// the input at y0 + g * PER - 7 + i; output g * PER + k needs tap m times strip row k + 14 - m.
template <int TW, int PER>
__device__ __forceinline__ void fb_column_pass(const float *s_tmp, float *out, int x0, int y0, int width, int height) {
    const int t = threadIdx.x, c = t % TW, g = t / TW, x = x0 + c;
    float acc[PER];
#pragma unroll
    for (int k = 0; k < PER; k++) acc[k] = 0.0f;
#pragma unroll
    for (int i = PER + 2 * FB_RADIUS - 1; i >= 0; i--) {
        const float v = s_tmp[(g * PER + i) * TW + c];
#pragma unroll
        for (int k = 0; k < PER; k++)
            if (k + 2 * FB_RADIUS - i >= 0 && k + 2 * FB_RADIUS - i < CONV_MAX_FW) acc[k] += c_fused_col[k + 2 * FB_RADIUS - i] * v;
    }
    if (x >= width) return;
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int y = y0 + g * PER + k;
        if (y < height) out[(size_t)y * width + x] = acc[k];
    }
}

template <int TW, int TH>
__global__ void __launch_bounds__(FB_THREADS) fused_blur_kernel(const float *in, float *out, int width, int height) {
    constexpr int ROWS = TH + 2 * FB_RADIUS;    // intermediate rows the tile needs
    constexpr int PITCH = TW + 2 * FB_HALO;     // staged pixels per row
    constexpr int GROUPS = FB_THREADS / TW;     // threads sharing one column in phase 3
    constexpr int PER = TH / GROUPS;            // outputs per thread in phase 3
    static_assert(TW % 32 == 0 && FB_THREADS % TW == 0 && TH % GROUPS == 0, "tile shape");
    extern __shared__ float4 fb_smem[];
    float *s_in = (float *)fb_smem;     // ROWS x PITCH
    float *s_tmp = s_in + ROWS * PITCH; // ROWS x TW
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, t = threadIdx.x;

    // 1. stage (rows clamped; columns clamped only in tiles that touch the left or right edge)
    const bool inside = width % 4 == 0 && x0 - FB_HALO >= 0 && x0 + TW + FB_HALO <= width;
    for (int i = t; i < ROWS * (PITCH / 4); i += FB_THREADS) {
        const int r = i / (PITCH / 4), c = 4 * (i % (PITCH / 4));
        const float *row = in + (size_t)fb_clamp(y0 - FB_RADIUS + r, height) * width;
        const int x = x0 - FB_HALO + c;
        float4 v;
        if (inside) {
            v = *(const float4 *)(row + x);
        } else {
            v.x = row[fb_clamp(x, width)], v.y = row[fb_clamp(x + 1, width)];
            v.z = row[fb_clamp(x + 2, width)], v.w = row[fb_clamp(x + 3, width)];
        }
        *(float4 *)&s_in[r * PITCH + c] = v;
    }
    __syncthreads();

    // 2. the row pass: output x0 + 4q + k of row r needs staged pixel 4q + k + 15 - m for tap m
    for (int i = t; i < ROWS * (TW / 4); i += FB_THREADS) {
        const int r = i / (TW / 4), q = i % (TW / 4);
        float v[20];
#pragma unroll
        for (int j = 0; j < 5; j++) {
            float4 f = *(const float4 *)&s_in[r * PITCH + 4 * q + 4 * j];
            v[4 * j] = f.x, v[4 * j + 1] = f.y, v[4 * j + 2] = f.z, v[4 * j + 3] = f.w;
        }
        fb_row_taps(v, &s_tmp[r * TW + 4 * q]);
    }
    __syncthreads();

    // 3. the column pass
    fb_column_pass<TW, PER>(s_tmp, out, x0, y0, width, height);
}

// B': as above, but the row pass reads its 20 pixels straight from global memory (16-byte loads
// that neighbouring threads share through L1): no staging buffer and one barrier fewer, so twice as
// many blocks fit on a multiprocessor.
template <int TW, int TH>
__global__ void __launch_bounds__(FB_THREADS) fused_direct_kernel(const float *in, float *out, int width, int height) {
    constexpr int ROWS = TH + 2 * FB_RADIUS;
    constexpr int GROUPS = FB_THREADS / TW;
    constexpr int PER = TH / GROUPS;
    static_assert(TW % 32 == 0 && FB_THREADS % TW == 0 && TH % GROUPS == 0, "tile shape");
    extern __shared__ float4 fb_smem[];
    float *s_tmp = (float *)fb_smem; // ROWS x TW
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, t = threadIdx.x;
    const bool inside = width % 4 == 0 && x0 - FB_HALO >= 0 && x0 + TW + FB_HALO <= width;
    for (int i = t; i < ROWS * (TW / 4); i += FB_THREADS) {
        const int r = i / (TW / 4), q = i % (TW / 4);
        const float *row = in + (size_t)fb_clamp(y0 - FB_RADIUS + r, height) * width;
        const int xs = x0 - FB_HALO + 4 * q;
        float v[20];
        if (inside) {
#pragma unroll
            for (int j = 0; j < 5; j++) {
                float4 f = __ldg((const float4 *)(row + xs + 4 * j));
                v[4 * j] = f.x, v[4 * j + 1] = f.y, v[4 * j + 2] = f.z, v[4 * j + 3] = f.w;
            }
        } else {
#pragma unroll
            for (int j = 0; j < 20; j++) v[j] = row[fb_clamp(xs + j, width)];
        }
        fb_row_taps(v, &s_tmp[r * TW + 4 * q]);
    }
    __syncthreads();
    fb_column_pass<TW, PER>(s_tmp, out, x0, y0, width, height);
}

// C: the column pass first, straight from global memory (each thread walks down one column of the
// tile and its halo, PER + 14 coalesced loads for PER sums in registers), into shared memory; then
// the row pass from shared memory to the output with 16-byte loads and stores. TW + 16 = columns
// per group of threads.
template <int TW, int TH, int THREADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) fused_cols_first_kernel(const float *in, float *out, int width, int height) {
    constexpr int COLS = TW + 2 * FB_HALO;
    constexpr int GROUPS = THREADS / COLS;
    constexpr int PER = TH / GROUPS;
    static_assert(THREADS % COLS == 0 && TH % GROUPS == 0 && TW % 4 == 0, "tile shape");
    extern __shared__ float4 fb_smem[];
    float *s_mid = (float *)fb_smem; // TH x COLS
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, t = threadIdx.x;
    {
        const int c = t % COLS, g = t / COLS, x = fb_clamp(x0 - FB_HALO + c, width);
        float acc[PER];
#pragma unroll
        for (int k = 0; k < PER; k++) acc[k] = 0.0f;
#pragma unroll
        for (int i = PER + 2 * FB_RADIUS - 1; i >= 0; i--) {
            const float v = in[(size_t)fb_clamp(y0 + g * PER - FB_RADIUS + i, height) * width + x];
#pragma unroll
            for (int k = 0; k < PER; k++)
                if (k + 2 * FB_RADIUS - i >= 0 && k + 2 * FB_RADIUS - i < CONV_MAX_FW) acc[k] += c_fused_col[k + 2 * FB_RADIUS - i] * v;
        }
#pragma unroll
        for (int k = 0; k < PER; k++) s_mid[(g * PER + k) * COLS + c] = acc[k];
    }
    __syncthreads();
    const bool vec = width % 4 == 0;
    for (int i = t; i < TH * (TW / 4); i += THREADS) {
        const int r = i / (TW / 4), q = i % (TW / 4), y = y0 + r, x = x0 + 4 * q;
        if (y >= height || x >= width) continue;
        float v[20];
#pragma unroll
        for (int j = 0; j < 5; j++) {
            float4 f = *(const float4 *)&s_mid[r * COLS + 4 * q + 4 * j];
            v[4 * j] = f.x, v[4 * j + 1] = f.y, v[4 * j + 2] = f.z, v[4 * j + 3] = f.w;
        }
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int m = 0; m < CONV_MAX_FW; m++)
#pragma unroll
            for (int k = 0; k < 4; k++) acc[k] += c_fused_row[m] * v[k + 15 - m];
        float *o = out + (size_t)y * width + x;
        if (vec && x + 4 <= width) {
            *(float4 *)o = make_float4(acc[0], acc[1], acc[2], acc[3]);
        } else {
            for (int k = 0; k < 4 && x + k < width; k++) o[k] = acc[k];
        }
    }
}

// The taps centred in CONV_MAX_FW slots, as the two-pass reference keeps them.
static cudaError_t upload_centred(const void *symbol, const float *taps, int fw) {
    float centred[CONV_MAX_FW] = {0};
    for (int i = 0; i < fw; i++) centred[FB_RADIUS - fw / 2 + i] = taps[i];
    return cudaMemcpyToSymbolAsync(symbol, centred, sizeof centred, 0, cudaMemcpyHostToDevice, 0);
}

template <int TW, int TH, int KIND, int THREADS = FB_THREADS, int MINB = 1>
static cudaError_t run_fused(const float *d_in, float *d_out, int width, int height, const float *h_row, const float *h_col, int fw) {
    if (fw < 1 || fw > CONV_MAX_FW || fw % 2 == 0) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    void (*kernel)(const float *, float *, int, int);
    if constexpr (KIND == 0) kernel = fused_blur_kernel<TW, TH>;
    else if constexpr (KIND == 1) kernel = fused_direct_kernel<TW, TH>;
    else kernel = fused_cols_first_kernel<TW, TH, THREADS, MINB>;
    const size_t smem = (KIND == 0   ? (size_t)(TH + 2 * FB_RADIUS) * (2 * TW + 2 * FB_HALO)
                         : KIND == 1 ? (size_t)(TH + 2 * FB_RADIUS) * TW
                                     : (size_t)TH * (TW + 2 * FB_HALO)) *
                        sizeof(float);
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess) e = upload_centred(c_fused_row, h_row, fw);
    if (e == cudaSuccess) e = upload_centred(c_fused_col, h_col, fw);
    if (e != cudaSuccess) return e;
    dim3 grid((width + TW - 1) / TW, (height + TH - 1) / TH);
    kernel<<<grid, THREADS, smem>>>(d_in, d_out, width, height);
    return cudaGetLastError();
}

static const struct {
    const char *name;
    FusedBlurFn fn;
} kSteps[] = {
    {"1. rows staged, tile 128 x 32", run_fused<128, 32, 0>},
    {"2. rows from global memory, tile 128 x 64", run_fused<128, 64, 1>},
    {"3. columns first, tile 240 x 32", run_fused<240, 32, 2>},
    {"4. columns first, 240 x 32, 64 registers", run_fused<240, 32, 2, 256, 4>},
};

/** Step k: its name and launcher; returns 0 past the last one. */
extern "C" int fused_blur_step(int k, const char **name, FusedBlurFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
