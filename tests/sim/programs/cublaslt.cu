/* cublaslt.cu -- issue 27: <cublasLt.h> as programs use it: a handle, a matmul descriptor, layouts,
 * a preference and the heuristic query, then cublasLtMatmul (D = alpha A B + beta C, fp32,
 * column-major, D apart from C); a matmul the simulator cannot run (a bias epilogue) says so with
 * CUBLAS_STATUS_NOT_SUPPORTED. Built with -lcublasLt on a GPU. Usage: cublaslt lt; prints "lt: PASS". */
#include <cublasLt.h>
#include "expect.h"

#define EXPECT_LT(call, want)                                                                                   \
    do {                                                                                                        \
        cublasStatus_t s_ = (call);                                                                             \
        EXPECT(s_ == (want), "%s returned %s, expected %s", #call, cublasLtGetStatusName(s_), cublasLtGetStatusName(want)); \
    } while (0)

static int mode_lt() {
    cublasLtHandle_t lt = nullptr;
    EXPECT_LT(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    /* A (2 x 3), B (3 x 2), C = D shape (2 x 2), column-major */
    const int m = 2, n = 2, k = 3;
    float hA[m * k] = {1, 2, 3, 4, 5, 6}, hB[k * n] = {1, 0, 1, 0, 1, 1}, hC[m * n] = {10, 20, 30, 40}, hD[m * n];
    float *A, *B, *C, *D;
    cudaMalloc(&A, sizeof hA);
    cudaMalloc(&B, sizeof hB);
    cudaMalloc(&C, sizeof hC);
    cudaMalloc(&D, sizeof hD);
    cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);
    cudaMemcpy(C, hC, sizeof hC, cudaMemcpyHostToDevice);

    cublasLtMatmulDesc_t op = nullptr;
    EXPECT_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
    cublasOperation_t none = CUBLAS_OP_N;
    EXPECT_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &none, sizeof none), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, 2), CUBLAS_STATUS_INVALID_VALUE); /* wrong size */
    cublasLtMatrixLayout_t la, lb, lc, ld;
    EXPECT_LT(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulPreference_t pref;
    EXPECT_LT(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
    uint64_t workspace = 1 << 20;
    EXPECT_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace),
              CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    EXPECT_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &result, &found), CUBLAS_STATUS_SUCCESS);
    EXPECT(found == 1 && result.state == CUBLAS_STATUS_SUCCESS, "the heuristic query found %d algorithms", found);

    float alpha = 1.0f, beta = 1.0f;
    EXPECT_LT(cublasLtMatmul(lt, op, &alpha, A, la, B, lb, &beta, C, lc, D, ld, &result.algo, nullptr, 0, 0), CUBLAS_STATUS_SUCCESS);
    cudaMemcpy(hD, D, sizeof hD, cudaMemcpyDeviceToHost);
    /* A B = [[1+5, 3+5], [2+6, 4+6]] = [[6, 8], [8, 10]]; column-major D = A B + C */
    EXPECT(hD[0] == 16 && hD[1] == 28 && hD[2] == 38 && hD[3] == 50, "D = %g %g %g %g, expected 16 28 38 50", hD[0], hD[1], hD[2], hD[3]);
    cudaMemcpy(hC, C, sizeof hC, cudaMemcpyDeviceToHost);
    EXPECT(hC[0] == 10 && hC[3] == 40, "C changed: %g %g", hC[0], hC[3]);

    cublasLtEpilogue_t bias = CUBLASLT_EPILOGUE_BIAS;
    EXPECT_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &bias, sizeof bias), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatmul(lt, op, &alpha, A, la, B, lb, &beta, C, lc, D, ld, nullptr, nullptr, 0, 0), CUBLAS_STATUS_NOT_SUPPORTED);

    EXPECT_LT(cublasLtMatmulPreferenceDestroy(pref), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutDestroy(la), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutDestroy(lb), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutDestroy(lc), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatrixLayoutDestroy(ld), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtMatmulDescDestroy(op), CUBLAS_STATUS_SUCCESS);
    EXPECT_LT(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(D);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"lt", mode_lt}); }
