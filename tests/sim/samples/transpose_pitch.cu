// transpose_pitch.cu - matrix transpose through 32x33 __shared__ tiles (the padding column avoids
// bank conflicts), 32x8 threads each moving 4 elements, on pitched allocations from cudaMallocPitch
// filled and read back with cudaMemcpy2D; sizes that are not multiples of the tile.
// Build and run: nvcc -o transpose_pitch transpose_pitch.cu && ./transpose_pitch
#include <vector>
#include "sample_helpers.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// in: rows x cols (pitch inPitch bytes); out: cols x rows (pitch outPitch bytes).
__global__ void transposeTiled(const float* in, size_t inPitch, float* out, size_t outPitch,
                               int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column in `in`
    int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row in `in`
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            const float* row = (const float*)((const char*)in + (size_t)(y + j) * inPitch);
            tile[threadIdx.y + j][threadIdx.x] = row[x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;  // column in `out` = row in `in`
    y = blockIdx.x * TILE_DIM + threadIdx.y;  // row in `out`
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) {
            float* row = (float*)((char*)out + (size_t)(y + j) * outPitch);
            row[x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

int main()
{
    pickDevice(3);
    const int rows = 100, cols = 77;
    std::vector<float> a(rows * cols), t(cols * rows);
    Lcg rng(1234);
    for (float& v : a) v = rng.nextFloat(-1000.0f, 1000.0f);

    float *dIn, *dOut;
    size_t inPitch, outPitch;
    checkCuda(cudaMallocPitch((void**)&dIn, &inPitch, cols * sizeof(float), rows));
    checkCuda(cudaMallocPitch((void**)&dOut, &outPitch, rows * sizeof(float), cols));
    printf("pitches: in %zu bytes for rows of %zu, out %zu bytes for rows of %zu\n", inPitch,
           cols * sizeof(float), outPitch, rows * sizeof(float));
    bool ok = inPitch >= cols * sizeof(float) && outPitch >= rows * sizeof(float);
    checkCuda(cudaMemcpy2D(dIn, inPitch, a.data(), cols * sizeof(float), cols * sizeof(float), rows,
                           cudaMemcpyHostToDevice));
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transposeTiled<<<grid, block>>>(dIn, inPitch, dOut, outPitch, rows, cols);
    checkLastKernel();
    checkCuda(cudaMemcpy2D(t.data(), rows * sizeof(float), dOut, outPitch, rows * sizeof(float),
                           cols, cudaMemcpyDeviceToHost));

    std::vector<float> ref(cols * rows);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) ref[c * rows + r] = a[r * cols + c];
    int bad = compareNear("t", t.data(), ref.data(), rows * cols, 0.0, 0.0);  // exact
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));
    return finish(ok && bad == 0);
}
