/**
 * @file grade.h
 * @brief The grader's toolkit for lesson tests: seeded inputs, poisoned outputs, comparisons that
 *        explain themselves, simulator schedules, and the scoreboard (on top of Check).
 *
 * A lesson's test file lists its exercises (id, points, title), builds one Check test case per
 * exercise (named by the id), and hands both to grade_main(). Each test:
 *   1. makes inputs with grade_fill_floats(seed ...) and poisons outputs (grade_poison_floats),
 *   2. runs the student's code once per schedule (grade_schedule_count(): 1 on a GPU, 3 on the
 *      simulator: forward, reverse, random),
 *   3. compares with the CPU reference through GRADE_EXPECT_FLOATS(), which fails the test with a
 *      diagnosis: how many elements differ, the largest error, the first mismatches, the seed,
 *      and the likely mistake when it recognises one.
 * The test program is the *judge*: it is never linked with the student's code. The student's
 * functions and every CUDA call run in a separate *runner* process (judge.h, runner.h), one per
 * lesson, restarted after a crash; Check runs the tests in the judge's own process (CK_NOFORK),
 * and the judge bounds each call's time and memory itself.
 */
#ifndef COMMON_GRADE_H
#define COMMON_GRADE_H

#include <stddef.h>
#include <stdint.h>
#include <check.h>

#include "inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One graded exercise. */
typedef struct {
    const char *id;    /**< "02.1": lesson number, exercise number */
    int points;        /**< weight on the scoreboard */
    const char *title; /**< one line: what the student writes */
    int needs_gpu;     /**< 1: cannot run on the simulator (e.g. cuBLAS); shown as waiting for a GPU there */
    const char *kernels; /**< the kernel(s) the exercise must launch, space-separated (NULL: none, e.g. cuBLAS or
                              host-only work); an exercise that passes without launching each of them fails */
    int copies_to_host;  /**< 1: its functions bring results to the host themselves (host buffers, a pipeline, the
                              runner's probes), so a call that copies kilobytes back is not taken for work done on the
                              host (0, the default: a kernel exercise whose call copies 4 KiB or more back fails) */
} GradeExercise;

/** Builds the lesson's suite: one TCase per exercise, named by its id (grade_suite() makes it from a table of tests). */
typedef Suite *(*GradeSuiteBuilder)(void);

/** Runs the suite exercise by exercise (all, or the one named by $GRADE_EXERCISE), prints one line
    per exercise, writes $GRADE_JSON (a JSON summary) and $GRADE_TAP (TAP) when set, and returns
    the exit status: 0 when every exercise that could run passed, 1 when one failed, 2 for a bad
    setting (an unknown exercise, a GRADE_SEED that is not a number). When the runner could not be
    built (build-error.log beside it), every exercise fails with the compiler's message. */
int grade_main(const char *lesson, const GradeExercise *exercises, int count, GradeSuiteBuilder build);

/** A test case for exercise `id`, added to `suite`, with the standard timeout. Returns NULL for an
    exercise that needs a GPU when running on the simulator (add no tests to it then). */
TCase *grade_tcase(Suite *suite, const GradeExercise *exercises, int count, const char *id);

/** One test of a lesson's suite: a row of the table its suite builder hands to grade_suite(). */
typedef struct {
    const char *id;     /**< the exercise it grades: "06.1" */
    const TTest *test;  /**< the START_TEST */
    int runs;           /**< how many times it runs, with _i from 0: 1, or the number of cases of its table */
    int profiled;       /**< 1: a property test (grade_add_profiled_test), run once */
} GradeTest;

/** The lesson's suite `name` from its table of tests, in order: a test case per exercise
    (grade_tcase(), made at the exercise's first test; one exercise's tests stand together), none
    for an exercise the simulator does not run. Every lesson's tests are added here, so that skip
    and the profiled tests' bookkeeping are nobody's to forget. */
Suite *grade_suite(const char *name, const GradeExercise *exercises, int count, const GradeTest *tests, int ntests);
/** For a lesson whose grading needs the GPU to itself (it takes the device's memory, or times the
    GPU against the grader's own runs): called by its suite builder, it makes the grading wait for
    every other grading on the GPU, and them for it (judge_gpu_lesson_lock). `why` is for the
    reader of the test file. Nothing on the simulator. */
