/**
 * @file test_12_python.c
 * @brief Grader for lesson 12: the student's Python (cudalib.py, numba_kernels.py,
 *        cupy_kernels.py, pycuda_kernels.py, torch_ext.py), run by the runner's own Python process on seeded inputs, against the
 *        CPU references: values, the kernels launched, device memory left behind, and the clear
 *        exceptions a wrong dtype, a non-contiguous array or mismatched shapes must raise.
 *
 * The judge stays C: it makes the inputs, poisons the outputs and compares. The runner passes each
 * request to tests/calls/12-python.py (calls/12-python.h), which calls the student's function and
 * writes back the array it returned. An exercise whose package (NumPy, Numba, CuPy) is not usable
 * on this machine is marked as not checked here, never as failed; 12.4 to 12.7 need a GPU.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grade.h"
#include "judge.h"
#include "pykernels.h"
#include "calls/12-python.h"

static const GradeExercise kExercises[] = {
    {"12.1", 3, "cudalib.vector_add: NumPy arrays through ctypes to vector_add_gpu; wrong dtype, layout or shape refused; nothing leaked", 0,
     NULL},
    {"12.2", 3, "cudalib.matmul: 2-D arrays to matmul_tiled_gpu; a transposed view refused", 0, NULL},
    {"12.3", 2, "numba_kernels: @cuda.jit vector add and grayscale (Numba's own simulator without a GPU)", 0, NULL},
    {"12.4", 3, "cupy_kernels: pykernels.cu through RawModule on CuPy arrays; a stream waited for before asnumpy", 1, NULL},
    {"12.5", 2, "cupy_kernels: zero-copy: CuPy, PyTorch and Numba device arrays to the C library and to each other", 1, NULL},
    {"12.6", 3, "pycuda_kernels: pykernels.cu through SourceModule, gpuarray and driver.In/Out, a stream, driver.Event, nothing leaked "
                "(PyCUDA drives a real GPU through the CUDA driver API, which the simulator does not have)", 1, NULL},
    {"12.7", 3, "torch_ext: vector add and tiled matmul as PyTorch operators (load_inline): checked inputs, the current stream, "
                "autograd (needs PyTorch built with CUDA, and a GPU)", 1, NULL},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* ---------------------------------------------------------------------------------------------- */
/* One request to the runner's Python, and its reply.                                             */

typedef struct {
    char status[16];   /* ok, raise, missing, died, error */
    char launches[512];
    long leaked;       /* device allocations left behind, -1 unknown */
    char info[512];    /* what was returned: type=..., dtype=..., shape=..., written=1, ... */
    char message[PY12_REPLY_BYTES];
} Reply;

static void field(char **p, char *out, size_t size) {
    char *tab = *p ? strchr(*p, '\t') : NULL;
    if (tab) *tab = '\0';
    snprintf(out, size, "%s", *p ? *p : "");
    *p = tab ? tab + 1 : NULL;
}

/* What the Python printed during the call (a traceback, the simulator's message), for the failure. */
static const char *printed(void) {
    static char buf[3000];
    judge_last_call_output(buf, sizeof buf);
    return buf;
}

/* Runs one request; returns 1 when the reply is there to check, 0 when the exercise waits for a
   package this machine lacks (noted: no points, not a failure). Fails the test when Python could
   not be started or ended during the call. */
/* The packages an exercise may wait for, by the key the runner's Python names (its reply's info
   "needs=KEY"). The names and commands are the judge's own: the runner only picks a row. */
static const struct {
    const char *key, *package, *install;
} kPackages[] = {
    {"numpy", "NumPy", "sudo apt-get install python3-numpy"},
    {"numba", "Numba", "sudo apt-get install python3-numba"},
    {"numpy-venv", "NumPy in build/venv", "make python-env"},
    {"numba-venv", "Numba in build/venv", "make python-env"},
    {"numba-broken", "a Numba that runs kernels with this NumPy", "make python-env"},
};

/* Notes the current exercise as waiting: for a package of the table when the reply names one. */
static void note_missing(const Reply *r) {
    char why[1200];
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, r->message); /* a long reply is cut */
    const char *key = !strncmp(r->info, "needs=", 6) ? r->info + 6 : "";
    for (size_t k = 0; k < sizeof kPackages / sizeof kPackages[0]; k++)
        if (!strcmp(key, kPackages[k].key)) {
            grade_note_missing_package(kPackages[k].package, kPackages[k].install, why);
            return;
        }
    char text[1300];
    snprintf(text, sizeof text, "waiting: %s", why);
    grade_note_unchecked(text);
}

static int ask_optional(const char *what, const char *request, void *blob, size_t bytes, Reply *r, int optional) {
    char raw[PY12_REPLY_BYTES];
    memset(raw, 0, sizeof raw);
    memset(r, 0, sizeof *r);
    int rc = py12_call(request, blob, bytes, raw, sizeof raw);
    raw[sizeof raw - 1] = '\0';
    char *p = raw, leaked[32];
    field(&p, r->status, sizeof r->status);
    field(&p, r->launches, sizeof r->launches);
    field(&p, leaked, sizeof leaked);
    field(&p, r->info, sizeof r->info);
    field(&p, r->message, sizeof r->message);
    r->leaked = strtol(leaked, NULL, 10);
    if (rc == 2 || !strcmp(r->status, "error"))
        ck_abort_msg("%s: the grader could not start Python in the runner: %s%s", what, r->message, printed());
    if (rc == 1 || !strcmp(r->status, "died"))
        ck_abort_msg("%s: %s during the call, so no Python exception could say why. What it printed:%s\n  (a host pointer passed where a "
                     "device pointer belongs ends it like this on the simulator; on a GPU, look for an illegal address)",
                     what, r->message, printed());
    if (!strcmp(r->status, "missing")) {
        /* an optional library (PyTorch, Numba in 12.5) missing does not hold the exercise back */
        if (!optional) note_missing(r);
        return 0;
    }
    return 1;
}

static int ask(const char *what, const char *request, void *blob, size_t bytes, Reply *r) { return ask_optional(what, request, blob, bytes, r, 0); }

