/**
 * @file test_13_libraries.c
 * @brief Grader for lesson 13: the cuSOLVER inverse (residual, singular matrices reported, the input
 *        left alone), batched cuBLAS products (fp32 and TF32, the math mode set on every call), the
 *        Thrust pipeline and the CUB sort (exact keys, a scan within a float tolerance), and the
 *        cuRAND estimates of pi (statistically: within six standard deviations, reproducible from
 *        the seed, independent per call and per thread).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "judge.h"
#include "libraries.h"
#include "calls/13-libraries.h"

static const GradeExercise kExercises[] = {
    {"13.1", 4, "inverse_f32_gpu + inverse_f64_gpu: getrf on a copy, workspace query, devInfo checked, getrs against the identity", 0, NULL},
    {"13.2", 3, "batched_matmul_gpu: one cublasSgemmStridedBatched on row-major batches (C^T = B^T A^T), math mode set per call", 0, NULL},
    {"13.3", 3, "cdf_thrust_gpu + sort_pairs_cub_gpu: Thrust transform/sort_by_key/reduce/exclusive_scan with your kernel; CUB's two-call sort",
     0, "cdf_normalise_kernel"},
    {"13.4", 3, "pi_curand_host_gpu + pi_curand_device_gpu: a generator that continues its sequence; curand_init per thread", 0,
     "count_inside_kernel pi_device_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

#define SEED_TEXT "GRADE_SEED=%llu"
#define SEED (unsigned long long)grade_seed()

static int is_device_garbage_f(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b == GRADE_DEVICE_GARBAGE_BITS;
}

/* ---- library statuses by name, with what they usually mean in this lesson ---- */

static const char *cublas_status_text(int st) {
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED (the handle is not a live cuBLAS handle: use the one given, do not create or destroy one)";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED (cuBLAS could not allocate its workspace)";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE (a size, leading dimension or stride that cannot be right)";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH (this GPU lacks the feature asked for)";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR (a pointer that is not device memory)";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED (the product's kernel failed: a pointer to too small a buffer?)";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "an unknown cuBLAS status";
    }
}

/* cuRAND statuses; NULL for a number that is none of them. */
static const char *curand_status_text(int st) {
    switch (st) {
    case 100: return "CURAND_STATUS_VERSION_MISMATCH";
    case 101: return "CURAND_STATUS_NOT_INITIALIZED (the generator is not a live one: use the caller's, do not create or destroy one)";
    case 102: return "CURAND_STATUS_ALLOCATION_FAILED";
    case 103: return "CURAND_STATUS_TYPE_ERROR";
    case 104: return "CURAND_STATUS_OUT_OF_RANGE (a count or argument out of range)";
    case 105: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE (a count the generator cannot give, e.g. an odd one for normals)";
    case 106: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case 201: return "CURAND_STATUS_LAUNCH_FAILURE (the generator's kernel failed: is the output buffer big enough, 2n floats, on the device?)";
    case 202: return "CURAND_STATUS_PREEXISTING_FAILURE (an earlier error was still pending)";
    case 203: return "CURAND_STATUS_INITIALIZATION_FAILED";
    case 204: return "CURAND_STATUS_ARCH_MISMATCH";
    case 999: return "CURAND_STATUS_INTERNAL_ERROR";
    default: return NULL;
    }
}

/* ============================================================================================== */
/* 13.1: the inverse                                                                               */

/* Sizes: scalars, tiny, odd ones, a multiple of a warp, a prime above a panel, and a real one. */
static const int kInvSizes[] = {1, 2, 3, 17, 64, 129, 250};
#define N_INV_SIZES (int)(sizeof kInvSizes / sizeof kInvSizes[0])

/* max |A X - I| over the elements, in double, for row-major n x n A and X (X transposed when t). */
static double residual(const double *A, const double *X, int n, int t) {
    double worst = 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += A[(size_t)r * n + k] * (t ? X[(size_t)c * n + k] : X[(size_t)k * n + c]);
            double e = fabs(s - (r == c));
            if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

static double norm_inf(const double *X, int n) {
    double best = 0;
    for (int r = 0; r < n; r++) {
        double s = 0;
        for (int c = 0; c < n; c++) s += fabs(X[(size_t)r * n + c]);
        if (!(s <= best)) best = isnan(s) ? INFINITY : s;
    }
    return best;
}

static size_t g_probe_bytes;
/* 1 when the bytes (malloc'd, freed here) are all 0xFF: d_inv as the grader poisoned it. */
static int unwritten_inverse(unsigned char *b) {
    if (!b) return 0;
    int all = 1;
    for (size_t i = 0; all && i < g_probe_bytes; i++) all = b[i] == 0xFF;
    free(b);
    return all;
}
/* d_inv's bytes, copied to the host (NULL on an error). */
static unsigned char *h_X_probe(const void *d_X, size_t bytes) {
    unsigned char *b = malloc(bytes ? bytes : 1);
    g_probe_bytes = bytes;
    if (b && cudaMemcpy(b, d_X, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(b);
        return NULL;
    }
    return b;
}

/* 1 when X (row-major, as read back) is what getrs gives when handed the unfactored matrix as its
   LU factors with getrf's pivots (trial 26, c009: getrs(..., d_A, ...) instead of d_LU). In the
   column-major view cuSOLVER sees, M = A^T is stored in the buffer as it is; the pivots are those
   of partial pivoting on M, replayed here in double, then getrs's steps are replayed with the
   buffer's own strict lower part as unit L and its upper part as U. */
static int solved_with_unfactored_a(const double *A, const double *X, int n, double eps) {
    size_t nn = (size_t)n * n;
    double *lu = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double));
    int *piv = malloc((size_t)n * sizeof(int)), same = lu && b && piv;
    for (size_t i = 0; same && i < nn; i++) lu[i] = A[i]; /* column-major M(i, j) = buf[i + j n] */
    for (int k = 0; same && k < n; k++) {                  /* getrf's pivots: first largest |M(i, k)| */
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(lu[i + (size_t)k * n]) > fabs(lu[p + (size_t)k * n])) p = i;
        piv[k] = p;
        for (int j = 0; j < n; j++) {
            double t = lu[k + (size_t)j * n];
            lu[k + (size_t)j * n] = lu[p + (size_t)j * n], lu[p + (size_t)j * n] = t;
        }
        if (lu[k + (size_t)k * n] == 0) continue;
        for (int i = k + 1; i < n; i++) {
            double l = lu[i + (size_t)k * n] /= lu[k + (size_t)k * n];
            for (int j = k + 1; j < n; j++) lu[i + (size_t)j * n] -= l * lu[k + (size_t)j * n];
        }
    }
    for (int c = 0; same && c < n; c++) { /* column c of B = I, solved with the unfactored buffer */
        double *x = b + (size_t)c * n;
        for (int i = 0; i < n; i++) x[i] = i == c;
        for (int k = 0; k < n; k++) {
            double t = x[k];
            x[k] = x[piv[k]], x[piv[k]] = t;
        }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < i; k++) x[i] -= A[i + (size_t)k * n] * x[k];
        for (int i = n - 1; i >= 0; i--) {
            for (int k = i + 1; k < n; k++) x[i] -= A[i + (size_t)k * n] * x[k];
            x[i] /= A[i + (size_t)i * n];
        }
    }
    double worst = 0, scale = 0;
    for (size_t i = 0; same && i < nn; i++) {
        if (!isfinite(b[i]) || !isfinite(X[i])) same = 0;
        else {
            worst = fmax(worst, fabs(b[i] - X[i]));
            scale = fmax(scale, fabs(b[i]));
        }
    }
    same = same && worst <= 1e3 * n * eps * (scale + 1);
    free(lu), free(b), free(piv);
    return same;
}

static const char *ret_meaning(int ret) {
    return ret > 0 ? "> 0: singular" : ret < 0 ? "< 0: a CUDA or cuSOLVER call failed" : "0: inverted";
}