void grade_lesson_needs_whole_gpu(const char *why);
/** Adds a property test (one that measures with grade_profile_begin() and grade_profile_end()) to
    a test case made by grade_tcase(). On a GPU, every such test of
    the exercises being graded also runs once more, before them, in one runner under one Nsight
    Compute start (grade_measure.c): the test then takes its window's figures from there instead of
    starting ncu itself. With GRADE_MEASURE_TOGETHER=0, and for a test added with tcase_add_test,
    each window pays for an ncu start of its own. */
#define grade_add_profiled_test(tc, test) grade_add_profiled_test_((tc), (test))
void grade_add_profiled_test_(TCase *tc, const TTest *test);

/* ---- inputs: grade_seed, grade_fill_floats, grade_fill_ints, grade_fill_bytes (inputs.h) ---- */

/* ---- poison ---- */

/** The bit pattern written into host outputs before the student's code runs. */
#define GRADE_POISON_BITS 0x7FC0DEADu
/** The bit pattern of fresh device memory: the simulator fills it with 0xFF bytes, and the
    grader's device buffers are set to it too (grade_poison_device). */
#define GRADE_DEVICE_GARBAGE_BITS 0xFFFFFFFFu
void grade_poison_floats(float *a, size_t n);
/** The grader's view of a float output filled with `fill_bits` before the call (a byte memset):
    never-written elements get the GRADE_DEVICE_GARBAGE_BITS that grade_diff_floats recognises, and
    a computed NaN that happens to have those bits becomes an ordinary NaN. */
void grade_normalise_filled_floats(const float *out, float *norm, size_t n, uint32_t fill_bits);
void grade_poison_ints(int *a, size_t n);
/** cudaMemset(d, 0xFF, bytes): device output buffers start as NaN / -1, never as zeros. */
void grade_poison_device(void *d, size_t bytes);

/* ---- schedules (simulator only; one "schedule" on a GPU) ---- */

int grade_schedule_count(void);
const char *grade_schedule_name(int i);
/** Selects schedule i for the following kernel launches. */
void grade_use_schedule(int i);
/** Simulator: switches the race check (sim/README.md) on or off for the following launches; a race
    then stops the runner with the simulator's diagnosis, which fails the test. Returns 1 when the
    runner was built with `simcc --profile` (PROFILED_RUNNER_<lesson> := 1) and checks, else 0 (and
    always 0 on a GPU). Meant for small cases: a checked launch is some 50x slower. */
int grade_use_racecheck(int on);
/** Simulator: the next `count` kernel launches fail with cudaErrorLaunchOutOfResources (nothing
    runs), so that a test can see the student's function return a launch error rather than drop it.
    Returns 1 on the simulator, 0 on a GPU (nothing is refused there: skip the check). Set it back
    to 0 after the call, in case fewer launches came. */
int grade_refuse_launches(unsigned count);
/** Simulator: as grade_refuse_launches, but the `count` refused launches come after the next `skip`
    launches have run, so that a function's later launches (whose errors are the easiest to drop)
    can be refused alone. grade_refuse_launches_after(0, 0) cancels. 1 on the simulator, 0 on a GPU. */
int grade_refuse_launches_after(unsigned skip, unsigned count);
/** Simulator: the next `count` copies to or from a symbol (cudaMemcpyToSymbol and friends) fail with
    cudaErrorInvalidSymbol and copy nothing, so that a test can see the student's function return
    that error. 1 on the simulator, 0 on a GPU (skip the check there). Set it back to 0 after the call. */
int grade_refuse_symbol_copies(unsigned count);
/** Simulator: of the next cudaMemcpy / cudaMemcpyAsync calls of direction `kind` (a cudaMemcpyKind,
    e.g. cudaMemcpyDeviceToHost), the `count` after the first `skip` fail with cudaErrorUnknown and copy
    nothing, so that a test can see the student's function return a failed copy's error (the copy
    back's, say). 1 on the simulator, 0 on a GPU (skip the check there). grade_refuse_copies(0, 0, 0)
    after the call cancels what is left. */
int grade_refuse_copies(int kind, unsigned skip, unsigned count);

/* ---- comparisons ---- */

/** What was compared, for the message and the diagnosis. */
typedef struct {
    const char *what;  /**< "c = a + b" */
    size_t n;          /**< number of elements */
    size_t width;      /**< for 2D results: elements per row (0 for 1D) */
    unsigned block;    /**< threads per block along x used for this run (0 if unknown) */
    unsigned block_y;  /**< threads per block along y (2D), 0 if unknown */
    double atol, rtol; /**< pass when |got - want| <= atol + rtol * |want| (floats) */
    int schedule;      /**< the schedule index this run used */
} GradeCompare;

