// spmv_csr.cu - sparse matrix-vector product y = A x with A in CSR form (row offsets, column
// indices, values): the scalar kernel (one thread per row) and the vector kernel (one warp per row,
// lanes stride over the row's nonzeros, __shfl_down_sync reduction), on rows of very different
// lengths including empty ones.
// Build and run: nvcc -o spmv_csr spmv_csr.cu && ./spmv_csr
#include <vector>
#include "sample_helpers.h"

__global__ void spmvScalar(int rows, const int* rowPtr, const int* col, const float* val,
                           const float* x, float* y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j) dot += val[j] * x[col[j]];
        y[row] = dot;
    }
}

__global__ void spmvVector(int rows, const int* __restrict__ rowPtr, const int* __restrict__ col,
                           const float* __restrict__ val, const float* __restrict__ x, float* y)
{
    int warpId = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warpId >= rows) return;  // the whole warp leaves together
    int row = warpId;
    float sum = 0.0f;
    for (int j = rowPtr[row] + lane; j < rowPtr[row + 1]; j += 32) sum += val[j] * __ldg(&x[col[j]]);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = sum;
}

int main()
{
    pickDevice(3);
    const int rows = 2000, cols = 1500;
    Lcg rng(4711);
    std::vector<int> rowPtr(rows + 1), col;
    std::vector<float> val, x(cols);
    rowPtr[0] = 0;
    for (int r = 0; r < rows; ++r) {
        int len = r % 97 == 0 ? 0 : (r % 13 == 0 ? rng.nextInt(100, 300) : rng.nextInt(1, 12));
        for (int k = 0; k < len; ++k) {
            col.push_back(rng.nextInt(0, cols - 1));
            val.push_back(rng.nextFloat(-1.0f, 1.0f));
        }
        rowPtr[r + 1] = (int)col.size();
    }
    for (float& v : x) v = rng.nextFloat(-2.0f, 2.0f);
    int nnz = (int)col.size();
    std::vector<double> ref(rows);
    for (int r = 0; r < rows; ++r) {
        double s = 0;
        for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j) s += (double)val[j] * x[col[j]];
        ref[r] = s;
    }

    int *dRowPtr, *dCol;
    float *dVal, *dX, *dY;
    checkCuda(cudaMalloc(&dRowPtr, (rows + 1) * sizeof(int)));
    checkCuda(cudaMalloc(&dCol, nnz * sizeof(int)));
    checkCuda(cudaMalloc(&dVal, nnz * sizeof(float)));
    checkCuda(cudaMalloc(&dX, cols * sizeof(float)));
    checkCuda(cudaMalloc(&dY, rows * sizeof(float)));
    checkCuda(cudaMemcpy(dRowPtr, rowPtr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dCol, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dVal, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dX, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice));

    std::vector<float> y(rows);
    std::vector<double> got(rows);
    int bad = 0;
    for (int version = 0; version < 2; ++version) {
        checkCuda(cudaMemset(dY, 0xff, rows * sizeof(float)));  // NaN where a row is missed
        if (version == 0)
            spmvScalar<<<(rows + 127) / 128, 128>>>(rows, dRowPtr, dCol, dVal, dX, dY);
        else
            spmvVector<<<(rows * 32 + 255) / 256, 256>>>(rows, dRowPtr, dCol, dVal, dX, dY);
        checkLastKernel();
        checkCuda(cudaMemcpy(y.data(), dY, rows * sizeof(float), cudaMemcpyDeviceToHost));
        for (int r = 0; r < rows; ++r) got[r] = y[r];
        int b = compareNear(version == 0 ? "scalar y" : "vector y", got.data(), ref.data(), rows,
                            1e-4, 1e-3);
        printf("%s kernel: %s\n", version == 0 ? "scalar" : "vector", b ? "wrong" : "ok");
        bad += b;
    }
    printf("%d x %d matrix, %d nonzeros\n", rows, cols, nnz);
    checkCuda(cudaFree(dRowPtr));
    checkCuda(cudaFree(dCol));
    checkCuda(cudaFree(dVal));
    checkCuda(cudaFree(dX));
    checkCuda(cudaFree(dY));
    return finish(bad == 0);
}
