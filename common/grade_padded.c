/* grade_padded.c -- a matrix product run again on zero-padded inputs (grade.h), for the graders'
   diagnoses of launchers that only work on sizes that are multiples of their tile (05.x, 17.3). */
#include "grade.h"

#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

/* src (rows x cols, elem bytes each) in the top-left of a zeroed rows_p x cols_p matrix; NULL when
   out of memory */
static char *padded_copy(const void *src, int rows, int cols, int rows_p, int cols_p, size_t elem) {
    size_t n = (size_t)rows_p * cols_p;
    char *p = calloc(n ? n : 1, elem);
    if (p)
        for (int r = 0; r < rows; r++) memcpy(p + (size_t)r * cols_p * elem, (const char *)src + (size_t)r * cols * elem, cols * elem);
    return p;
}

int grade_passes_padded(const GradePadded *g, int Mp, int Kp, int Np) {
    size_t mk = (size_t)Mp * Kp, kn = (size_t)Kp * Np, mn = (size_t)Mp * Np, want_n = (size_t)g->M * g->N;
    char *a = padded_copy(g->h_a, g->M, g->K, Mp, Kp, g->elem), *b = padded_copy(g->h_b, g->K, g->N, Kp, Np, g->elem);
    float *c = grade_alloc(mn * sizeof(float)), *got = grade_alloc(want_n * sizeof(float));
    ck_assert(a && b);
    void *d_a = grade_device_alloc(mk * g->elem), *d_b = grade_device_alloc(kn * g->elem);
    float *d_c = grade_device_alloc(mn * sizeof(float));
    grade_to_device(d_a, a, mk * g->elem);
    grade_to_device(d_b, b, kn * g->elem);
    grade_use_schedule(0);
    int ok = cudaMemset(d_c, g->fill_byte, mn * sizeof(float)) == cudaSuccess && g->run(g->ctx, d_a, d_b, d_c, Mp, Kp, Np) == cudaSuccess &&
             cudaMemcpy(c, d_c, mn * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    if (ok) {
        for (int r = 0; r < g->M; r++) memcpy(got + (size_t)r * g->N, c + (size_t)r * Np, g->N * sizeof(float));
        char *diff = grade_diff_floats(got, g->want, &g->cmp);
        ok = diff == NULL;
        free(diff);
    }
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(a);
    free(b);
    free(c);
    free(got);
    return ok;
}