/** NULL when got matches want, else a malloc'd diagnosis (the caller frees it). NaN never matches. */
char *grade_diff_floats(const float *got, const float *want, const GradeCompare *c);
char *grade_diff_ints(const int *got, const int *want, const GradeCompare *c);
char *grade_diff_bytes(const unsigned char *got, const unsigned char *want, const GradeCompare *c);

/** Inside a Check test: fail with the diagnosis if the arrays differ. */
#define GRADE_EXPECT_FLOATS(got, want, cmp) grade_fail_if(grade_diff_floats((got), (want), (cmp)), (cmp), __FILE__, __LINE__)
#define GRADE_EXPECT_INTS(got, want, cmp) grade_fail_if(grade_diff_ints((got), (want), (cmp)), (cmp), __FILE__, __LINE__)
#define GRADE_EXPECT_BYTES(got, want, cmp) grade_fail_if(grade_diff_bytes((got), (want), (cmp)), (cmp), __FILE__, __LINE__)
/** Inside a Check test: fail with a message if a CUDA call of the student's code returned an error. */
#define GRADE_EXPECT_CUDA_OK(err, what) grade_expect_cuda_ok((int)(err), (what), __FILE__, __LINE__)

void grade_fail_if(char *diagnosis, const GradeCompare *c, const char *file, int line);
/** A copy of diff (a grade_diff_* message; not freed) whose likely mistake is `hint`: diff's own
    "likely mistake" line, where it has one, is taken out (the lines after it stay) and
    "\n  likely mistake: <hint>" added at the end; with hint NULL, diff as it is. The buffer (its size
    in *cap) has `extra` bytes to spare, for lines the caller adds. */
char *grade_with_hint(const char *diff, const char *hint, size_t extra, size_t *cap);

/** A matrix product for grade_passes_padded: C (M x N floats) = A (M x K) B (K x N), the inputs
    row-major on the host with `elem` bytes an element; `run` calls the student's launcher on device
    buffers (ctx: the caller's own); `cmp` compares C with `want`. */
typedef struct {
    const void *h_a, *h_b;
    size_t elem;
    int M, K, N;
    const float *want;
    GradeCompare cmp;
    unsigned char fill_byte; /**< C's bytes before the run */
    int (*run)(const void *ctx, const void *d_a, const void *d_b, float *d_c, int M, int K, int N);
    const void *ctx;
} GradePadded;
/** Whether the product passes once its inputs are zero-padded to Mp x Kp and Kp x Np: A and B in
    the top-left of zeroed matrices, run under the first schedule, and the top-left M x N of the
    Mp x Np result compared. For diagnoses that say a launcher only works on multiples of its tile. */
int grade_passes_padded(const GradePadded *g, int Mp, int Kp, int Np);
/** Holds the runner's default stream for `ms` milliseconds (a host function queued ahead of the
    student's work), so that a function that forgets to wait returns before its kernel ran. */
void grade_hold_default_stream(unsigned ms);
void grade_expect_cuda_ok(int err, const char *what, const char *file, int line);

/** Inside a Check test, right after a student call: its result must come from the device. Fails
    when the call copied at least `input_bytes` (and more than none) from the device to the host --
    the input read back, and the result computed there; `device_work` says what must do the work.
    Counted on the simulator, which sees every copy; on a GPU nothing is checked. */
#define GRADE_EXPECT_FROM_DEVICE(what, input_bytes, device_work) \
    grade_expect_from_device((what), (input_bytes), (device_work), __FILE__, __LINE__)
void grade_expect_from_device(const char *what, unsigned long long input_bytes, const char *device_work, const char *file, int line);

/** Allocates or fails the test with a clear message (tests never continue on NULL). */
void *grade_alloc(size_t bytes);
/** cudaMalloc (at least 4 bytes) or fails the test with a clear message. */
void *grade_device_alloc(size_t bytes);
/** cudaMemcpy host to device (nothing for 0 bytes) or fails the test with a clear message. */
void grade_to_device(void *d, const void *h, size_t bytes);

/* ---- performance properties: what the hardware does, not only what the values are ---- */

/** What a profiler counted for one kernel over the student calls between grade_profile_begin() and
    grade_profile_end(), summed over its launches: Nsight Compute's figures on a GPU, the
    simulator's profiler (sim/README.md, "Profiling") on the CPU, with the same meaning. */