/* How many launches of `kernel` the call made (from the reply). On the simulator the launches of
   libpykernels.so (12.1, 12.2) are the grader's hook's, counted outside Python's reach
   (calls/12-python.h), as "kernel:launches:threads"; Numba's (12.3) are counted by the driver. */
static long launches_of(const Reply *r, const char *kernel) {
    const char *s = strstr(r->launches, kernel);
    if (!s) return 0;
    const char *colon = strchr(s, ':');
    return colon ? strtol(colon + 1, NULL, 10) : 0;
}

/* The threads those launches had in all, or -1 when the reply does not say. */
static long long threads_of(const Reply *r, const char *kernel) {
    const char *s = strstr(r->launches, kernel);
    const char *colon = s ? strchr(s, ':') : NULL;
    const char *second = colon ? strchr(colon + 1, ':') : NULL;
    const char *comma = colon ? strchr(colon + 1, ',') : NULL;
    if (!second || (comma && comma < second)) return -1;
    return strtoll(second + 1, NULL, 10);
}

/* On the simulator, a call through libpykernels.so: its kernel must have run at least one thread
   per element of the result (a launch of one thread beside NumPy's work on the host does not count). */
static void expect_threads(const char *what, const Reply *r, const char *kernel, long long at_least) {
    if (!ON_SIM) return;
    long long t = threads_of(r, kernel);
    ck_assert_msg(t >= at_least,
                  "%s: `%s` ran %lld thread(s) in all, fewer than the %lld elements of the result: the work must be done by the kernel, "
                  "one thread per element (a small launch beside NumPy's work on the host does not count)%s",
                  what, kernel, t < 0 ? 0 : t, at_least, t < 0 ? " (the grader's launch count did not say how many threads ran)" : "");
}

/* The call must have returned an array of the expected type and size, made by `kernel`, leaving
   no device memory behind; then its values are compared. */
static void expect_array(const char *what, const Reply *r, const char *want_type, const char *kernel, const char *call_hint) {
    if (!strcmp(r->status, "raise"))
        ck_abort_msg("%s raised %s\n  on valid inputs it must return the result%s. The traceback:%s", what, r->message,
                     !strncmp(r->message, "IndexError", 10) ? " (an index outside an array: the threads of the last blocks that fall "
                                                              "beyond the data need the bounds guard)"
                     : !strncmp(r->message, "CudaError", 9) ? " (a CUDA call failed: its error names the call)"
                     : strstr(r->message, "cuLaunchKernel failed")
                         ? " (the driver refused the launch: a grid of 0 blocks? n // block is 0 when n < block: round the grid up, "
                           "(n + block - 1) // block blocks)"
                         : "",
                     printed());
    ck_assert_msg(strstr(r->info, "written=1") != NULL,
                  "%s returned %s, not %s\n  return the result as an array of the inputs' type and of the result's size%s", what,
                  r->info, want_type, printed());
    if (kernel)
        ck_assert_msg(launches_of(r, kernel) > 0,
                      "%s returned the right type of array, but `%s` was never launched: the work must be done on the device, by %s "
                      "(NumPy's own a + b or a @ b on the host does not count)",
                      what, kernel, call_hint);
    ck_assert_msg(r->leaked <= 0,
                  "%s left %ld device allocation(s) behind: every cudaMalloc needs its cudaFree, also when a later call fails (free "
                  "in a `finally:` block)",
                  what, r->leaked);
}

/* The call must have raised `exc` (TypeError or ValueError) and left nothing allocated. `form` says
   what the input was, `why` what goes wrong when such an input reaches the kernel. A call that
   returned instead gets `accepted` (with whether its values were right). */
static void expect_refusal(const char *what, const Reply *r, const char *exc, const char *form, const char *why) {
    size_t k = strlen(exc);
    if (!strcmp(r->status, "ok"))
        ck_abort_msg("%s accepted %s instead of raising %s (it returned %s)\n  why it must refuse: %s", what, form, exc, r->info, why);
    ck_assert_msg(!strncmp(r->message, exc, k) && r->message[k] == ':',
                  "%s, given %s, raised %s; it should raise %s\n  why: %s%s", what, form, r->message, exc, why, printed());
    ck_assert_msg(r->leaked <= 0,
                  "%s raised %s for %s, as it should, but left %ld device allocation(s) behind: check the inputs before allocating, "
                  "and free in a `finally:` block",
                  what, exc, form, r->leaked);
}

static float *blob_floats(size_t n) { return grade_alloc((n ? n : 1) * sizeof(float) + 64); }

/* ---------------------------------------------------------------------------------------------- */
/* 12.1 vector_add                                                                                 */

static const size_t kVecSizes[] = {1, 255, 256, 257, 4099, 100003};
#define N_VEC (int)(sizeof kVecSizes / sizeof kVecSizes[0])

/* a, b seeded; c poisoned. Returns the blob: a | b | c. */
static float *vec_blob(size_t n, uint64_t seed) {
    float *blob = blob_floats(3 * n);
    grade_fill_floats(blob, n, seed, -100.0f, 100.0f);
    grade_fill_floats(blob + n, n, seed + 1, -100.0f, 100.0f);
    grade_poison_floats(blob + 2 * n, n);
    return blob;
}

/* op: vector_add (12.1), numba_vector_add (12.3), cupy_vector_add (12.4), zero_copy (12.5). */
/* Gives the leak check of a call its own words (PyCUDA's allocations), or NULL. */
typedef void (*LeakCheck)(const char *what, const Reply *r);

static int check_vector_seeded(const char *op, const char *extra, size_t n, unsigned block, const char *kernel, const char *hint,
                               uint64_t seed_offset, LeakCheck leak) {
    uint64_t seed = grade_seed() + 1200 + n + seed_offset;
    float *blob = vec_blob(n, seed);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    char req[256], what[256];
    snprintf(req, sizeof req, "%s n=%zu block=%u %s", op, n, block, extra);
    snprintf(what, sizeof what, "%s(n = %zu, block = %u%s%s)", op, n, block, extra[0] ? ", " : "", extra);
    Reply r;
    int go = ask(what, req, blob, 3 * n * sizeof(float), &r);
    if (go) {
        if (leak && strcmp(r.status, "raise")) leak(what, &r);
        expect_array(what, &r, "a float32 array of n elements", kernel, hint);
        if (!strcmp(op, "vector_add")) expect_threads(what, &r, kernel, (long long)n);
        GradeCompare cmp = {.what = "c = a + b", .n = n, .block = block, .atol = 0.0, .rtol = 0.0};
        GRADE_EXPECT_FLOATS(blob + 2 * n, want, &cmp);
    }
    free(blob);
    free(want);
    return go;
}