/* One call of the student's inverse (dbl: double precision) on a random or singular matrix. */
static void check_inverse(int dbl, int n, int singular_row, int schedule) {
    size_t elem = dbl ? sizeof(double) : sizeof(float), nn = (size_t)n * n;
    const char *fn = dbl ? "inverse_f64_gpu" : "inverse_f32_gpu";
    uint64_t seed = grade_seed() * 31 + (uint64_t)n * 7 + (uint64_t)dbl + 1000u * (uint64_t)(singular_row + 1);
    float *f = grade_alloc(nn * sizeof(float));
    grade_fill_floats(f, nn, seed, -1.0f, 1.0f);
    double *A = grade_alloc(nn * sizeof(double)), *X = grade_alloc(nn * sizeof(double));
    void *h_A = grade_alloc(nn * elem), *h_X = grade_alloc(nn * elem), *h_A_after = grade_alloc(nn * elem);
    for (size_t i = 0; i < nn; i++) {
        /* a zero row: row-major A read column-major is A^T, whose column is then zero: U(r+1, r+1) = 0 */
        if (singular_row >= 0 && (int)(i / n) == singular_row) f[i] = 0.0f;
        A[i] = f[i];
        if (dbl) ((double *)h_A)[i] = f[i];
        else ((float *)h_A)[i] = f[i];
    }
    int status = 0;
    uint64_t handle = l13_cusolver_create(&status);
    ck_assert_msg(status == 0, "grader: cusolverDnCreate failed with status %d (on the simulator: is liblapacke-dev installed?)", status);
    void *d_A = NULL, *d_X = NULL;
    ck_assert(cudaMalloc(&d_A, nn * elem) == cudaSuccess);
    ck_assert(cudaMalloc(&d_X, nn * elem) == cudaSuccess);
    ck_assert(cudaMemcpy(d_A, h_A, nn * elem, cudaMemcpyHostToDevice) == cudaSuccess);
    grade_use_schedule(schedule);
    grade_poison_device(d_X, nn * elem);
    int ret = dbl ? inverse_f64_gpu((cusolverDnHandle_t)(uintptr_t)handle, d_A, d_X, n)
                  : inverse_f32_gpu((cusolverDnHandle_t)(uintptr_t)handle, d_A, d_X, n);
    if (singular_row >= 0) {
        ck_assert_msg(ret > 0,
                      "%s (%d x %d, " SEED_TEXT "): row %d of the matrix is zero, so it is singular, but the function returned %d (%s)\n"
                      "  likely mistake: %s",
                      fn, n, n, SEED, singular_row, ret, ret_meaning(ret),
                      ret == 0 ? "devInfo was not checked: getrf reports a zero pivot only through devInfo (an int in device memory, "
                                 "written when getrf has run); copy it to the host with cudaMemcpy and return it when it is > 0, "
                                 "instead of solving with a singular U"
                               : "a call failed where it should have reported the singular matrix: check getrf's devInfo right after it");
        ck_assert_msg(ret <= n, "%s (%d x %d, " SEED_TEXT "): returned %d for a singular matrix; devInfo is between 1 and n", fn, n, n, SEED, ret);
        goto out;
    }
    /* A refused launch of the given identity_kernel (trial 26, c001: its grid (n * n) / 256 rounds
       down to 0 blocks for n * n < 256, an invalid configuration) leaves d_inv unwritten and -1
       returned, like the untouched skeleton: the launch record and the runtime's report tell. */
    unsigned long long id_blocks = 0, id_threads = 0;
    char said[2048] = "";
    int id_launched = ret < 0 ? judge_last_call_grid("identity_kernel", &id_blocks, &id_threads) : 0;
    if (ret < 0) judge_last_call_output(said, sizeof said);
    int zero_grid = (id_launched > 0 && id_blocks == 0) || (strstr(said, "did not run") && strstr(said, "zero dimension"));
    ck_assert_msg(ret == 0,
                  "%s (%d x %d, " SEED_TEXT "): returned %d (%s) for an invertible random matrix%s\n"
                  "  likely mistake: %s",
                  fn, n, n, SEED, ret, ret_meaning(ret), zero_grid ? said : "",
                  ret > 0 ? "devInfo was read before getrf ran, or from the wrong buffer; or getrf was given the wrong size or leading dimension"
                  : zero_grid ? "identity_kernel's launch was refused: its grid had 0 blocks for n * n elements (the grid rounds down, "
                                "e.g. (n * n) / 256 is 0 when n * n < 256); round the block count up, (n * n + 255) / 256, so "
                                "every element of d_inv gets a thread"
                          : unwritten_inverse(h_X_probe(d_X, nn * elem))
                              ? "not written yet? d_inv was never written, and -1 is what the untouched skeleton returns; else a CUDA or "
                                "cuSOLVER call failed before getrs: check each status (a workspace of Lwork elements, not bytes; lda = n)"
                              : "a CUDA or cuSOLVER call failed: check each status (a workspace of Lwork elements, not bytes; lda = n)");
    ck_assert(cudaMemcpy(h_X, d_X, nn * elem, cudaMemcpyDeviceToHost) == cudaSuccess);
    /* d_A is the caller's: a call that factors it in place and then frees its own d_LU frees d_A
       (trial 14, b043), and reading it back fails -- name that rather than a bare assertion. */
    cudaError_t back = cudaMemcpy(h_A_after, d_A, nn * elem, cudaMemcpyDeviceToHost);
    ck_assert_msg(back == cudaSuccess,
                  "%s (%d x %d, " SEED_TEXT "): after the call the grader cannot read its own d_A back (cudaMemcpy returned %s)\n"
                  "  likely mistake: the call freed the caller's d_A (or changed the pointer it frees): d_A is only read -- getrf "
                  "overwrites its matrix, so factor a copy (cudaMalloc d_LU, cudaMemcpy d_A into it device to device) and cudaFree only "
                  "what the function allocated itself",
                  fn, n, n, SEED, cudaGetErrorString(back));
    ck_assert_msg(memcmp(h_A, h_A_after, nn * elem) == 0,
                  "%s (%d x %d, " SEED_TEXT "): d_A was changed by the call\n"
                  "  likely mistake: getrf overwrites its matrix with the factors L and U; factor a copy (cudaMemcpy device to device)",
                  fn, n, n, SEED);
    size_t unwritten = 0;
    for (size_t i = 0; i < nn; i++) {
        X[i] = dbl ? ((double *)h_X)[i] : ((float *)h_X)[i];
        unsigned char *b = (unsigned char *)h_X + i * elem;
        int all_ff = 1;
        for (size_t k = 0; k < elem; k++) all_ff &= b[k] == 0xFF;
        unwritten += all_ff;
    }
    double r = residual(A, X, n, 0), eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    /* LU with partial pivoting is backward stable: |A X - I| stays below a small multiple of
       n eps |A| |X|; a wrong answer is off by O(1). */
    double bound = 16.0 * n * eps * norm_inf(A, n) * norm_inf(X, n) + 4 * eps;
    if (isfinite(bound) && r <= bound) goto out;
    const char *why;
    if (n > 1 && unwritten == 0 && solved_with_unfactored_a(A, X, n, eps))
        why = "getrs was given the unfactored matrix d_A: its result is exactly solving with A's own entries read as L and U; "
              "pass getrs the copy that getrf factored (d_LU), with getrf's pivots";
    else if (!isfinite(bound) && unwritten < nn)
        why = "d_inv holds NaN or infinite values: getrs must solve against the identity in d_inv (zeros, and ones on the diagonal), "
              "which must be written before getrs runs";
    else if (unwritten == nn) why = "d_inv was never written: getrs overwrites its right-hand sides B with the solution, so B must be d_inv, holding the identity";
    else if (unwritten) why = "part of d_inv was never written: the identity (and getrs's nrhs and ldb) must cover all n x n elements";
    else if (n > 1 && residual(A, X, n, 1) <= bound)
        why = "d_inv holds the transpose of the inverse: getrs solved op(A) X = I with the wrong op; row-major arrays handed to cuSOLVER as "
              "they are need CUBLAS_OP_N (the column-major view sees A^T, and inv(A^T) read back row-major is inv(A))";
    else
        why = "not the inverse: B must start as the identity (zeros and ones on the diagonal), getrs must use getrf's factors and pivots, "
              "and getrf must run on an n x n copy of A with lda = n";
    ck_abort_msg("%s (%d x %d, " SEED_TEXT "): max |A * inv - I| = %.3g, allowed %.3g (16 n eps |A| |inv|)\n  likely mistake: %s", fn, n, n,
                 SEED, r, bound, why);
out:
    cudaFree(d_A);
    cudaFree(d_X);
    l13_cusolver_destroy(handle);
    free(f), free(A), free(X), free(h_A), free(h_X), free(h_A_after);
}

START_TEST(test_inverse_f32_is_an_inverse_at_every_size) {
    for (int s = 0; s < grade_schedule_count(); s++) check_inverse(0, kInvSizes[_i], -1, s);
}
END_TEST

START_TEST(test_inverse_f64_is_an_inverse_at_every_size) {
    for (int s = 0; s < grade_schedule_count(); s++) check_inverse(1, kInvSizes[_i], -1, s);
}
END_TEST

START_TEST(test_inverse_reports_a_singular_matrix) {
    static const int sizes[] = {1, 5, 40};
    int n = sizes[_i % 3];
    check_inverse(_i >= 3, n, (int)(grade_seed() % (uint64_t)n), 0);
}
END_TEST

/* ============================================================================================== */
/* 13.2: batched products                                                                          */

typedef struct {
    int M, K, N, batch;
} BShape;
/* A scalar; odd little ones; many tiny products (the case batching is for); square tiles; shapes
   that fit no tile; few big ones; a dot product per matrix. */
static const BShape kBShapes[] = {{1, 1, 1, 1}, {2, 3, 4, 5}, {7, 5, 3, 100}, {16, 16, 16, 64}, {17, 31, 9, 33}, {64, 100, 50, 2}, {1, 300, 1, 7}};
#define N_BSHAPES (int)(sizeof kBShapes / sizeof kBShapes[0])
#define CANARY 64

typedef struct {
    BShape s;
    float *A, *B, *want, *got;
    float *d_A, *d_B, *d_C;
    size_t na, nb, nc;
} BProblem;

/* alt: C_b as column-major cuBLAS would write A_b, B_b read column-major (the arrays handed over unswapped) */
static double alt_unswapped(const BProblem *p, int b, int r, int c) {
    const float *A = p->A + (size_t)b * p->s.M * p->s.K, *B = p->B + (size_t)b * p->s.K * p->s.N;
    double s = 0;
    for (int k = 0; k < p->s.K; k++) s += (double)A[(size_t)k * p->s.M + r] * B[(size_t)c * p->s.K + k];
    return s;
}

/* mode 0: C as it should be; 1: C stored transposed (column-major); 2: alt_unswapped stored column-major
   (A first, as if row-major arrays were column-major); 3: alt_unswapped stored row-major (B first, both
   operands CUBLAS_OP_T: each array's column-major view transposed again) */
static int matches(const BProblem *p, double tol, int mode) {
    const BShape *s = &p->s;
    for (int b = 0; b < s->batch; b++)
        for (int r = 0; r < s->M; r++)
            for (int c = 0; c < s->N; c++) {
                size_t at = (size_t)b * s->M * s->N + (mode == 0 || mode == 3 ? (size_t)r * s->N + c : (size_t)c * s->M + r);
                double want = mode >= 2 ? alt_unswapped(p, b, r, c) : p->want[(size_t)b * s->M * s->N + (size_t)r * s->N + c];
                float g = p->got[at];
                if (isnan(g) || fabs(g - want) > tol * (1 + fabs(want))) return 0;
            }
    return 1;
}

static const char *explain_batch(const BProblem *p, double tol, int tf32_run) {
    const BShape *s = &p->s;
    size_t per = (size_t)s->M * s->N, first_bad = p->nc;
    for (size_t i = 0; i < p->nc && first_bad == p->nc; i++)
        if (isnan(p->got[i]) || fabs(p->got[i] - p->want[i]) > tol * (1 + fabs(p->want[i]))) first_bad = i;
    int rest_unwritten = 1;
    for (size_t i = per; i < p->nc; i++) rest_unwritten &= is_device_garbage_f(p->got[i]);
    if (s->batch > 1 && first_bad >= per && rest_unwritten)
        return "only the first product of the batch was written: batchCount is the number of products, and strideC the distance between "
               "one C and the next";
    int all_unwritten = 1;
    for (size_t i = 0; i < p->nc; i++) all_unwritten &= is_device_garbage_f(p->got[i]);
    if (all_unwritten) return "C was never written: did cublasSgemmStridedBatched run (check its status), with beta = 0?";
    /* strideC given another operand's stride (trial 16, b042: M * K): the products lie that far apart, each
       overwriting the end of the one before it: the last product's part past the one before it is right there,
       and C past the last product is never written. Smaller than M * N only (a larger one runs past C). */
    for (int w = 0; w < 2 && s->batch > 1; w++) {
        size_t st = w == 0 ? (size_t)s->M * s->K : (size_t)s->K * s->N, last = (size_t)(s->batch - 1) * st;
        if (st >= per) continue;
        size_t from = last - st + per > last ? last - st + per : last; /* past the product before the last */
        int laid = from < last + per;
        for (size_t i = from; i < last + per && laid; i++) {
            double want = p->want[(size_t)(s->batch - 1) * per + (i - last)];
            laid = !isnan(p->got[i]) && fabs(p->got[i] - want) <= tol * (1 + fabs(want));
        }
        for (size_t i = last + per; i < p->nc && laid; i++) laid = is_device_garbage_f(p->got[i]);
        if (laid)
            return w == 0 ? "the products were laid M * K elements apart, A's stride: strideC is the distance between one C and the "
                            "next, M * N (strideA = M * K, strideB = K * N, strideC = M * N)"
                          : "the products were laid K * N elements apart, B's stride: strideC is the distance between one C and the "
                            "next, M * N (strideA = M * K, strideB = K * N, strideC = M * N)";
    }
    if (s->batch > 1 && first_bad >= per)
        return "the first product is right, the others are not: each stride is the size of one matrix in elements (strideA = M * K, "
               "strideB = K * N, strideC = M * N), with A's and B's strides moving with the operands";
    if (s->M > 1 && s->N > 1 && matches(p, tol, 1))
        return "C came out transposed (column-major): that is C = A B as cuBLAS stores it; ask for C^T = B^T A^T instead (B first, m = N, n = M)";
    if (s->M > 1 && s->N > 1 && matches(p, tol, 2))
        return "the row-major arrays were handed to cuBLAS as if they were column-major, A first: compute C^T = B^T A^T instead (B first, "
               "m = N, n = M, ldb = N, lda = K, ldc = N)";
    if (s->K > 1 && (s->M > 1 || s->N > 1) && matches(p, tol, 3))
        return "A and B were both read as column-major matrices and transposed, B first with CUBLAS_OP_T: the column-major view of a "
               "row-major array already is its transpose, so C^T = B^T A^T takes CUBLAS_OP_N twice (ldb = N, lda = K, ldc = N)";
    if (!tf32_run && matches(p, 4.0 / 1024 * sqrt((double)s->K), 0))
        return "close but not fp32-close: that is TF32 (10 mantissa bits); with tf32 == 0 set CUBLAS_DEFAULT_MATH on the handle, which may "
               "arrive in another mode";
    return "the products are wrong: C_b = A_b B_b for row-major A_b (M x K) and B_b (K x N); check each argument against C^T = B^T A^T "
           "(CUBLAS_OP_N twice, B first, m = N, n = M, k = K; ldb = N, lda = K, ldc = N; strideB = K * N, strideA = M * K, strideC = M * N)";
}