typedef struct {
    int measured;                        /**< 0: this machine cannot count (a GPU without Nsight Compute) */
    unsigned long long launches;
    unsigned long long global_load_requests, global_load_sectors;   /**< 32-byte sectors */
    unsigned long long global_store_requests, global_store_sectors;
    unsigned long long shared_load_requests, shared_load_conflicts; /**< bank conflicts */
    unsigned long long shared_store_requests, shared_store_conflicts;
    double threads_per_instruction;      /**< active threads per executed warp instruction: 32 = no divergence */
    unsigned long long branches, divergent_branches; /**< warp-level branch executions; those whose lanes split */
    unsigned long long atomics, atomics_on_busiest_address; /**< thread-level atomic operations */
    int tensor_measured;                 /**< 1: tensor_instructions was counted (see grade_profile_want_tensor_cores) */
    unsigned long long tensor_instructions; /**< warp-level tensor-core instructions: the simulator's wmma::mma_sync per
                                                 warp, ncu's smsp__inst_executed_pipe_tensor_op_hmma on a GPU */
    int blocks_measured;                 /**< 1: the next four were counted (the simulator only) */
    unsigned long long blocks, blocks_storing_nothing; /**< thread blocks run; those that made no global store: a
                                                            grid larger than the work */
    unsigned long long storing_block_end[3]; /**< 1 + the highest blockIdx.x, .y, .z of a block that stored (0: none) */
    unsigned long long grid[3];          /**< the largest grid.x, .y, .z launched */
} GradeProfile;

/** Called by a suite builder whose properties need the tensor-core instruction count (lesson 17):
    on a GPU, Nsight Compute is then also asked for its tensor-pipe metric (only then: a metric a
    GPU lacks would make every lesson's pass fail). */
void grade_profile_want_tensor_cores(void);
/** Starts counting for the following student calls. Call it first in a test, before allocating
    the test's device buffers, and fetch results and free the buffers before grade_profile_end():
    on a GPU the runner is restarted under Nsight Compute (ncu) here and ended there. Keep the
    profiled sizes small: a profiled simulator run is about 10x slower. */
void grade_profile_begin(void);
/** Stops counting (the figures are kept until the next grade_profile_begin()). */
void grade_profile_end(void);
/** The figures of the kernel whose name contains `kernel`; returns 1 when measured, 0 when this
    machine cannot count (out->measured = 0). Fails the test when the kernel was not launched. */
int grade_profile_get(const char *kernel, GradeProfile *out);
/** Property checks, each failing the test with the figure, the limit and what to change, or, where
    nothing was measured, marking the exercise "property not checked on this machine" (no points,
    never shown as passed). */
/** Global loads and stores of `kernel` take at most `max_sectors_per_request` sectors per request
    (4.0 is a warp reading 32 consecutive floats). */
void grade_require_coalesced(const char *kernel, double max_sectors_per_request);
/** For a lesson's own coalescing message: 1 and the figures of `kernel` when they were measured
    and count its global loads or stores; otherwise 0, with the exercise marked "property not
    checked" -- nothing measured on this machine, or no access counted (a kernel that produced the
    right values did load and store: its object was built without the simulator's profiler). */
int grade_profile_global(const char *kernel, double max_sectors_per_request, GradeProfile *out);
/** sectors / requests, 0 for no requests. */
double grade_per_request(unsigned long long sectors, unsigned long long requests);
/** No shared-memory bank conflicts on loads or stores. */
void grade_require_no_bank_conflicts(const char *kernel);
/** At least `at_least` active threads per executed warp instruction (32 = no divergence). */
void grade_require_threads_per_instruction(const char *kernel, double at_least);
/** For the grader's own tests: reads a report of Nsight Compute (`ncu --csv --page raw`) as the
    GPU's profile pass does; grade_profile_get then answers from it. Returns the kernels read. */
int grade_profile_load_ncu_csv(const char *path);
/** Marks the current exercise "property not checked on this machine: <property>" (grade_require_*
    call it where nothing was measured); a text starting "waiting: " is shown as it is (a package
    this machine lacks). The exercise earns no points and is never shown as passed. */
void grade_note_unchecked(const char *property);
/** Marks the current exercise as waiting for a package this machine lacks (lesson 12's NumPy or
    Numba): UNCHECKED with `why` as its message, no points, never failed. The result's JSON names
    the package and the command that installs it ("needs": {"package", "install"}), so that the
    scoreboard can say what to install instead of "done". The first call of an exercise wins. */
void grade_note_missing_package(const char *package, const char *install, const char *why);

#ifdef __cplusplus
}
#endif
#endif