static int check_vector(const char *op, const char *extra, size_t n, unsigned block, const char *kernel, const char *hint) {
    return check_vector_seeded(op, extra, n, block, kernel, hint, 0, NULL);
}

START_TEST(test_vector_add_matches_the_cpu_at_every_size) {
    check_vector("vector_add", "", kVecSizes[_i], _i % 2 ? 96 : 256, "vector_add_kernel", "lib.vector_add_gpu");
}
END_TEST

static void refuse_vector(const char *form, size_t n, const char *exc, const char *shown, const char *why) {
    float *blob = vec_blob(n, grade_seed() + 1290);
    char req[128], what[160];
    snprintf(req, sizeof req, "vector_add n=%zu block=256 form=%s", n, form);
    snprintf(what, sizeof what, "vector_add(a, b) with %s", shown);
    Reply r;
    if (ask(what, req, blob, 3 * n * sizeof(float), &r)) expect_refusal("vector_add", &r, exc, shown, why);
    free(blob);
}

START_TEST(test_vector_add_refuses_wrong_dtypes_layouts_and_shapes) {
    refuse_vector("float64", 1000, "TypeError", "a float64 array",
                  "the kernel reads float32: float64 bytes read four at a time are garbage, and n floats are only half the array. "
                  "Check a.dtype == np.float32 (no silent conversion: a copy the caller did not ask for)");
    refuse_vector("int32", 1000, "TypeError", "an int32 array", "int32 bits read as float32 are other numbers altogether");
    refuse_vector("list", 10, "TypeError", "a Python list", "a list has no .ctypes.data: there is no buffer to copy");
    refuse_vector("strided", 1000, "ValueError", "a non-contiguous array (a[::2] of a longer array)",
                  "its elements are 8 bytes apart, but cudaMemcpy copies n * 4 consecutive bytes from its first address: half of them "
                  "are the elements in between. Check a.flags['C_CONTIGUOUS']");
    refuse_vector("mismatch", 1000, "ValueError", "b one element shorter than a",
                  "the kernel reads n elements of both: past the end of the shorter one");
    refuse_vector("twod", 1000, "ValueError", "2-D arrays (2 x 500)", "vector_add is defined on 1-D arrays; say so rather than guess");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.2 matmul                                                                                     */

typedef struct {
    int M, K, N;
} Dims;
static const Dims kMatSizes[] = {{1, 1, 1}, {17, 5, 33}, {16, 16, 16}, {33, 64, 17}, {5, 0, 7}, {70, 37, 100}};
#define N_MAT (int)(sizeof kMatSizes / sizeof kMatSizes[0])

static float *mat_blob(Dims d, uint64_t seed) {
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    float *blob = blob_floats(mk + kn + mn);
    grade_fill_floats(blob, mk, seed, -1.0f, 1.0f);
    grade_fill_floats(blob + mk, kn, seed + 1, -1.0f, 1.0f);
    grade_poison_floats(blob + mk + kn, mn);
    return blob;
}

static int check_matmul_seeded(const char *op, Dims d, const char *kernel, const char *hint, uint64_t seed_offset, LeakCheck leak) {
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    float *blob = mat_blob(d, grade_seed() + 1220 + (uint64_t)d.M * 7 + d.N + seed_offset);
    float *want = blob_floats(mn);
    matmul_cpu(blob, blob + mk, want, d.M, d.K, d.N);
    char req[128], what[160];
    snprintf(req, sizeof req, "%s M=%d K=%d N=%d", op, d.M, d.K, d.N);
    snprintf(what, sizeof what, "%s(A %d x %d, B %d x %d)", op, d.M, d.K, d.K, d.N);
    Reply r;
    int go = ask(what, req, blob, (mk + kn + mn) * sizeof(float), &r);
    if (go) {
        if (leak && strcmp(r.status, "raise")) leak(what, &r);
        expect_array(what, &r, "an M x N float32 array", kernel, hint);
        if (!strcmp(op, "matmul")) expect_threads(what, &r, kernel, (long long)mn);
        /* each product is below 1 in magnitude: float32 sums of K of them stay within a few K ulps */
        GradeCompare cmp = {.what = "C = A B", .n = mn, .width = (size_t)d.N, .atol = 8.0 * (d.K > 0 ? d.K : 1) * FLT_EPSILON,
                            .rtol = 4.0 * FLT_EPSILON};
        GRADE_EXPECT_FLOATS(blob + mk + kn, want, &cmp);
    }
    free(blob);
    free(want);
    return go;
}

static int check_matmul(const char *op, Dims d, const char *kernel, const char *hint) { return check_matmul_seeded(op, d, kernel, hint, 0, NULL); }

START_TEST(test_matmul_matches_the_cpu_at_every_size) {
    check_matmul("matmul", kMatSizes[_i], "matmul_naive_kernel", "lib.matmul_tiled_gpu");
}
END_TEST

static void refuse_matmul(const char *form, Dims d, const char *exc, const char *shown, const char *why) {
    size_t total = (size_t)d.M * d.K + (size_t)d.K * d.N + (size_t)d.M * d.N;
    float *blob = mat_blob(d, grade_seed() + 1295);
    char req[128], what[160];
    snprintf(req, sizeof req, "matmul M=%d K=%d N=%d form=%s", d.M, d.K, d.N, form);
    snprintf(what, sizeof what, "matmul(A, B) with %s", shown);
    Reply r;
    if (ask(what, req, blob, total * sizeof(float), &r)) expect_refusal("matmul", &r, exc, shown, why);
    free(blob);
}

START_TEST(test_matmul_refuses_transposed_views_wrong_dtypes_and_shapes) {
    Dims d = {24, 40, 32};
    refuse_matmul("transposed", d, "ValueError", "a non-contiguous array (B given as b.T, the transpose of a row-major N x K array)",
                  "B.T is a view: its memory is still the N x K array, row by row, so the kernel, reading K x N row-major, gets the "
                  "wrong element almost everywhere. Check B.flags['C_CONTIGUOUS'] (np.ascontiguousarray makes a row-major copy)");
    refuse_matmul("float64", d, "TypeError", "float64 matrices", "the kernel reads float32");
    refuse_matmul("mismatch", d, "ValueError", "B with one row fewer than A has columns",
                  "A's K columns must meet B's K rows: the kernel would read past the end of B");
    refuse_matmul("onedim", d, "ValueError", "a 1-D A", "a matrix has two dimensions: (M, K)");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.3 Numba                                                                                      */

/* Numba's simulator runs one Python thread per CUDA thread (a few thousand a second): small
   inputs and blocks there, real ones on a GPU. */
static const size_t kNumbaSizesSim[] = {1, 33, 300}, kNumbaSizesGpu[] = {1, 257, 100003};

START_TEST(test_numba_vector_add_matches_the_cpu) {
    size_t n = ON_SIM ? kNumbaSizesSim[_i] : kNumbaSizesGpu[_i];
    check_vector("numba_vector_add", "", n, ON_SIM ? 32 : 128, "vector_add_kernel", "vector_add_kernel[grid, block](...)");
}
END_TEST

static const Dims kGraySim[] = {{1, 1, 0}, {7, 5, 0}, {19, 11, 0}}, kGrayGpu[] = {{1, 1, 0}, {17, 9, 0}, {640, 481, 0}};

START_TEST(test_numba_grayscale_matches_the_cpu) {
    Dims d = ON_SIM ? kGraySim[_i] : kGrayGpu[_i]; /* M: width, K: height */
    int w = d.M, h = d.K, bx = ON_SIM ? 8 : 16, by = ON_SIM ? 4 : 16;
    size_t px = (size_t)w * h;
    unsigned char *blob = grade_alloc(4 * px + 64), *want = grade_alloc(px + 1);
    grade_fill_bytes(blob, 3 * px, grade_seed() + 1230 + px);
    memset(blob + 3 * px, 0xA5, px); /* poison */
    grayscale_cpu(blob, want, w, h);
    char req[128], what[160];
    snprintf(req, sizeof req, "numba_grayscale w=%d h=%d bx=%d by=%d", w, h, bx, by);
    snprintf(what, sizeof what, "grayscale_numba(a %d x %d image, block (%d, %d))", w, h, bx, by);
    Reply r;
    if (ask(what, req, blob, 4 * px, &r)) {
        expect_array(what, &r, "a height x width uint8 array", "grayscale_kernel", "grayscale_kernel[grid, block](...)");
        GradeCompare cmp = {.what = "gray = (299 r + 587 g + 114 b + 500) / 1000", .n = px, .width = (size_t)w, .block = (unsigned)bx,
                            .block_y = (unsigned)by};
        GRADE_EXPECT_BYTES(blob + 3 * px, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.4 CuPy (a GPU)                                                                               */

/* at most a few MiB: arrays travel through a file in the runner's folder, which may hold 16 MiB (2^22 floats
   went over it on the H200: SIGXFSZ) */
static const size_t kCupySizes[] = {1, 257, 100003, ((size_t)1 << 20) + 7};

START_TEST(test_cupy_vector_add_matches_the_cpu) {
    check_vector("cupy_vector_add", "", kCupySizes[_i], 256, "vector_add_kernel", "the RawModule's vector_add_kernel");
}
END_TEST

START_TEST(test_cupy_matmul_matches_the_cpu) {
    check_matmul("cupy_matmul", kMatSizes[_i], "matmul_naive_kernel", "the RawModule's matmul_naive_kernel");
}
END_TEST

START_TEST(test_cupy_vector_add_refuses_host_arrays) {
    size_t n = 1000;
    float *blob = vec_blob(n, grade_seed() + 1240);
    Reply r;
    if (ask("vector_add_cupy(NumPy arrays)", "cupy_vector_add n=1000 block=256 form=numpy", blob, 3 * n * sizeof(float), &r))
        expect_refusal("vector_add_cupy", &r, "TypeError", "NumPy (host) arrays",
                       "a NumPy array's memory is on the host: a kernel given its address reads host memory it cannot reach (an illegal "
                       "address). cp.asarray(x) copies it to the device");
    free(blob);
}
END_TEST

START_TEST(test_cupy_stream_result_is_waited_for) {
    size_t n = (size_t)1 << 20;
    float *blob = vec_blob(n, grade_seed() + 1250);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    Reply r;
    if (ask("vector_add_on_stream(a busy non-blocking stream)", "cupy_stream n=1048576 delay_ms=200", blob, 3 * n * sizeof(float), &r)) {
        expect_array("vector_add_on_stream", &r, "a float32 NumPy array of n elements", "vector_add_kernel", "the RawModule's kernel");
        char *diag = grade_diff_floats(blob + 2 * n, want, &(GradeCompare){.what = "out = a + b, copied to the host", .n = n});
        if (diag) {
            free(diag);
            ck_abort_msg("vector_add_on_stream returned values its kernel had not written yet (the stream was still busy with earlier "
                         "work): the copy to the host ran on another stream than the kernel. cp.asnumpy(x) copies on the current "
                         "stream; a non-blocking stream does not wait for it, nor it for the stream. Call stream.synchronize() before "
                         "the copy, or copy on the stream: out.get(stream=stream), then stream.synchronize()");
        }
    }
    free(blob);
    free(want);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.5 zero-copy (a GPU)                                                                          */

static const char *kKinds[] = {"cupy", "torch", "numba"};

START_TEST(test_zero_copy_on_each_library_s_device_arrays) {
    size_t n = 100003;
    float *blob = vec_blob(n, grade_seed() + 1260 + (uint64_t)_i);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    char req[128], what[128];
    snprintf(req, sizeof req, "zero_copy n=%zu kind=%s", n, kKinds[_i]);
    snprintf(what, sizeof what, "vector_add_zero_copy(%s device arrays)", kKinds[_i]);
    Reply r;
    if (ask_optional(what, req, blob, 3 * n * sizeof(float), &r, _i > 0)) {
        expect_array(what, &r, "the output array filled in place", "vector_add_kernel", "lib.vector_add_gpu on the arrays' own pointers");
        ck_assert_msg(strstr(r.info, "pointer_ok=1") != NULL,
                      "device_pointer(x) of a %s array is not the array's own device address (%s): read it from "
                      "x.__cuda_array_interface__['data'][0]",
                      kKinds[_i], r.info);
        GradeCompare cmp = {.what = "c = a + b, in place", .n = n, .atol = 0.0, .rtol = 0.0};
        GRADE_EXPECT_FLOATS(blob + 2 * n, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

START_TEST(test_zero_copy_refuses_host_arrays) {
    size_t n = 1000;
    float *blob = vec_blob(n, grade_seed() + 1270);
    Reply r;
    if (ask("vector_add_zero_copy(NumPy arrays)", "zero_copy n=1000 kind=numpy", blob, 3 * n * sizeof(float), &r))
        expect_refusal("vector_add_zero_copy", &r, "TypeError", "NumPy (host) arrays",
                       "a NumPy array has no __cuda_array_interface__: its address (__array_interface__) is a host address, and a "
                       "kernel given it reads memory the GPU cannot reach");
    free(blob);
}
END_TEST

START_TEST(test_dlpack_shares_memory_both_ways) {
    size_t n = 4099;
    float *blob = blob_floats(2 * n);
    grade_fill_floats(blob, n, grade_seed() + 1280, -10.0f, 10.0f);
    grade_poison_floats(blob + n, n);
    float *want = blob_floats(n);
    for (size_t i = 0; i < n; i++) want[i] = 2.0f * blob[i];
    Reply r;
    /* PyTorch is optional: without it there is nothing to exchange with */
    if (ask_optional("torch_from_cupy / cupy_from_torch", "dlpack n=4099", blob, 2 * n * sizeof(float), &r, 1)) {
        expect_array("torch_from_cupy", &r, "the CuPy array's values", NULL, NULL);
        ck_assert_msg(strstr(r.info, "torch_same=1") && strstr(r.info, "cupy_same=1"),
                      "the DLPack exchange copied the data (%s): torch.from_dlpack(x) and cp.from_dlpack(t) share the memory; "
                      "torch.tensor(x) or cp.asarray(t.cpu()) make copies",
                      r.info);
        GradeCompare cmp = {.what = "x after t.mul_(2) through the shared memory", .n = n};
        GRADE_EXPECT_FLOATS(blob + n, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.6 PyCUDA (a GPU)                                                                             */

/* The allocations PyCUDA made during a call (the driver's counting mem_alloc, calls/12-python.py)
   that are still alive once it returned, its result dropped and the garbage collected. */
static void expect_no_pycuda_leak(const char *what, const Reply *r) {
    ck_assert_msg(r->leaked <= 0,
                  "%s left %ld device allocation(s) alive after it returned (its result dropped, gc.collect() run): PyCUDA frees a "
                  "buffer when the last reference to it goes, so a reference kept past the call -- in a module-level list, dict or "
                  "cache, \"so that the kernel can still read it\" -- holds its device memory for as long as the process lives. "
                  "Keep nothing but the result (a launch's arguments stay alive until it is queued; the stream orders the rest)",
                  what, r->leaked);
}

static const size_t kPycudaSizes[] = {1, 255, 257, 100003, ((size_t)1 << 20) + 7};
#define N_PYCUDA (int)(sizeof kPycudaSizes / sizeof kPycudaSizes[0])

START_TEST(test_pycuda_gpuarray_vector_add_matches_the_cpu) {
    check_vector_seeded("pycuda_vector_add", "", kPycudaSizes[_i], _i % 2 ? 96 : 256, "vector_add_kernel",
                        "the SourceModule's vector_add_kernel(..., block=, grid=)", 7001, expect_no_pycuda_leak);
}
END_TEST

START_TEST(test_pycuda_in_out_vector_add_matches_the_cpu) {
    check_vector_seeded("pycuda_in_out", "", kPycudaSizes[_i], _i % 2 ? 256 : 96, "vector_add_kernel",
                        "vector_add_kernel(cuda.In(a), cuda.In(b), cuda.Out(c), ...)", 7103, expect_no_pycuda_leak);
}
END_TEST

START_TEST(test_pycuda_matmul_matches_the_cpu) {
    check_matmul_seeded("pycuda_matmul", kMatSizes[_i], "matmul_naive_kernel", "the SourceModule's matmul_naive_kernel", 7207,
                        expect_no_pycuda_leak);
}
END_TEST

static void refuse_op(const char *op, const char *fn, const char *form, size_t n, const char *exc, const char *shown, const char *why) {
    float *blob = vec_blob(n, grade_seed() + 1291);
    char req[160], what[200];
    snprintf(req, sizeof req, "%s n=%zu block=256 form=%s", op, n, form);
    snprintf(what, sizeof what, "%s(a, b) with %s", fn, shown);
    Reply r;
    if (ask(what, req, blob, 3 * n * sizeof(float), &r)) expect_refusal(fn, &r, exc, shown, why);
    free(blob);
}

START_TEST(test_pycuda_refuses_what_the_kernel_cannot_read) {
    refuse_op("pycuda_vector_add", "vector_add_gpuarray", "numpy", 1000, "TypeError", "NumPy (host) arrays",
              "a NumPy array's memory is on the host, and PyCUDA would hand the kernel a host address. gpuarray.to_gpu(x) copies it "
              "to the device (or use cuda.In(x), as vector_add_in_out does)");
    refuse_op("pycuda_in_out", "vector_add_in_out", "float64", 1000, "TypeError", "a float64 array",
              "the kernel reads float32: cuda.In copies the float64 bytes as they are, and the kernel reads them four at a time");
    refuse_op("pycuda_in_out", "vector_add_in_out", "strided", 1000, "ValueError", "a non-contiguous array (a[::2] of a longer array)",
              "cuda.In copies a.nbytes consecutive bytes from a's address: for a[::2] half of them are the elements in between");
    refuse_op("pycuda_in_out", "vector_add_in_out", "mismatch", 1000, "ValueError", "b one element shorter than a",
              "the kernel reads n elements of both: past the end of the shorter one");
}
END_TEST

START_TEST(test_pycuda_stream_result_is_waited_for) {
    size_t n = (size_t)1 << 20;
    float *blob = vec_blob(n, grade_seed() + 1651);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    Reply r;
    if (ask("vector_add_on_stream(a busy non-blocking driver.Stream)", "pycuda_stream n=1048576 delay_ms=200", blob, 3 * n * sizeof(float),
            &r)) {
        expect_array("vector_add_on_stream", &r, "a float32 NumPy array of n elements", "vector_add_kernel", "the SourceModule's kernel");
        char *diag = grade_diff_floats(blob + 2 * n, want, &(GradeCompare){.what = "out = a + b, copied to the host", .n = n});
        if (diag) {
            free(diag);
            ck_abort_msg("vector_add_on_stream returned values its kernel had not written yet (the stream was still busy with earlier "
                         "work): out.get() copies with a synchronous cuMemcpyDtoH on the legacy default stream, which does not wait "
                         "for a non-blocking stream. Call stream.synchronize() before out.get(), or copy on the stream "
                         "(out.get_async(stream), then stream.synchronize())");
        }
    }
    free(blob);
    free(want);
}
END_TEST

static double info_number(const Reply *r, const char *key) {
    const char *p = strstr(r->info, key);
    return p ? strtod(p + strlen(key), NULL) : -1.0;
}

START_TEST(test_pycuda_event_timing) {
    size_t n = 100003;
    int reps = 20;
    float *blob = vec_blob(n, grade_seed() + 1661);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    Reply r;
    if (ask("time_vector_add(n = 100003, reps = 20)", "pycuda_time n=100003 reps=20", blob, 3 * n * sizeof(float), &r)) {
        expect_array("time_vector_add", &r, "a float (milliseconds per launch)", "vector_add_kernel", "the SourceModule's kernel");
        ck_assert_msg(launches_of(&r, "vector_add_kernel") >= reps,
                      "time_vector_add(reps = %d) launched vector_add_kernel %ld time(s): time `reps` launches between the two events "
                      "(one launch is too short to time)",
                      reps, launches_of(&r, "vector_add_kernel"));
        double ms = info_number(&r, "ms="), wall = info_number(&r, "wall_ms="), events = info_number(&r, "events=");
        ck_assert_msg(strstr(r.info, "ms=none") == NULL, "time_vector_add returned %s, not a number of milliseconds", r.info);
        ck_assert_msg(events >= 2,
                      "time_vector_add recorded %.0f driver.Event(s): time the GPU's work with two events, start.record() before the "
                      "launches and stop.record() after, then stop.synchronize() and start.time_till(stop) (a clock on the host "
                      "measures Python and the queue, not the kernels)",
                      events < 0 ? 0 : events);
        ck_assert_msg(ms > 0 && ms * reps <= wall * 1.05 + 0.5,
                      "time_vector_add says %.4g ms per launch, %.4g ms for %d launches, but the whole call took %.4g ms: return the "
                      "time between the events divided by reps (time_till gives milliseconds)",
                      ms, ms * reps, reps, wall);
        GradeCompare cmp = {.what = "c = a + b after the timed launches", .n = n};
        GRADE_EXPECT_FLOATS(blob + 2 * n, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 12.7 a PyTorch extension (a GPU)                                                                */

/* load_inline compiles with nvcc, the host compiler and ninja: tens of seconds the first time, so
   the build gets a call limit of its own (GRADE_TIMEOUT when larger), and the calls after it a
   minute (a Python restarted after a RuntimeError imports PyTorch again and finds the build done). */
static int torch_ask(const char *what, const char *request, void *blob, size_t bytes, Reply *r, long seconds) {
    char *old = getenv("GRADE_TIMEOUT") ? strdup(getenv("GRADE_TIMEOUT")) : NULL;
    long now = env_long("GRADE_TIMEOUT", 15);
    char v[32];
    snprintf(v, sizeof v, "%ld", now > seconds ? now : seconds);
    setenv("GRADE_TIMEOUT", v, 1);
    int go = ask(what, request, blob, bytes, r);
    if (old) {
        setenv("GRADE_TIMEOUT", old, 1);
        free(old);
    } else {
        unsetenv("GRADE_TIMEOUT");
    }
    return go;
}

START_TEST(test_torch_extension_builds) {
    float dummy[16];
    Reply r;
    if (torch_ask("torch_ext.build()", "torch_build", dummy, sizeof dummy, &r, 420)) {
        if (!strcmp(r.status, "raise"))
            ck_abort_msg("torch_ext.build() raised %s\n  load_inline compiles CPP_SOURCE with the host compiler and CUDA_SOURCE with "
                         "nvcc: the compiler's first error is in the message above (and in what was printed below)%s",
                         r.message, printed());
        ck_assert_msg(strstr(r.info, "functions=vector_add,matmul") != NULL,
                      "the extension torch_ext.build() made does not have both functions (%s): load_inline's functions= names the C++ "
                      "functions Python gets, vector_add and matmul",
                      r.info);
    }
}
END_TEST

static const size_t kTorchSizes[] = {1, 257, 100003, ((size_t)1 << 20) + 7};

START_TEST(test_torch_vector_add_matches_the_cpu) {
    size_t n = kTorchSizes[_i];
    float *blob = vec_blob(n, grade_seed() + 1701 + n);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    char req[128], what[128];
    snprintf(req, sizeof req, "torch_vector_add n=%zu", n);
    snprintf(what, sizeof what, "ext.vector_add(a, b) (n = %zu)", n);
    Reply r;
    if (torch_ask(what, req, blob, 3 * n * sizeof(float), &r, 60)) {
        expect_array(what, &r, "a float32 CUDA tensor of n elements", "vector_add_kernel", "vector_add_kernel<<<grid, block, 0, stream>>>");
        ck_assert_msg(strstr(r.info, "device=1") != NULL, "%s returned a tensor on the host (%s): return the CUDA tensor the kernel wrote",
                      what, r.info);
        GradeCompare cmp = {.what = "c = a + b", .n = n, .block = 256};
        GRADE_EXPECT_FLOATS(blob + 2 * n, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

START_TEST(test_torch_matmul_matches_the_cpu) {
    Dims d = kMatSizes[_i];
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    float *blob = mat_blob(d, grade_seed() + 1731 + (uint64_t)d.M * 7 + d.N);
    float *want = blob_floats(mn);
    matmul_cpu(blob, blob + mk, want, d.M, d.K, d.N);
    char req[128], what[160];
    snprintf(req, sizeof req, "torch_matmul M=%d K=%d N=%d", d.M, d.K, d.N);
    snprintf(what, sizeof what, "ext.matmul(A %d x %d, B %d x %d)", d.M, d.K, d.K, d.N);
    Reply r;
    if (torch_ask(what, req, blob, (mk + kn + mn) * sizeof(float), &r, 60)) {
        expect_array(what, &r, "an M x N float32 CUDA tensor", mn ? "matmul_tiled_kernel" : NULL, "matmul_tiled_kernel<<<grid, block, 0, stream>>>");
        GradeCompare cmp = {.what = "C = A B", .n = mn, .width = (size_t)d.N, .atol = 8.0 * (d.K > 0 ? d.K : 1) * FLT_EPSILON,
                            .rtol = 4.0 * FLT_EPSILON};
        GRADE_EXPECT_FLOATS(blob + mk + kn, want, &cmp);
    }
    free(blob);
    free(want);
}
END_TEST

/* A tensor the kernel cannot read as it is must be refused (TORCH_CHECK: RuntimeError, or
   TORCH_CHECK_TYPE / _VALUE: TypeError / ValueError) -- or, where `may_convert`, made readable
   (x.contiguous()) with the right values. `want` (n floats) are the right values, `got` the output. */
static void expect_torch_refusal(const char *what, const Reply *r, const char *shown, const char *why, int may_convert, const float *got,
                                 const float *want, size_t n, size_t width) {
    if (!strcmp(r->status, "raise")) {
        ck_assert_msg(!strncmp(r->message, "RuntimeError:", 13) || !strncmp(r->message, "TypeError:", 10) ||
                          !strncmp(r->message, "ValueError:", 11),
                      "%s, given %s, raised %s; TORCH_CHECK raises RuntimeError (TORCH_CHECK_TYPE TypeError, TORCH_CHECK_VALUE "
                      "ValueError)%s",
                      what, shown, r->message, printed());
        return;
    }
    if (may_convert && strstr(r->info, "written=1")) {
        char *diag = grade_diff_floats(got, want, &(GradeCompare){.what = "the result", .n = n, .width = width});
        if (!diag) return; /* made contiguous first: right */
        free(diag);
        ck_abort_msg("%s accepted %s and returned wrong values: %s. TORCH_CHECK(x.is_contiguous(), ...) refuses it, or x = "
                     "x.contiguous() makes a copy the kernel can read",
                     what, shown, why);
    }
    ck_abort_msg("%s accepted %s instead of refusing it (it returned %s)\n  why it must refuse: %s", what, shown, r->info, why);
}

static void refuse_torch_vector(const char *form, size_t n, const char *shown, const char *why, int may_convert) {
    float *blob = vec_blob(n, grade_seed() + 1741);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    char req[128], what[160];
    snprintf(req, sizeof req, "torch_vector_add n=%zu form=%s", n, form);
    snprintf(what, sizeof what, "ext.vector_add(a, b) with %s", shown);
    Reply r;
    if (torch_ask(what, req, blob, 3 * n * sizeof(float), &r, 60)) expect_torch_refusal(what, &r, shown, why, may_convert, blob + 2 * n, want, n, 0);
    free(blob);
    free(want);
}

static void refuse_torch_matmul(const char *form, const char *shown, const char *why, int may_convert) {
    Dims d = {24, 40, 32};
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    float *blob = mat_blob(d, grade_seed() + 1751);
    float *want = blob_floats(mn);
    matmul_cpu(blob, blob + mk, want, d.M, d.K, d.N);
    char req[128], what[160];
    snprintf(req, sizeof req, "torch_matmul M=%d K=%d N=%d form=%s", d.M, d.K, d.N, form);
    snprintf(what, sizeof what, "ext.matmul(A, B) with %s", shown);
    Reply r;
    if (torch_ask(what, req, blob, (mk + kn + mn) * sizeof(float), &r, 60)) {
        /* the product's tolerance: what a conversion must match */
        float *got = blob + mk + kn;
        int close = 1;
        for (size_t i = 0; i < mn && close; i++) close = fabsf(got[i] - want[i]) <= 8.0f * d.K * FLT_EPSILON + 4.0f * FLT_EPSILON * fabsf(want[i]);
        if (may_convert && close && strstr(r.info, "written=1")) memcpy(got, want, mn * sizeof(float));
        expect_torch_refusal(what, &r, shown, why, may_convert, got, want, mn, (size_t)d.N);
    }
    free(blob);
    free(want);
}

START_TEST(test_torch_refuses_what_the_kernel_cannot_read) {
    refuse_torch_vector("strided", 1000, "a non-contiguous tensor (a[::2] of a longer one)",
                        "the kernel reads n consecutive floats from a.data_ptr(): for a[::2] every other one is an element in between", 1);
    refuse_torch_vector("float64", 1000, "float64 tensors",
                        "the kernel reads float32: data_ptr<float>() on a float64 tensor throws, and a raw pointer to its bytes gives "
                        "garbage. TORCH_CHECK(a.scalar_type() == torch::kFloat32, ...)",
                        0);
    refuse_torch_vector("cpu", 1000, "tensors on the host (CPU)",
                        "a CPU tensor's data_ptr() is a host address: the kernel cannot read it. TORCH_CHECK(a.is_cuda(), ...)", 0);
    refuse_torch_vector("mismatch", 1000, "b one element shorter than a", "the kernel reads n elements of both: past the end of the shorter one", 0);
    refuse_torch_vector("twod", 1000, "2-D tensors (2 x 500)", "vector_add is defined on 1-D tensors; say so rather than guess", 0);
    refuse_torch_matmul("transposed", "B given as b.t() of a row-major N x K tensor (not contiguous)",
                        "B.t() is a view with strides (1, K): read as row-major K x N it gives the wrong element almost everywhere", 1);
    refuse_torch_matmul("float64", "float64 matrices", "the kernel reads float32", 0);
    refuse_torch_matmul("mismatch", "B with one row fewer than A has columns", "A's K columns must meet B's K rows: the kernel would read past "
                        "the end of B", 0);
    refuse_torch_matmul("onedim", "a 1-D A", "a matrix has two dimensions: (M, K)", 0);
}
END_TEST

START_TEST(test_torch_launches_on_the_current_stream) {
    size_t n = (size_t)1 << 20;
    float *blob = vec_blob(n, grade_seed() + 1761);
    float *want = blob_floats(n);
    vector_add_cpu(blob, blob + n, want, n);
    Reply r;
    if (torch_ask("ext.vector_add inside `with torch.cuda.stream(s)`", "torch_stream n=1048576 delay_ms=200", blob, 3 * n * sizeof(float), &r,
                  60)) {
        expect_array("ext.vector_add on a side stream", &r, "a float32 CUDA tensor", NULL, NULL);
        char *diag = grade_diff_floats(blob + 2 * n, want, &(GradeCompare){.what = "c = a + b, a written on the current stream", .n = n});
        if (diag) {
            free(diag);
            ck_abort_msg("ext.vector_add read its input before the work queued before it had written it: its kernel ran on another "
                         "stream than PyTorch's current one (here a side stream, `with torch.cuda.stream(s)`). A launch without a "
                         "stream goes to the legacy default stream, which does not wait for PyTorch's streams: launch with "
                         "<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>");
        }
    }
    free(blob);
    free(want);
}
END_TEST

START_TEST(test_torch_autograd_passes_the_gradient_to_both_inputs) {
    size_t n = 4099;
    float *blob = blob_floats(5 * n);
    grade_fill_floats(blob, 3 * n, grade_seed() + 1771, -4.0f, 4.0f);
    grade_poison_floats(blob + 3 * n, 2 * n);
    float *want = blob_floats(2 * n);
    memcpy(want, blob + 2 * n, n * sizeof(float)); /* d/da sum(c * w) = w */
    memcpy(want + n, blob + 2 * n, n * sizeof(float));
    Reply r;
    if (torch_ask("torch_ext.add(a, b), then (c * w).sum().backward()", "torch_autograd n=4099", blob, 5 * n * sizeof(float), &r, 60)) {
        if (!strcmp(r.status, "raise") && strstr(r.message, "incorrect number of gradients"))
            ck_abort_msg("VectorAdd.backward returned the wrong number of gradients (%s): backward returns one per input of forward, in "
                         "order -- here (grad_c, grad_c), since c = a + b passes dL/dc unchanged to both",
                         r.message);
        expect_array("torch_ext.add + backward()", &r, "gradients", "vector_add_kernel", "the extension's vector_add in VectorAdd.forward");
        ck_assert_msg(strstr(r.info, "forward=1") != NULL, "torch_ext.add(a, b) did not return a + b (%s)", r.info);
        ck_assert_msg(strstr(r.info, "agrad=set") && strstr(r.info, "bgrad=set"),
                      "after backward(), %s: VectorAdd.backward must return a gradient for each input of forward (%s); None means "
                      "\"no gradient\", which a + b does not have",
                      strstr(r.info, "bgrad=none") ? "b.grad is None" : "a.grad is None", r.info);
        GradeCompare ga = {.what = "a.grad = dL/dc (L = sum(c * w))", .n = n};
        GRADE_EXPECT_FLOATS(blob + 3 * n, want, &ga);
        GradeCompare gb = {.what = "b.grad = dL/dc (L = sum(c * w))", .n = n};
        GRADE_EXPECT_FLOATS(blob + 4 * n, want + n, &gb);
    }
    free(blob);
    free(want);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"12.1", test_vector_add_matches_the_cpu_at_every_size, N_VEC},
        {"12.1", test_vector_add_refuses_wrong_dtypes_layouts_and_shapes, 1},
        {"12.2", test_matmul_matches_the_cpu_at_every_size, N_MAT},
        {"12.2", test_matmul_refuses_transposed_views_wrong_dtypes_and_shapes, 1},
        {"12.3", test_numba_vector_add_matches_the_cpu, 3},
        {"12.3", test_numba_grayscale_matches_the_cpu, 3},
        {"12.4", test_cupy_vector_add_matches_the_cpu, 4},
        {"12.4", test_cupy_matmul_matches_the_cpu, N_MAT},
        {"12.4", test_cupy_vector_add_refuses_host_arrays, 1},
        {"12.4", test_cupy_stream_result_is_waited_for, 1},
        {"12.5", test_zero_copy_on_each_library_s_device_arrays, 3},
        {"12.5", test_zero_copy_refuses_host_arrays, 1},
        {"12.5", test_dlpack_shares_memory_both_ways, 1},
        {"12.6", test_pycuda_gpuarray_vector_add_matches_the_cpu, N_PYCUDA},
        {"12.6", test_pycuda_in_out_vector_add_matches_the_cpu, N_PYCUDA},
        {"12.6", test_pycuda_matmul_matches_the_cpu, N_MAT},
        {"12.6", test_pycuda_refuses_what_the_kernel_cannot_read, 1},
        {"12.6", test_pycuda_stream_result_is_waited_for, 1},
        {"12.6", test_pycuda_event_timing, 1},
        {"12.7", test_torch_extension_builds, 1},
        {"12.7", test_torch_vector_add_matches_the_cpu, 4},
        {"12.7", test_torch_matmul_matches_the_cpu, N_MAT},
        {"12.7", test_torch_refuses_what_the_kernel_cannot_read, 1},
        {"12.7", test_torch_launches_on_the_current_stream, 1},
        {"12.7", test_torch_autograd_passes_the_gradient_to_both_inputs, 1},
    };
    return grade_suite("12-python", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("12", kExercises, N_EXERCISES, build_suite); }