static void check_batched(BShape s, uint64_t handle, int tf32, int salt) {
    BProblem p = {.s = s};
    p.na = (size_t)s.M * s.K * s.batch, p.nb = (size_t)s.K * s.N * s.batch, p.nc = (size_t)s.M * s.N * s.batch;
    uint64_t seed = grade_seed() * 131 + (uint64_t)s.M * 1000003u + (uint64_t)s.K * 1009u + (uint64_t)s.N * 17u + (uint64_t)s.batch + (uint64_t)salt;
    p.A = grade_alloc(p.na * 4), p.B = grade_alloc(p.nb * 4), p.want = grade_alloc(p.nc * 4), p.got = grade_alloc((p.nc + CANARY) * 4);
    grade_fill_floats(p.A, p.na, seed, -1.0f, 1.0f);
    grade_fill_floats(p.B, p.nb, seed + 1, -1.0f, 1.0f);
    batched_matmul_cpu(p.A, p.B, p.want, s.M, s.K, s.N, s.batch);
    ck_assert(cudaMalloc((void **)&p.d_A, p.na * 4) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&p.d_B, p.nb * 4) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&p.d_C, (p.nc + CANARY) * 4) == cudaSuccess);
    ck_assert(cudaMemcpy(p.d_A, p.A, p.na * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(p.d_B, p.B, p.nb * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    grade_poison_device(p.d_C, (p.nc + CANARY) * 4);
    /* The handle arrives in the other mode: the function must set the one it needs. */
    ck_assert(l13_cublas_set_math_mode(handle, tf32 ? CUBLAS_DEFAULT_MATH : CUBLAS_TF32_TENSOR_OP_MATH) == 0);
    cublasStatus_t st = batched_matmul_gpu((cublasHandle_t)(uintptr_t)handle, p.d_A, p.d_B, p.d_C, s.M, s.K, s.N, s.batch, tf32);
    char shape[160];
    snprintf(shape, sizeof shape, "batched_matmul_gpu (%d products of %d x %d times %d x %d, tf32 = %d, " SEED_TEXT ")", s.batch, s.M, s.K, s.K,
             s.N, tf32, SEED);
    ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "%s: returned cuBLAS status %d, %s, %s%s", shape, (int)st, cublas_status_text((int)st),
                  st == CUBLAS_STATUS_NOT_SUPPORTED ? "what the untouched skeleton returns"
                                                    : "from cublasSetMathMode or cublasSgemmStridedBatched",
                  st == CUBLAS_STATUS_INVALID_VALUE ? "\n  likely mistake: CUBLAS_STATUS_INVALID_VALUE: a leading dimension smaller than its "
                                                     "column-major matrix's rows (for C^T = B^T A^T: ldb = N, lda = K, ldc = N), or a negative size"
                  : st == CUBLAS_STATUS_NOT_SUPPORTED
                      ? "\n  likely mistake: CUBLAS_STATUS_NOT_SUPPORTED is the skeleton's placeholder: not written yet, or its `return "
                        "CUBLAS_STATUS_NOT_SUPPORTED;` is still there; return the status of cublasSetMathMode (when it fails) or of "
                        "cublasSgemmStridedBatched"
                  : st == CUBLAS_STATUS_NOT_INITIALIZED
                      ? "\n  likely mistake: use the handle given: it is created and destroyed by the caller"
                      /* any other status: cuBLAS's own failures (EXECUTION_FAILED, INTERNAL_ERROR, ALLOC_FAILED, ...), which no
                         mistake in the arguments gives, or a status the function made up: no mistake to name, only what to return */
                      : "\n  (a status that only cuBLAS's own failures give, or one the function made up: return the status of the "
                        "first call that fails, unchanged)");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(p.got, p.d_C, (p.nc + CANARY) * 4, cudaMemcpyDeviceToHost), "copying C back (an error here comes from cuBLAS)");
    for (size_t i = p.nc; i < p.nc + CANARY; i++)
        ck_assert_msg(is_device_garbage_f(p.got[i]),
                      "%s: wrote element %zu of C, past the end of the %zu-element batch\n  likely mistake: strideC, ldc or the batch count "
                      "describe more than batch x M x N elements (strideC = M * N, ldc = N)%s",
                      shape, i, p.nc,
                      /* (on a GPU, where the reads past A are not seen: a column-major call, A first with m = M, n = N,
                         and the row-major ldc = N puts C's N columns N apart, past M * N when M < N; trial 10, a020) */
                      s.M < s.N ? "; or the row-major arrays were handed over as column-major (A first, m = M, n = N: C's columns "
                                  "ldc = N apart run past its M x N elements): compute C^T = B^T A^T instead (B first, m = N, n = M)"
                                : "");
    /* fp32: a K-long dot product errs by about sqrt(K) eps; TF32 rounds each input to 2^-11. */
    double tol = tf32 ? 4.0 / 1024 * sqrt((double)s.K) : 4.0 * s.K * FLT_EPSILON;
    if (!matches(&p, tol, 0))
        ck_abort_msg("%s: C differs from the CPU's (tolerance %.2g * (1 + |want|))\n  likely mistake: %s", shape, tol, explain_batch(&p, tol, tf32));
    int mode = l13_cublas_get_math_mode(handle);
    ck_assert_msg(mode >= 0,
                  "%s: after the call, cublasGetMathMode fails on the handle given (it is no longer a live cuBLAS handle)\n"
                  "  likely mistake: use the handle given: it is created and destroyed by the caller (no cublasDestroy in the function)",
                  shape);
    ck_assert_msg(mode == (tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                  "%s: the handle was left in math mode %d, expected %s\n  likely mistake: %s", shape, mode,
                  tf32 ? "CUBLAS_TF32_TENSOR_OP_MATH (3)" : "CUBLAS_DEFAULT_MATH (0)",
                  tf32 ? "tf32 != 0 asks for cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH) before the product"
                       : "the handle arrives in whatever mode its last user left; with tf32 == 0 set CUBLAS_DEFAULT_MATH before the product");
    cudaFree(p.d_A), cudaFree(p.d_B), cudaFree(p.d_C);
    free(p.A), free(p.B), free(p.want), free(p.got);
}

START_TEST(test_batched_products_match_cpu_in_fp32_and_tf32) {
    int status = 0;
    uint64_t handle = l13_cublas_create(&status);
    ck_assert_msg(status == 0, "grader: cublasCreate failed with status %d (on the simulator: is libopenblas-dev installed?)", status);
    check_batched(kBShapes[_i], handle, 0, 1);
    check_batched(kBShapes[_i], handle, 1, 2);
    l13_cublas_destroy(handle);
}
END_TEST

/* The status of cublasSetMathMode dropped (trial 13, c024): every call whose mode is set passes,
   but where the mode cannot be set the product runs in whatever mode the handle was left in (TF32
   where fp32 was asked), and the caller is told it worked. The simulator refuses the next
   cublasSetMathMode; batched_matmul_gpu must return its status. */
START_TEST(test_batched_matmul_returns_a_refused_math_mode) {
    enum { M = 2, K = 3, N = 4, BATCH = 5 };
    int status = 0;
    uint64_t handle = l13_cublas_create(&status);
    ck_assert_msg(status == 0, "grader: cublasCreate failed with status %d", status);
    float *d_A, *d_B, *d_C;
    ck_assert(cudaMalloc((void **)&d_A, sizeof(float) * M * K * BATCH) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_B, sizeof(float) * K * N * BATCH) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_C, sizeof(float) * M * N * BATCH) == cudaSuccess);
    ck_assert(cudaMemset(d_A, 0, sizeof(float) * M * K * BATCH) == cudaSuccess);
    ck_assert(cudaMemset(d_B, 0, sizeof(float) * K * N * BATCH) == cudaSuccess);
    int refused = l13_cublas_refuse_math_mode(1);
    cublasStatus_t st = refused ? batched_matmul_gpu((cublasHandle_t)(uintptr_t)handle, d_A, d_B, d_C, M, K, N, BATCH, 0)
                                : CUBLAS_STATUS_NOT_SUPPORTED;
    l13_cublas_refuse_math_mode(0);
    cudaFree(d_A), cudaFree(d_B), cudaFree(d_C);
    l13_cublas_destroy(handle);
    ck_assert_msg(st == CUBLAS_STATUS_NOT_SUPPORTED,
                  "batched_matmul_gpu (M = %d, K = %d, N = %d, batch = %d, tf32 = 0) while the grader had the simulator's "
                  "cublasSetMathMode fail (CUBLAS_STATUS_NOT_SUPPORTED, the handle left in its old mode) returned status %d, not that "
                  "one: the product then runs in whatever mode the handle was in, and the caller is told it worked\n  likely mistake: "
                  "the status of cublasSetMathMode was dropped: keep it and return it when it is not CUBLAS_STATUS_SUCCESS, before "
                  "the product",
                  M, K, N, BATCH, (int)st);
}
END_TEST

/* The exercise is the one batched call (trial 14, b047: a loop of batch cublasSgemm calls gave the
   same values and passed). No run tells the two apart on the simulator's cuBLAS, so the source is
   read: batched_matmul_gpu must call cublasSgemmStridedBatched and no per-matrix cublasSgemm. */
START_TEST(test_batched_matmul_is_one_strided_batched_call) {
    char body[16384];
    int got = grade_source_function("libraries.cu", "batched_matmul_gpu", body, sizeof body);
    if (got == -1) return; /* no source to read */
    ck_assert_msg(got == 1, "the grader could not find batched_matmul_gpu's definition in libraries.cu (%s)",
                  got == -2 ? "the file cannot be read" : "no definition");
    int strided = strstr(body, "cublasSgemmStridedBatched") != NULL;
    const char *single = body;
    while ((single = strstr(single, "cublasSgemm")) && !strncmp(single, "cublasSgemmStridedBatched", 25)) single += 25;
    ck_assert_msg(strided && !single,
                  "batched_matmul_gpu's products are right, but it %s\n  likely mistake: the batch was done as a loop of "
                  "cublasSgemm calls, one per matrix: the exercise is the one call that does every product of the batch, "
                  "cublasSgemmStridedBatched, with strideA = M * K, strideB = K * N, strideC = M * N (one launch, not batch "
                  "launches)",
                  !strided ? "never calls cublasSgemmStridedBatched" : "also calls cublasSgemm");
}
END_TEST

/* ============================================================================================== */
/* 13.3: Thrust and CUB                                                                            */

static const size_t kSortSizes[] = {1, 2, 7, 257, 1000, 4099};
#define N_SORT_SIZES (int)(sizeof kSortSizes / sizeof kSortSizes[0])
/* CUB's sort adds one size of many tiles: up to a tile or so a GPU's CUB sorts in one block and never
   looks at temp_storage_bytes (on the H200 a sort given 0 bytes sorted), past it CUB splits its
   storage and refuses less than it asked for (cudaErrorInvalidValue), as the simulator's does at
   every size (trial 9: too small a temporary buffer was accepted on the GPU). */
static const size_t kCubSizes[] = {1, 2, 7, 257, 1000, 4099, (size_t)1 << 18};
#define N_CUB_SIZES (int)(sizeof kCubSizes / sizeof kCubSizes[0])

/* Distinct keys: i -> i * odd + c is a bijection of 32-bit words. With `dups`, keys repeat: 50 values,
   0..49 through the same bijection, so that they are full 32-bit words too (trial 7, a94: keys 0..49
   fit in 16 bits, and a sort of bits 0 to 15 only passed). */
static void make_pairs(unsigned *keys, float *vals, size_t n, uint64_t seed, int dups) {
    grade_fill_ints((int *)keys, n, seed, 0, 49);
    for (size_t i = 0; i < n; i++)
        keys[i] = (unsigned)((dups ? keys[i] : i) * 2654435761u + (unsigned)seed);
    grade_fill_floats(vals, n, seed + 1, -2.0f, 2.0f);
}

/* The same limit in cdf_thrust_gpu (trial 17, b047: thrust::transform into
   thrust::device_pointer_cast(d_cdf) instead of cdf_normalise_kernel, told to cudaMemcpy back): name
   the simulator's limit, and the exercise's own step: cdf_normalise_kernel writes d_cdf. */
static const char *cdf_crash_hint(const char *said) {
    if (!strstr(said, "host access to device memory")) return NULL;
    return "cdf_thrust_gpu touched device memory from the host. If it runs a Thrust algorithm on a raw pointer (thrust::transform "
           "into thrust::device_pointer_cast(d_cdf) ...): that is valid on a GPU, but the simulator runs Thrust on the CPU and cannot "
           "follow a device_ptr into cudaMalloc memory (a simulator limit, see lessons/13-libraries/README.md); if host code reads or "
           "writes d_keys, d_vals, d_keys_out or d_cdf itself, that fails on a GPU too. Either way this exercise's last step is your "
           "kernel: launch cdf_normalise_kernel on the scanned vector's raw pointer (thrust::raw_pointer_cast(v.data()), n, "
           "1.0f / total, d_cdf) to write d_cdf";
}

START_TEST(test_thrust_cdf_matches_cpu_at_every_size) {
    size_t n = kSortSizes[_i];
    uint64_t seed = grade_seed() * 7 + n;
    unsigned *keys = grade_alloc(n * 4), *want_keys = grade_alloc(n * 4), *got_keys = grade_alloc(n * 4);
    float *vals = grade_alloc(n * 4), *want = grade_alloc(n * 4), *got = grade_alloc(n * 4), *sorted = grade_alloc(n * 4);
    make_pairs(keys, vals, n, seed, 0);
    cdf_cpu(keys, vals, n, want_keys, sorted, want);
    void *d_keys, *d_vals, *d_keys_out, *d_cdf;
    ck_assert(cudaMalloc(&d_keys, n * 4) == cudaSuccess && cudaMalloc(&d_vals, n * 4) == cudaSuccess);
    ck_assert(cudaMalloc(&d_keys_out, n * 4) == cudaSuccess && cudaMalloc(&d_cdf, n * 4) == cudaSuccess);
    ck_assert(cudaMemcpy(d_keys, keys, n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(d_vals, vals, n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_device(d_keys_out, n * 4);
        grade_poison_device(d_cdf, n * 4);
        judge_set_crash_hint(cdf_crash_hint);
        cudaError_t made = cdf_thrust_gpu(d_keys, d_vals, n, d_keys_out, d_cdf);
        judge_set_crash_hint(NULL);
        GRADE_EXPECT_CUDA_OK(made, "cdf_thrust_gpu");
        GRADE_EXPECT_FROM_DEVICE("cdf_thrust_gpu", (unsigned long long)n * 4,
                                 "Thrust sorts the pairs and scans the squares (thrust::sort_by_key, transform, exclusive_scan on "
                                 "thrust::device_ptr), and cdf_normalise_kernel divides");
        ck_assert(cudaMemcpy(got_keys, d_keys_out, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        ck_assert(cudaMemcpy(got, d_cdf, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        int untouched = 1;
        for (size_t i = 0; i < n && untouched; i++) untouched = got_keys[i] == 0xFFFFFFFFu && is_device_garbage_f(got[i]);
        ck_assert_msg(!untouched,
                      "cdf_thrust_gpu (n = %zu, " SEED_TEXT "): returned cudaSuccess, but neither d_keys_out nor d_cdf was written (both "
                      "still hold the 0xFF bytes the grader put there)\n  likely mistake: not written yet? TODO(13.3): the Thrust "
                      "pipeline, cdf_normalise_kernel into d_cdf, and the sorted keys copied into d_keys_out",
                      n, SEED);
        /* the right keys' first n bytes, the rest still the poison: a copy of n bytes where n keys of 4 bytes were
           meant (trial 16, b043: cudaMemcpy(d_keys_out, ..., n, ...)) */
        int bytes_only = !memcmp(got_keys, want_keys, n) && memcmp(got_keys, want_keys, n * 4), wrote = 0;
        for (size_t i = 0; i < n; i++) wrote |= ((const unsigned char *)got_keys)[i] != 0xFF; /* not the untouched poison */
        for (size_t i = n; i < n * 4 && bytes_only; i++) bytes_only = ((const unsigned char *)got_keys)[i] == 0xFF;
        bytes_only &= wrote;
        ck_assert_msg(!bytes_only,
                      "cdf_thrust_gpu (n = %zu, " SEED_TEXT "): the first %zu bytes of d_keys_out are the sorted keys' first %zu bytes, and "
                      "the other %zu bytes still hold the grader's 0xFF: only n bytes of the n keys arrived\n  likely mistake: the keys "
                      "were copied out with n bytes where n keys were meant: cudaMemcpy's size is in bytes, n * sizeof(unsigned)",
                      n, SEED, n, n, n * 3);
        /* thrust::sort_by_key(v.begin(), v.end(), keys.begin()) (trial 21, b082): the squares sorted, the keys carried
           along, so d_keys_out holds every key, ordered by its value's square. The keys are distinct and want_keys
           ascending: a binary search finds each key's pair, sorted[] holds that pair's value. */
        if (n > 1 && memcmp(got_keys, want_keys, n * 4)) {
            int by_square = 1;
            float prev = -1.0f;
            for (size_t i = 0; i < n && by_square; i++) {
                size_t lo = 0, hi = n;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (want_keys[mid] < got_keys[i]) lo = mid + 1;
                    else hi = mid;
                }
                float sq = lo < n && want_keys[lo] == got_keys[i] ? sorted[lo] * sorted[lo] : -1.0f;
                by_square = sq >= 0.0f && sq >= prev;
                prev = sq;
            }
            ck_assert_msg(!by_square,
                          "cdf_thrust_gpu (n = %zu, " SEED_TEXT "): d_keys_out holds the keys in the order of their values' squares, not "
                          "ascending (d_keys_out[0] = %u, want %u)\n  likely mistake: thrust::sort_by_key's arguments are swapped: it "
                          "sorts its first range (the keys) and carries the second (the values) along: "
                          "thrust::sort_by_key(keys.begin(), keys.end(), v.begin())",
                          n, SEED, got_keys[0], want_keys[0]);
        }
        GradeCompare kc = {.what = "cdf_thrust_gpu: the sorted keys", .n = n, .schedule = s};
        GRADE_EXPECT_INTS((const int *)got_keys, (const int *)want_keys, &kc);
        /* A float scan of n terms errs by about sqrt(n) eps of the total; a mistake moves values by a whole term or more. */
        double tol = 8.0 * sqrt((double)n) * FLT_EPSILON;
        const char *why = NULL;
        double total = 0, run = 0;
        for (size_t i = 0; i < n; i++) total += (double)sorted[i] * sorted[i];
        /* the total taken after the exclusive scan: the sum of the prefix sums */
        double after = 0, pre = 0;
        for (size_t i = 0; i < n; i++) after += (float)pre, pre += (double)sorted[i] * sorted[i];
        int after_scan = 1;
        pre = 0;
        for (size_t i = 0; i < n; i++) {
            float a = (float)pre * (1.0f / (float)after), g = got[i];
            after_scan &= (isnan(a) && isnan(g)) || fabs((double)g - a) <= tol * (1 + fabs((double)a));
            pre += (double)sorted[i] * sorted[i];
        }
        int inclusive = 1, unnormalised = 1, unsquared = 1, by_plain_sum = 1, any = 0;
        double abs_total = 0, run_abs = 0, plain_total = 0, run_excl = 0;
        for (size_t i = 0; i < n; i++) abs_total += fabs(sorted[i]), plain_total += sorted[i];
        for (size_t i = 0; i < n; i++) {
            double w = want[i], g = got[i];
            if (isnan(g) || fabs(g - w) > tol * (1 + fabs(w))) any = 1;
            run += (double)sorted[i] * sorted[i];
            if (isnan(g) || fabs(g - run / total) > tol) inclusive = 0;
            if (isnan(g) || fabs(g - w * total) > tol * (1 + w * total)) unnormalised = 0;
            if (isnan(g) || fabs(g - run_abs / abs_total) > tol) unsquared = 0;
            run_abs += fabs(sorted[i]);
            /* the squares' exclusive scan divided by the sum of the values, not of their squares */
            double p = run_excl / plain_total;
            if (isnan(g) || fabs(g - p) > tol * (1 + fabs(p))) by_plain_sum = 0;
            run_excl += (double)sorted[i] * sorted[i];
        }
        /* thrust::sort on the keys alone (trial 26, c005): the keys come out sorted (checked above), the
           values stay in input order, so d_cdf is the input order's exclusive scan of the squares. */
        int input_order = n > 1;
        double run_in = 0;
        for (size_t i = 0; i < n && input_order; i++) {
            double p = run_in / total, g = got[i];
            input_order = !isnan(g) && fabs(g - p) <= tol * (1 + fabs(p));
            run_in += (double)vals[i] * vals[i];
        }
        if (!any) continue;
        if (input_order)
            why = "the keys are sorted but d_cdf follows the values in their input order: the values were not moved with their keys "
                  "(thrust::sort sorts the keys alone). Sort the pairs with thrust::sort_by_key(keys.begin(), keys.end(), v.begin())";
        else if (after_scan)
            why = "the total was taken after the exclusive scan: the scan overwrites v in place, so thrust::reduce then adds up the "
                  "prefix sums, not the squares (with one pair that total is 0, and 0 / 0 is NaN). Take the total with thrust::reduce "
                  "before thrust::exclusive_scan";
        else if (inclusive) why = "each value includes its own square: that is an inclusive scan (thrust::inclusive_scan); use thrust::exclusive_scan";
        else if (unnormalised) why = "the scan was not divided by the total: cdf_normalise_kernel multiplies each scanned value by 1 / (sum of squares)";
        else if (is_device_garbage_f(got[0])) why = "d_cdf was never written: launch cdf_normalise_kernel on the vector's raw pointer (thrust::raw_pointer_cast(v.data()))";
        else if (got[0] != 0.0f) why = "d_cdf[0] must be 0 (nothing comes before the first pair): an exclusive scan starts at 0";
        else if (unsquared) why = "the values were not squared: thrust::transform with a functor returning x * x before the scan";
        /* trial 8, a023: thrust::reduce moved before thrust::transform */
        else if (by_plain_sum && plain_total != 0)
            why = "the scan was divided by the sum of the values, not of their squares: the total was taken (thrust::reduce) before "
                  "the values were squared; take it after thrust::transform";
        else why = "sort the values together with their keys (thrust::sort_by_key), square them, scan exclusively, and divide by the sum of the squares";
        GradeCompare cmp = {.what = "cdf_thrust_gpu: d_cdf", .n = n, .atol = tol, .rtol = tol, .schedule = s};
        char *d = grade_diff_floats(got, want, &cmp);
        char *lm = d ? strstr(d, "\n  likely mistake: ") : NULL; /* ours replaces grade.c's generic one */
        if (lm) *lm = 0;
        ck_abort_msg("%s\n  likely mistake: %s", d ? d : "d_cdf differs", why);
    }
    cudaFree(d_keys), cudaFree(d_vals), cudaFree(d_keys_out), cudaFree(d_cdf);
    free(keys), free(want_keys), free(got_keys), free(vals), free(want), free(got), free(sorted);
}
END_TEST

/* 13.3's keys sorted by bits begin .. end - 1 only (SortPairs's begin_bit and end_bit, trial 7, a94):
   the stable sort by those bits, replayed on the CPU. */
static const unsigned *g_bits_keys;
static unsigned g_bits_mask, g_bits_shift;
static int by_bits(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    unsigned x = (g_bits_keys[i] >> g_bits_shift) & g_bits_mask, y = (g_bits_keys[j] >> g_bits_shift) & g_bits_mask;
    return x != y ? (x < y ? -1 : 1) : (i < j ? -1 : i > j);
}
/* 1 when got_keys are the keys stably sorted by bits begin .. end - 1 (end 32: to the top). */
static int sorted_by_bits(const unsigned *keys, const unsigned *got_keys, size_t n, int begin, int end) {
    size_t *order = grade_alloc((n ? n : 1) * sizeof *order);
    g_bits_keys = keys, g_bits_shift = (unsigned)begin, g_bits_mask = end - begin >= 32 ? 0xFFFFFFFFu : (1u << (end - begin)) - 1;
    for (size_t i = 0; i < n; i++) order[i] = i;
    qsort(order, n, sizeof *order, by_bits);
    int same = 1;
    for (size_t i = 0; i < n && same; i++) same = got_keys[i] == keys[order[i]];
    free(order);
    return same;
}
/* Which bits does the student's sort look at? A probe of the 32 keys 2^31, 2^30, .., 2^0 (descending):
   sorted by bits b .. e - 1, the keys without a bit there stay in front, in their order, and the
   others follow ascending, so each range gives its own order. 1 and the range when one other than
   0 .. 31 gives the probe's order. */
static int probe_sorted_bits(int *begin, int *end) {
    enum { P = 32 };
    unsigned keys[P], got[P];
    float vals[P], vout[P];
    for (int k = 0; k < P; k++) keys[k] = 1u << (P - 1 - k), vals[k] = (float)k;
    void *d_keys, *d_vals, *d_keys_out, *d_vals_out;
    ck_assert(cudaMalloc(&d_keys, sizeof keys) == cudaSuccess && cudaMalloc(&d_vals, sizeof vals) == cudaSuccess);
    ck_assert(cudaMalloc(&d_keys_out, sizeof keys) == cudaSuccess && cudaMalloc(&d_vals_out, sizeof vals) == cudaSuccess);
    ck_assert(cudaMemcpy(d_keys, keys, sizeof keys, cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(d_vals, vals, sizeof vals, cudaMemcpyHostToDevice) == cudaSuccess);
    int ran = sort_pairs_cub_gpu(d_keys, d_vals, P, d_keys_out, d_vals_out) == cudaSuccess &&
              cudaMemcpy(got, d_keys_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess &&
              cudaMemcpy(vout, d_vals_out, sizeof vout, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(d_keys), cudaFree(d_vals), cudaFree(d_keys_out), cudaFree(d_vals_out);
    if (!ran) return 0;
    for (int b = 0; b < 32; b++)
        for (int e = b + 1; e <= 32; e++)
            if ((b || e < 32) && sorted_by_bits(keys, got, P, b, e)) {
                *begin = b, *end = e;
                return 1;
            }
    return 0;
}

/* Thrust on cudaMalloc memory wrapped in thrust::device_pointer_cast runs on a GPU, but the
   simulator runs Thrust on the CPU, which stops at the first read of device memory (trial 14,
   b050: told to cudaMemcpy back, the student's sort being valid CUDA). Name the simulator's limit,
   and the exercise's own call: CUB's two-call sort. */
static const char *sort_crash_hint(const char *said) {
    if (!strstr(said, "host access to device memory")) return NULL;
    return "sort_pairs_cub_gpu read device memory from the host. If it runs Thrust on the raw pointers (thrust::sort_by_key on "
           "thrust::device_pointer_cast(d_keys_out) ...): that is valid on a GPU, but the simulator runs Thrust on the CPU and cannot "
           "follow a device_ptr into cudaMalloc memory (a simulator limit, see lessons/13-libraries/README.md). Either way this "
           "exercise asks for CUB's two-call sort, not Thrust: cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, ...) for the size, "
           "cudaMalloc temp_bytes, then SortPairs(d_temp, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, n)";
}

/* The sort is CUB's (trial 14, b051: thrust::sort_by_key on device_vectors gave the same pairs and
   passed): the source of sort_pairs_cub_gpu must call cub::DeviceRadixSort::SortPairs. */
static void expect_cub_sort_pairs_in_source(void) {
    char body[16384];
    int got = grade_source_function("libraries.cu", "sort_pairs_cub_gpu", body, sizeof body);
    if (got == -1) return; /* no source to read */
    ck_assert_msg(got == 1, "the grader could not find sort_pairs_cub_gpu's definition in libraries.cu (%s)",
                  got == -2 ? "the file cannot be read" : "no definition");
    ck_assert_msg(strstr(body, "SortPairs") != NULL,
                  "sort_pairs_cub_gpu's pairs are right, but it never calls cub::DeviceRadixSort::SortPairs%s\n  likely mistake: "
                  "the sort was done another way: this exercise is CUB's two-call sort -- SortPairs(NULL, temp_bytes, ...) asks for "
                  "the temporary storage's size, then cudaMalloc temp_bytes and call SortPairs again with the same arguments and "
                  "that buffer to sort (Thrust is 13.3's cdf_thrust_gpu)",
                  strstr(body, "thrust") ? " (it sorts with Thrust)" : "");
    /* Both calls of the protocol (trial 21, b107: one SortPairs into a fixed 16 MiB cudaMalloc sorted
       right and passed; CUB's storage need grows with n and differs between versions and GPUs, so
       only the size query's answer is safe). The first call, d_temp_storage == NULL, is a second
       SortPairs in the source (or a SortKeys query, which the runs below diagnose: it asks for too little). */
    int calls = 0;
    for (const char *p = strstr(body, "SortPairs"); p; p = strstr(p + 1, "SortPairs")) calls++;
    for (const char *p = strstr(body, "SortKeys"); p; p = strstr(p + 1, "SortKeys")) calls++;
    ck_assert_msg(calls >= 2,
                  "sort_pairs_cub_gpu calls cub::DeviceRadixSort::SortPairs once: it never asks CUB how much temporary storage "
                  "the sort needs\n  likely mistake: the size query is missing: a fixed-size buffer may be too small for another n, "
                  "CUB version or GPU. First call SortPairs(NULL, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, n) (it only "
                  "writes temp_bytes), then cudaMalloc(&d_temp, temp_bytes) and call SortPairs again with d_temp");
}

START_TEST(test_cub_sort_pairs_is_exact_and_stable) {
    size_t n = kCubSizes[_i];
    uint64_t seed = grade_seed() * 11 + n;
    unsigned *keys = grade_alloc(n * 4), *want_keys = grade_alloc(n * 4), *got_keys = grade_alloc(n * 4);
    float *vals = grade_alloc(n * 4), *want = grade_alloc(n * 4), *got = grade_alloc(n * 4);
    make_pairs(keys, vals, n, seed, 1); /* repeated keys: their values must keep their order */
    cdf_cpu(keys, vals, n, want_keys, want, NULL);
    void *d_keys, *d_vals, *d_keys_out, *d_vals_out;
    ck_assert(cudaMalloc(&d_keys, n * 4) == cudaSuccess && cudaMalloc(&d_vals, n * 4) == cudaSuccess);
    ck_assert(cudaMalloc(&d_keys_out, n * 4) == cudaSuccess && cudaMalloc(&d_vals_out, n * 4) == cudaSuccess);
    ck_assert(cudaMemcpy(d_keys, keys, n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(d_vals, vals, n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    grade_poison_device(d_keys_out, n * 4);
    grade_poison_device(d_vals_out, n * 4);
    judge_set_crash_hint(sort_crash_hint);
    cudaError_t sorted = sort_pairs_cub_gpu(d_keys, d_vals, n, d_keys_out, d_vals_out);
    cudaDeviceSynchronize();
    judge_set_crash_hint(NULL);
    /* CUB refuses a temp_storage_bytes below what the size query reported (trial 8, a024: the size set
       to 0 between the two calls), or below what SortPairs needs (trial 10, a024: the query made with
       SortKeys); the simulator's CUB too */
    ck_assert_msg(sorted != cudaErrorInvalidValue,
                  "sort_pairs_cub_gpu (n = %zu, " SEED_TEXT "): returned cudaErrorInvalidValue\n"
                  "  likely mistake: the second SortPairs call was given less temporary storage than the first reported (the size query "
                  "must be the same SortPairs call, with d_temp_storage = NULL: a SortKeys query asks for less): pass it the "
                  "same temp_storage_bytes that query wrote, and a buffer of that many bytes; or an "
                  "argument CUB refuses (a NULL buffer, a negative num_items, begin_bit >= end_bit)",
                  n, SEED);
    GRADE_EXPECT_CUDA_OK(sorted, "sort_pairs_cub_gpu");
    ck_assert(cudaMemcpy(got_keys, d_keys_out, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    ck_assert(cudaMemcpy(got, d_vals_out, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    int unwritten = 1;
    for (size_t i = 0; i < n; i++) unwritten &= got_keys[i] == 0xFFFFFFFFu;
    ck_assert_msg(!unwritten,
                  "sort_pairs_cub_gpu (n = %zu, " SEED_TEXT "): the output keys were never written\n"
                  "  likely mistake: the first SortPairs call (d_temp_storage = NULL) only reports temp_storage_bytes; allocate that many "
                  "bytes and call SortPairs again with the same arguments to sort",
                  n, SEED);
    int begin = 0, end = 32;
    if (memcmp(got_keys, want_keys, n * 4) && probe_sorted_bits(&begin, &end) && sorted_by_bits(keys, got_keys, n, begin, end))
        ck_abort_msg("sort_pairs_cub_gpu (n = %zu, " SEED_TEXT "): the keys came out sorted by their bits %d to %d only, the other bits "
                     "ignored (the keys are full 32-bit words; a probe of the 32 keys 2^31 .. 2^0 showed the same bits)\n"
                     "  likely mistake: SortPairs was given begin_bit = %d and end_bit = %d: a radix sort looks only at bits begin_bit .. "
                     "end_bit - 1. Leave both out (they default to 0 and sizeof(unsigned) * 8 = 32), in both calls",
                     n, SEED, begin, end - 1, begin, end);
    GradeCompare kc = {.what = "sort_pairs_cub_gpu: the sorted keys", .n = n};
    GRADE_EXPECT_INTS((const int *)got_keys, (const int *)want_keys, &kc);
    GradeCompare vc = {.what = "sort_pairs_cub_gpu: the values, in key order (equal keys keep their input order)", .n = n};
    GRADE_EXPECT_FLOATS(got, want, &vc);
    cudaFree(d_keys), cudaFree(d_vals), cudaFree(d_keys_out), cudaFree(d_vals_out);
    free(keys), free(want_keys), free(got_keys), free(vals), free(want), free(got);
    if (_i == 0) expect_cub_sort_pairs_in_source();
}
END_TEST

/* ============================================================================================== */
/* 13.4: Monte-Carlo pi                                                                            */

/* |estimate - pi| within 6 standard deviations of n Bernoulli(pi/4) trials: 4 sqrt(p (1 - p) / n). */
static double pi_tolerance(double n) { return 6.0 * 4.0 * sqrt(M_PI / 4 * (1 - M_PI / 4) / n); }

static unsigned long long host_api_hits(uint64_t gen, size_t n, unsigned long long *d_hits, const char *what) {
    /* not 0xFF bytes: adding to all ones wraps around to a count that looks right */
    ck_assert(cudaMemset(d_hits, 0x5A, sizeof *d_hits) == cudaSuccess);
    int st = pi_curand_host_gpu((curandGenerator_t)(uintptr_t)gen, n, d_hits);
    if (st != 0) {
        const char *rn = curand_status_text(st);
        ck_abort_msg("pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): returned %d: %s%s\n  likely mistake: %s", what, n, SEED, st,
                     rn ? rn : judge_error_name(st), rn ? ", from curandGenerateUniform (a curandStatus_t)" : " (a cudaError_t: from "
                     "cudaMalloc, cudaMemset, the launch or cudaFree)",
                     rn ? "curandGenerateUniform(gen, d_u, 2 * n) into a device buffer of 2n floats, with the caller's generator"
                        : "every CUDA call of the function returns its error; the first that failed is named above");
    }
    unsigned long long h = 0;
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(&h, d_hits, sizeof h, cudaMemcpyDeviceToHost), "copying the count back");
    ck_assert_msg(h != 0x5A5A5A5A5A5A5A5Aull,
                  "pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): returned 0 but *d_hits was never written (it still holds the "
                  "0x5A bytes the grader put there)\n  likely mistake: not written yet? TODO(13.4): generate 2n uniforms, zero "
                  "*d_hits, launch count_inside_kernel",
                  what, n, SEED);
    /* every lane adding the warp's __popc(ballot) (trial 9): 32 times a count that estimates pi */
    ck_assert_msg(!(h > n && h % 32 == 0 && h / 32 <= n && fabs(4.0 * (double)(h / 32) / (double)n - M_PI) <= pi_tolerance((double)n)),
                  "pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): counted %llu points inside, more than the %zu drawn, and exactly "
                  "32 times %llu, a count that estimates pi well (%.5f)\n"
                  "  likely mistake: every lane of a warp added the warp's __popc(ballot), so each warp's count was added 32 times: "
                  "only one lane may add it, if ((threadIdx.x & 31) == 0) atomicAdd(hits, __popc(ballot))",
                  what, n, SEED, h, n, h / 32, 4.0 * (double)(h / 32) / (double)n);
    /* the high 4 bytes still the grader's 0x5A, the low 4 a count that estimates pi: a memset of sizeof(unsigned)
       where the count is an unsigned long long (trial 16, b046) */
    unsigned long long lo = h & 0xFFFFFFFFull;
    ck_assert_msg(!(h >> 32 == 0x5A5A5A5Aull && lo <= n && fabs(4.0 * (double)lo / (double)n - M_PI) <= pi_tolerance((double)n)),
                  "pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): *d_hits = 0x%016llX: its high 4 bytes still hold the 0x5A bytes "
                  "the grader put there, its low 4 bytes a count (%llu) that estimates pi well\n  likely mistake: the memset zeroed "
                  "only 4 of the count's 8 bytes: *d_hits is an unsigned long long, so cudaMemset(d_hits, 0, sizeof *d_hits) -- "
                  "sizeof(unsigned long long), not sizeof(unsigned)",
                  what, n, SEED, h, lo);
    ck_assert_msg(h <= n,
                  "pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): counted %llu points inside, more than the %zu drawn\n"
                  "  likely mistake: *d_hits arrives holding garbage: zero it (cudaMemset) before counting, on every call",
                  what, n, SEED, h, n);
    double est = 4.0 * (double)h / (double)n;
    ck_assert_msg(fabs(est - M_PI) <= pi_tolerance((double)n),
                  "pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): estimated pi = %.6f, more than six standard deviations (%.4f) from %.6f\n"
                  "  likely mistake: %s",
                  what, n, SEED, est, pi_tolerance((double)n), M_PI,
                  /* the simulator's timeline: a memset queued after the kernel zeroed its count (trial 20, b085) */
                  h == 0 && l13_pi_memset_after_kernel()
                      ? "nothing was counted, and the call queued a memset after count_inside_kernel (the simulator's timeline): "
                        "cudaMemset(d_hits, 0, sizeof *d_hits) ran after the kernel and wiped out its count. Zero *d_hits before "
                        "the launch, then launch count_inside_kernel"
                  : h == 0 ? "nothing was counted: did count_inside_kernel run, over all n points?"
                  /* pi over 2: the points of one half alone were counted (trial 6, a63: n uniforms generated,
                     so the points from n / 2 on read memory no generator wrote, NaN on the simulator) */
                  : n >= 2 && fabs(8.0 * (double)h / (double)n - M_PI) <= pi_tolerance((double)n / 2)
                      ? "about half the points were counted inside, an estimate near pi / 2: as if only the first n / 2 points "
                        "were there. Either only n uniforms were generated, so the points from n / 2 on read memory no generator "
                        "wrote (two per point: curandGenerateUniform(gen, d_u, 2 * n)), or count_inside_kernel looked at only "
                        "n / 2 of the n points"
                  /* about one count per warp (trial 8, a029: atomicAdd(hits, 1) by the warp's leader, not __popc(ballot)) */
                  : n >= 32 * 64 && 32.0 * (double)h <= (double)n + 32 && 32.0 * (double)h >= 0.9 * (double)n
                      ? "about one point was counted per warp (the count is near n / 32): the warp's leader added 1 instead of the number "
                        "of its lanes whose point is inside -- atomicAdd(hits, __popc(ballot)), the ballot's set bits"
                      : "each point is (u[2i], u[2i + 1]) from 2n uniforms, inside when x * x + y * y <= 1; every point counts once");
    return h;
}

/* A probe of count_inside_kernel's reads past the 2n uniforms (trial 7, a98: the kernel given 2 * n, the
   number of uniforms, as its point count, its guard `i < n` right). n = 37 points, one block of 256
   threads, under the simulator's reverse schedule: the threads start from the last, so the first
   read past the end, which the simulator reports, is the highest point index read, and that tells
   the mistakes apart: point n alone (a guard `i <= n`), points up to 2n - 1 (the count given is the
   2n uniforms), points up to the block's last thread (no guard, or a count larger still).
   g_pi_probe_n: the probe's n while it runs, 0 otherwise. */
static size_t g_pi_probe_n;
static const char *pi_probe_crash_hint(const char *said) {
    static char hint[700];
    size_t n = g_pi_probe_n;
    JudgeOobRead o;
    if (!n || !judge_oob_read(said, "count_inside_kernel", &o) || o.elem_bytes != 4 || o.buffer_bytes != 2 * n * sizeof(float) ||
        o.index < 2 * n)
        return NULL;
    size_t i = o.index / 2;
    if (i == n)
        snprintf(hint, sizeof hint,
                 "with n = %zu points (threads started from the last), point %zu, the first past the last point, was the only one read: "
                 "the guard lets thread i == n through. It must be if (i < n), not i <= n",
                 n, n);
    else if (i == 2 * n - 1)
        snprintf(hint, sizeof hint,
                 "with n = %zu points (threads started from the last), the highest point read was %zu = 2n - 1: every point below "
                 "2n got through, so the point count is 2n there, the number of uniforms: the launch passed 2 * n as the kernel's "
                 "count (or its guard tests i < 2 * n). count_inside_kernel's n is the number of points, n, and point i reads "
                 "u[2i] and u[2i + 1] itself: launch it with n, guard it with if (i < n)",
                 n, i);
    else
        snprintf(hint, sizeof hint,
                 "with n = %zu points (threads started from the last), point %zu was read, %zu past the last one: the threads past n "
                 "were not stopped. Either the kernel has no bounds check (if (i < n)), or the count it was given is larger than the "
                 "number of points n",
                 n, i, i - n + 1);
    return hint;
}
static void pi_probe_reads_past_the_end(int type) {
#if ON_SIM
    size_t n = 37;
    unsigned long long *d_hits;
    ck_assert(cudaMalloc((void **)&d_hits, sizeof *d_hits) == cudaSuccess);
    int st = 0;
    uint64_t gen = l13_curand_create(type, grade_seed() + 4242, &st);
    ck_assert_msg(st == 0, "grader: creating a cuRAND generator failed with status %d", st);
    grade_use_schedule(1);
    g_pi_probe_n = n;
    judge_set_crash_hint(pi_probe_crash_hint);
    (void)pi_curand_host_gpu((curandGenerator_t)(uintptr_t)gen, n, d_hits);
    (void)cudaDeviceSynchronize();
    judge_set_crash_hint(NULL);
    g_pi_probe_n = 0;
    grade_use_schedule(2);
    l13_curand_destroy(gen);
    cudaFree(d_hits);
#else
    (void)type; /* a GPU does not stop at a read a little past the end: compute-sanitizer's pass reports it */
#endif
}

/* The race check (simulator only; trial 11, a031): a thread runs from one scheduling point to the
   next without a switch, so lane 0 of each warp adding its count with a plain *hits += gives the
   right count on the simulator and loses counts on a GPU. On a small n (4 blocks of 256 threads and
   a few points more) the grader lets the simulator watch every access instead: two warps that
   update *hits without an atomic stop the runner with the simulator's diagnosis, and the hint
   below names the count. */
static const char *pi_race_crash_hint(const char *said) {
    if (!strstr(said, "data race in kernel 'count_inside_kernel'")) return NULL;
    return "several warps (of one block or of several) add their count into *hits with a plain read-modify-write (*hits += ...): "
           "two that meet lose one of the counts on a GPU. The update of *hits from several warps and blocks must be atomic: "
           "if ((threadIdx.x & 31) == 0 && ballot) atomicAdd(hits, (unsigned long long)__popc(ballot))";
}
static void pi_host_race_free(int type) {
    unsigned long long *d_hits;
    ck_assert(cudaMalloc((void **)&d_hits, sizeof *d_hits) == cudaSuccess);
    if (!grade_use_racecheck(1)) { /* a GPU (the lost counts show in the estimate there), or a runner that cannot check */
        cudaFree(d_hits);
        return;
    }
    int st = 0;
    uint64_t gen = l13_curand_create(type, grade_seed() + 7331, &st);
    ck_assert_msg(st == 0, "grader: creating a cuRAND generator failed with status %d", st);
    judge_set_crash_hint(pi_race_crash_hint);
    (void)host_api_hits(gen, 4 * 256 + 37, d_hits, "under the simulator's race check");
    (void)cudaDeviceSynchronize();
    judge_set_crash_hint(NULL);
    grade_use_racecheck(0);
    l13_curand_destroy(gen);
    cudaFree(d_hits);
}

/* The points inside among n drawn from 2n uniforms u, point i being (u[stride i], u[stride i + step]):
   lo counts those inside however x * x + y * y is rounded (float or double, with or without a fused
   multiply-add, as nvcc contracts it; < 1 or <= 1), hi those that may be; an exact count is in between. */
static void pi_count_cpu(const float *u, size_t n, size_t stride, size_t step, unsigned long long *lo, unsigned long long *hi) {
    *lo = *hi = 0;
    for (size_t i = 0; i < n; i++) {
        double x = u[stride * i], y = u[stride * i + step], r = x * x + y * y;
        int near = fabs(r - 1.0) <= 4e-7; /* a few float ulps of 1: the rounding decides */
        *lo += !near && r <= 1.0;
        *hi += near || r <= 1.0;
    }
}

/* The first call's count, checked exactly: a generator seeded as the caller's draws the same 2n
   uniforms again, and the CPU counts their points (trial 9: point i as u[i] and u[i + 1], overlapping
   pairs, estimates pi just as well but its points are not independent). */
static void pi_check_exact_count(int type, unsigned long long seed, size_t n, unsigned long long got, const char *what) {
    int st = 0;
    uint64_t gen = l13_curand_create(type, seed, &st);
    ck_assert_msg(st == 0, "grader: creating a cuRAND generator failed with status %d", st);
    float *d_u = NULL, *u = grade_alloc(2 * n * sizeof(float));
    ck_assert(cudaMalloc((void **)&d_u, 2 * n * sizeof(float)) == cudaSuccess);
    ck_assert_msg((st = l13_curand_uniforms(gen, d_u, 2 * n)) == 0, "grader: curandGenerateUniform failed with status %d", st);
    ck_assert(cudaMemcpy(u, d_u, 2 * n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(d_u);
    l13_curand_destroy(gen);
    unsigned long long lo, hi, olo, ohi, hlo, hhi;
    pi_count_cpu(u, n, 2, 1, &lo, &hi);
    pi_count_cpu(u, n, 1, 1, &olo, &ohi); /* (u[i], u[i + 1]) */
    pi_count_cpu(u, n, 1, n, &hlo, &hhi); /* (u[i], u[n + i]) */
    free(u);
    if (got >= lo && got <= hi) return;
    ck_abort_msg("pi_curand_host_gpu (%s, n = %zu, " SEED_TEXT "): counted %llu points inside; the grader drew the same 2n uniforms "
                 "again (a generator with the caller's seed) and, with point i = (u[2i], u[2i + 1]), %llu are inside\n"
                 "  likely mistake: %s",
                 what, n, SEED, got, lo,
                 got >= olo && got <= ohi
                     ? "point i took u[i] and u[i + 1], the count matches those overlapping pairs: neighbouring points then share a "
                       "number and are not independent (the estimate still looks right). Point i is (u[2i], u[2i + 1])"
                 : got >= hlo && got <= hhi
                     ? "point i took u[i] and u[n + i], the count matches that: the exercise's points are (u[2i], u[2i + 1]), "
                       "two numbers next to each other"
                 : got > hi
                     ? "more points inside than the n points have: threads past point n - 1 counted too, reading past the 2n uniforms "
                       "(count_inside_kernel's guard must be i < n, and n the number of points, not of uniforms)"
                     : "the count is not the one of the 2n uniforms the generator gave: each point is (u[2i], u[2i + 1]) of one "
                       "curandGenerateUniform(gen, d_u, 2 * n), inside when x * x + y * y <= 1, and every point counts once");
}

START_TEST(test_host_api_estimate_is_close_continues_and_reproduces) {
    static const int types[] = {CURAND_RNG_PSEUDO_DEFAULT, CURAND_RNG_PSEUDO_PHILOX4_32_10};
    const char *names[] = {"CURAND_RNG_PSEUDO_DEFAULT", "CURAND_RNG_PSEUDO_PHILOX4_32_10"};
    int t = _i;
    pi_probe_reads_past_the_end(types[t]);
    /* not a multiple of the block: a thread past the last point exists, and a guard `i <= n` reads past the uniforms.
       Fewer points on the simulator, which runs every thread on the CPU: 2^16 still puts six standard
       deviations at 0.019, far below every wrong estimate the checks below tell apart (pi / 2, n / 32). */
    size_t n = ((size_t)1 << (ON_SIM ? 16 : 20)) + 37;
    unsigned long long seed = grade_seed() * 2654435761u + 17, *d_hits;
    ck_assert(cudaMalloc((void **)&d_hits, sizeof *d_hits) == cudaSuccess);
    int st = 0;
    uint64_t gen = l13_curand_create(types[t], seed, &st);
    ck_assert_msg(st == 0, "grader: creating a cuRAND generator failed with status %d", st);
    unsigned long long first = host_api_hits(gen, n, d_hits, names[t]);
    unsigned long long second = host_api_hits(gen, n, d_hits, names[t]);
    ck_assert_msg(first != second,
                  "pi_curand_host_gpu (%s, " SEED_TEXT "): two calls with the same generator counted the same %llu points\n"
                  "  likely mistake: the generator was re-seeded (or re-created) in the call, so every call draws the same numbers; the "
                  "caller seeds it once, and each curandGenerateUniform continues its sequence",
                  names[t], SEED, first);
    l13_curand_destroy(gen);
    /* Another seed draws other numbers (two tries: two independent counts agree now and then). */
    unsigned long long other = first;
    for (int k = 1; k <= 2 && other == first; k++) {
        gen = l13_curand_create(types[t], seed + (unsigned long long)k, &st);
        other = host_api_hits(gen, n, d_hits, names[t]);
        l13_curand_destroy(gen);
    }
    ck_assert_msg(other != first,
                  "pi_curand_host_gpu (%s, " SEED_TEXT "): generators seeded differently by the caller counted the same %llu points\n"
                  "  likely mistake: the call seeds the generator itself (curandSetPseudoRandomGeneratorSeed with a constant), so the "
                  "caller's seed is lost; the caller seeds it once, and the call only generates",
                  names[t], SEED, first);
    gen = l13_curand_create(types[t], seed, &st);
    unsigned long long again = host_api_hits(gen, n, d_hits, names[t]);
    ck_assert_msg(again == first,
                  "pi_curand_host_gpu (%s, " SEED_TEXT "): a new generator with the same seed counted %llu points, the first one %llu\n"
                  "  likely mistake: the numbers must come from the generator given, as seeded by the caller (no generator or seed of "
                  "your own), so that a run can be repeated",
                  names[t], SEED, again, first);
    l13_curand_destroy(gen);
    cudaFree(d_hits);
    pi_check_exact_count(types[t], seed, n, first, names[t]);
    if (t == 0) pi_host_race_free(types[t]);
}
END_TEST

/* One atomic per warp (trial 13, c035: atomicAdd(hits, 1) by every thread whose point is inside):
   the count is right, but some 25 times as many atomics on one address, each waiting for the one
   before. The simulator's profiler counts count_inside_kernel's atomics on a small n (5 blocks of
   256): at most one per warp launched. Simulator only: a GPU would need a start of Nsight Compute. */
#if ON_SIM
START_TEST(test_host_api_adds_one_atomic_per_warp) {
    const size_t n = 4 * 256 + 37;
    grade_profile_begin();
    unsigned long long *d_hits;
    ck_assert(cudaMalloc((void **)&d_hits, sizeof *d_hits) == cudaSuccess);
    int st = 0;
    uint64_t gen = l13_curand_create(CURAND_RNG_PSEUDO_DEFAULT, grade_seed() + 4242, &st);
    ck_assert_msg(st == 0, "grader: creating a cuRAND generator failed with status %d", st);
    (void)host_api_hits(gen, n, d_hits, "CURAND_RNG_PSEUDO_DEFAULT, profiled");
    l13_curand_destroy(gen);
    cudaFree(d_hits);
    grade_profile_end();
    GradeProfile g;
    if (!grade_profile_get("count_inside_kernel", &g)) {
        grade_note_unchecked("one atomic per warp in count_inside_kernel");
        return;
    }
    unsigned long long warps = (n + 255) / 256 * 256 / 32;
    ck_assert_msg(g.atomics <= warps,
                  "pi_curand_host_gpu (n = %zu, " SEED_TEXT "): count_inside_kernel made %llu atomic operations on *hits (the simulator's "
                  "profiler counts them), where one per warp is at most %llu for the %llu warps launched\n  likely mistake: one atomicAdd "
                  "per thread inside the circle: every thread's atomic on the one address waits for the one before. Add one count per "
                  "warp: unsigned ballot = __ballot_sync(0xffffffffu, inside); lane 0 adds __popc(ballot), "
                  "if ((threadIdx.x & 31) == 0 && ballot) atomicAdd(hits, (unsigned long long)__popc(ballot))",
                  n, SEED, g.atomics, warps, warps);
}
END_TEST
#endif

static void device_api_hits(unsigned long long seed, unsigned blocks, unsigned threads, unsigned samples, unsigned *d_hits, unsigned *h) {
    size_t T = (size_t)blocks * threads;
    grade_poison_device(d_hits, T * 4);
    GRADE_EXPECT_CUDA_OK(pi_curand_device_gpu(seed, blocks, threads, samples, d_hits), "pi_curand_device_gpu");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(h, d_hits, T * 4, cudaMemcpyDeviceToHost), "copying the counts back (an error here comes from the kernel)");
}

START_TEST(test_device_api_estimate_is_close_independent_and_reproducible) {
    const unsigned blocks = 32, threads = 128, samples = 256;
    size_t T = (size_t)blocks * threads;
    unsigned long long seed = grade_seed() * 40503u + 5;
    unsigned *d_hits, *a = grade_alloc(T * 4), *b = grade_alloc(T * 4), *c = grade_alloc(T * 4);
    ck_assert(cudaMalloc((void **)&d_hits, T * 4) == cudaSuccess);
    device_api_hits(seed, blocks, threads, samples, d_hits, a);
    /* The launch shape (trial 18, b109: <<<threads, blocks>>>, 128 blocks of 32 threads: the same
       thread count and right values here, but 32-thread blocks fill a quarter of each SM's slots,
       and a launch fails once `blocks` passes 1024). Recorded by the simulator (CUPTI on a GPU). */
    unsigned long long got_blocks, got_threads;
    int grid_seen = judge_last_call_grid("pi_device_kernel", &got_blocks, &got_threads);
    if (grid_seen == -1) {
        /* A GPU records no grid (judge.h); the swap shows as a refused launch once `blocks` passes 1024
           (the H100 accepted b109 without this): 1100 blocks of 32 threads are a valid launch, 32 blocks
           of 1100 threads are not. */
        const unsigned many = 1100, warp = 32;
        unsigned *d_probe;
        ck_assert(cudaMalloc((void **)&d_probe, (size_t)many * warp * 4) == cudaSuccess);
        cudaError_t e = pi_curand_device_gpu(seed, many, warp, 1, d_probe);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        cudaGetLastError();
        cudaFree(d_probe);
        ck_assert_msg(e != cudaErrorInvalidConfiguration,
                      "pi_curand_device_gpu (blocks = %u, threads = %u) returned %s: a launch of %u blocks of %u threads is valid\n"
                      "  likely mistake: the launch shape: the grid and the block are swapped, <<<threads, blocks>>>: the block size "
                      "must be `threads`; launch pi_device_kernel<<<blocks, threads>>> (the grid first, then the threads per block)",
                      many, warp, cudaGetErrorName(e), many, warp);
    }
    if (grid_seen == 1)
        ck_assert_msg(got_blocks == blocks && got_threads == threads,
                      "pi_curand_device_gpu (blocks = %u, threads = %u): pi_device_kernel was launched with %llu blocks of %llu "
                      "threads\n  likely mistake: the launch shape: %s; launch pi_device_kernel<<<blocks, threads>>> (the grid "
                      "first, then the threads per block)",
                      blocks, threads, got_blocks, got_threads,
                      got_blocks == threads && got_threads == blocks
                          ? "the grid and the block are swapped, <<<threads, blocks>>>: the block size must be `threads`"
                          : got_threads != threads ? "the block size must be the `threads` the caller asks for"
                                                   : "the grid must be the `blocks` the caller asks for");
    /* hits[t] += inside (trial 21, b099): the count is added to whatever d_hits held (the grader's
       0xFF poison, so each count came out one less), and the estimate check below blamed the right
       circle test. When the counts look wrong, a rerun into a zeroed d_hits tells: if every count
       moved by exactly the poison, the kernel read d_hits[t] before writing it. */
    {
        unsigned long long sum = 0;
        int over = 0;
        for (size_t t = 0; t < T; t++) sum += a[t], over |= a[t] > samples;
        if (over || fabs(4.0 * (double)sum / ((double)T * samples) - M_PI) > pi_tolerance((double)T * samples)) {
            GRADE_EXPECT_CUDA_OK(cudaMemset(d_hits, 0, T * 4), "zeroing d_hits");
            GRADE_EXPECT_CUDA_OK(pi_curand_device_gpu(seed, blocks, threads, samples, d_hits), "pi_curand_device_gpu");
            GRADE_EXPECT_CUDA_OK(cudaMemcpy(b, d_hits, T * 4, cudaMemcpyDeviceToHost), "copying the counts back");
            int by_poison = 1;
            for (size_t t = 0; t < T && by_poison; t++) by_poison = a[t] == b[t] + 0xFFFFFFFFu && b[t] <= samples;
            ck_assert_msg(!by_poison,
                          "pi_curand_device_gpu (" SEED_TEXT "): into a d_hits the grader filled with 0xFF bytes every thread's count came "
                          "out as the right count + 0xFFFFFFFF (thread 0: %u, %u when d_hits starts zeroed)\n"
                          "  likely mistake: pi_device_kernel adds its count to what d_hits[t] already held (hits[t] += inside), and "
                          "nobody zeroed d_hits: write the count, hits[t] = inside (or zero d_hits with cudaMemset(d_hits, 0, "
                          "blocks * threads * sizeof *d_hits) before the launch)",
                          SEED, a[0], b[0]);
        }
    }
    unsigned long long total = 0;
    int all_same = 1, blocks_repeat = 1, within_block_same = 1;
    for (size_t t = 0; t < T; t++) {
        ck_assert_msg(a[t] <= samples,
                      "pi_curand_device_gpu (" SEED_TEXT "): thread %zu reported %u points inside out of %u\n"
                      "  likely mistake: every thread writes its own count to d_hits[its global index], blockIdx.x * blockDim.x + threadIdx.x",
                      SEED, t, a[t], samples);
        total += a[t];
        all_same &= a[t] == a[0];
        blocks_repeat &= a[t] == a[t % threads];
        within_block_same &= a[t] == a[t - t % threads]; /* every thread of a block counted what its first did */
    }
    ck_assert_msg(!all_same,
                  "pi_curand_device_gpu (" SEED_TEXT "): all %zu threads counted the same %u points\n"
                  "  likely mistake: every thread drew the same numbers: curand_init(seed, subsequence, 0, &state) needs a different "
                  "subsequence per thread (its global index), or the threads are copies of one stream",
                  SEED, T, a[0]);
    ck_assert_msg(!blocks_repeat,
                  "pi_curand_device_gpu (" SEED_TEXT "): every block counted exactly what block 0 counted, thread by thread\n"
                  "  likely mistake: the subsequence is threadIdx.x, which repeats in every block; use the global index",
                  SEED);
    ck_assert_msg(!(threads > 1 && within_block_same),
                  "pi_curand_device_gpu (" SEED_TEXT "): in every block all threads counted the same points, thread by thread\n"
                  "  likely mistake: the threads of a block share one subsequence (blockIdx.x, say): each thread needs its own, "
                  "curand_init(seed, blockIdx.x * blockDim.x + threadIdx.x, 0, &state)",
                  SEED);
    /* curand_init(seed, 0, t) (trial 9): the thread index as the offset, one subsequence for all, so
       thread t + k draws thread t's numbers shifted by k, and their counts differ by a point at most */
    for (unsigned k = 1; k <= 2; k++) {
        int near = 1;
        for (size_t t = 0; t + k < T && near; t++) near = a[t] <= a[t + k] + 1 && a[t + k] <= a[t] + 1;
        ck_assert_msg(!near,
                      "pi_curand_device_gpu (" SEED_TEXT "): every thread t + %u counted within one point of thread t, for all %zu "
                      "threads: their numbers are one stream, each thread's shifted a little from its neighbour's\n"
                      "  likely mistake: the thread index was passed as curand_init's offset (the third argument), "
                      "curand_init(seed, 0, t, &state): every thread then draws the one subsequence 0, started t numbers later. "
                      "The index is the subsequence, the second argument: curand_init(seed, t, 0, &state)",
                      SEED, k, T);
    }
    double n = (double)T * samples, est = 4.0 * (double)total / n;
    ck_assert_msg(fabs(est - M_PI) <= pi_tolerance(n),
                  "pi_curand_device_gpu (" SEED_TEXT "): estimated pi = %.6f from %zu threads x %u points, more than six standard "
                  "deviations (%.4f) from %.6f\n  likely mistake: x and y are two curand_uniform draws; a point is inside when x * x + y * y <= 1",
                  SEED, est, T, samples, pi_tolerance(n), M_PI);
    device_api_hits(seed, blocks, threads, samples, d_hits, b);
    ck_assert_msg(memcmp(a, b, T * 4) == 0,
                  "pi_curand_device_gpu (" SEED_TEXT "): two runs with the same seed gave different counts\n"
                  "  likely mistake: the state must come from curand_init(seed, global index, 0, &state) alone (no clock, no uninitialised state)",
                  SEED);
    device_api_hits(seed + 1, blocks, threads, samples, d_hits, c);
    /* seed + t as each thread's seed (trial 8, a027): thread t - 1 of the run with seed + 1 then draws
       what thread t drew with seed, and counts the same */
    int shifted = 1;
    for (size_t t = 1; t < T && shifted; t++) shifted = c[t - 1] == a[t];
    ck_assert_msg(!shifted,
                  "pi_curand_device_gpu (" SEED_TEXT "): with seed %llu, thread t - 1 counted what thread t counted with seed %llu, for "
                  "every t: each thread drew from seed + its index\n"
                  "  likely mistake: a seed per thread, curand_init(seed + t, 0, 0, &state): seeds next to each other give no promise of "
                  "independent numbers, and runs with nearby seeds share threads' streams. One seed for all, the thread's index as the "
                  "subsequence: curand_init(seed, t, 0, &state)",
                  SEED, seed + 1, seed);
    ck_assert_msg(memcmp(a, c, T * 4) != 0,
                  "pi_curand_device_gpu (" SEED_TEXT "): seeds %llu and %llu gave the same counts in every thread\n"
                  "  likely mistake: the seed is not used: curand_init's first argument is the seed, the second the subsequence (the thread)",
                  SEED, seed, seed + 1);
    cudaFree(d_hits);
    free(a), free(b), free(c);
}
END_TEST

/* libraries.h: pi_curand_device_gpu "does not wait" -- the caller decides when (trial 21, b116: a
   cudaDeviceSynchronize after the launch, the counts right). The simulator's timeline records the
   host waits inside the call (calls/13-libraries.c, pi_device_watched); a GPU records none. */
unsigned long long l13_pi_device_waited(void);
START_TEST(test_device_api_does_not_wait) {
    if (!ON_SIM) return;
    const unsigned blocks = 2, threads = 32, samples = 4;
    unsigned *d_hits;
    ck_assert(cudaMalloc((void **)&d_hits, blocks * threads * 4) == cudaSuccess);
    cudaError_t e = pi_curand_device_gpu(grade_seed(), blocks, threads, samples, d_hits);
    unsigned long long waited = l13_pi_device_waited();
    cudaDeviceSynchronize();
    cudaFree(d_hits);
    GRADE_EXPECT_CUDA_OK(e, "pi_curand_device_gpu");
    ck_assert_msg(!waited,
                  "pi_curand_device_gpu (blocks = %u, threads = %u): the host waited for the device inside the call\n"
                  "  likely mistake: pi_curand_device_gpu waits: libraries.h says \"does not wait\". Return cudaGetLastError() "
                  "after the launch and let the caller decide when to wait: remove the cudaDeviceSynchronize()",
                  blocks, threads);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"13.1", test_inverse_f32_is_an_inverse_at_every_size, N_INV_SIZES},
        {"13.1", test_inverse_f64_is_an_inverse_at_every_size, N_INV_SIZES},
        {"13.1", test_inverse_reports_a_singular_matrix, 6},
        {"13.2", test_batched_products_match_cpu_in_fp32_and_tf32, N_BSHAPES},
        {"13.2", test_batched_matmul_returns_a_refused_math_mode, 1},
        {"13.2", test_batched_matmul_is_one_strided_batched_call, 1},
        {"13.3", test_thrust_cdf_matches_cpu_at_every_size, N_SORT_SIZES},
        {"13.3", test_cub_sort_pairs_is_exact_and_stable, N_CUB_SIZES},
        {"13.4", test_host_api_estimate_is_close_continues_and_reproduces, 2},
#if ON_SIM
        {"13.4", test_host_api_adds_one_atomic_per_warp, 1, .profiled = 1},
#endif
        {"13.4", test_device_api_estimate_is_close_independent_and_reproducible, 1},
        {"13.4", test_device_api_does_not_wait, 1},
    };
    return grade_suite("13-libraries", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("13", kExercises, N_EXERCISES, build_suite); }
