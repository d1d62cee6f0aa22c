/**
 * @file test_grade.c
 * @brief Unit tests of the grader's toolkit (common/grade.c): comparisons must fail on every kind
 *        of wrong result, never on a right one, and name the likely mistake they are built to
 *        recognise. Inputs are made here, so each diagnosis is checked on a known cause. Then the
 *        GPU's tools around the runner (common/judge_passes.c, common/judge_gpu_lock.c): a
 *        profiler's own failure is told from the program's end, passes of gradings that run at
 *        once take turns, and a pass whose tool failed is UNCHECKED -- with stand-ins for the tools
 *        (tests/common/fake_profiler.sh) around a real runner ($GRADE_TEST_RUNNER, lesson 02's).
 */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "grade.h"
#include "grade_measure.h"
#include "judge.h"
#include "sandbox.h"

#define N 1000
#define BLOCK 256

static float want[N], got[N];

static void setup(void) {
    grade_fill_floats(want, N, 42, -10.0f, 10.0f);
    memcpy(got, want, sizeof got);
}

static GradeCompare cmp_1d(void) {
    GradeCompare c = {.what = "test", .n = N, .block = BLOCK, .atol = 1e-6, .rtol = 1e-6};
    return c;
}

/* The diagnosis for `got`, which must exist, contain `needle` and be freed. */
static void expect_diagnosis(const GradeCompare *c, const char *needle) {
    char *d = grade_diff_floats(got, want, c);
    ck_assert_msg(d != NULL, "a wrong result passed the comparison (expected a diagnosis mentioning \"%s\")", needle);
    ck_assert_msg(strstr(d, needle) != NULL, "diagnosis does not mention \"%s\":\n%s", needle, d);
    free(d);
}

/* Nsight Compute's raw CSV (tests/common/ncu-raw-sample.csv, measured on the H200 with
   tools/ncu_yardstick.sh): hundreds of attribute columns come before the metrics, which must all be
   found -- a metric read as 0 would pass "no bank conflicts". */
START_TEST(test_nsight_compute_report_is_read_past_its_attribute_columns) {
    ck_assert_int_eq(grade_profile_load_ncu_csv("tests/common/ncu-raw-sample.csv"), 2);
    GradeProfile p;
    ck_assert(grade_profile_get("divergent", &p) == 1);
    ck_assert_msg(p.threads_per_instruction > 19.5 && p.threads_per_instruction < 19.7, "threads per instruction %.2f", p.threads_per_instruction);
    ck_assert_uint_eq(p.divergent_branches, 512);
    ck_assert_uint_eq(p.global_load_requests, 512);
    ck_assert_uint_eq(p.global_load_sectors, 2048);
    ck_assert(grade_profile_get("shared_conflicts", &p) == 1);
    ck_assert_uint_eq(p.shared_load_conflicts, 992);
    ck_assert_uint_eq(p.shared_store_conflicts, 992);
}
END_TEST

/* The tensor-pipe column is optional (asked for only by lesson 17, grade_profile_want_tensor_cores): a
   report without it leaves the tensor-core count unmeasured, never 0 (0 would fail a kernel that used
   them); a report with it counts it, summed over a kernel's launches. */
START_TEST(test_tensor_pipe_column_is_counted_when_present_and_unmeasured_when_absent) {
    ck_assert_int_eq(grade_profile_load_ncu_csv("tests/common/ncu-raw-sample.csv"), 2);
    GradeProfile p;
    ck_assert(grade_profile_get("divergent", &p) == 1);
    ck_assert_msg(!p.tensor_measured && p.tensor_instructions == 0, "a report without the column: measured %d, count %llu", p.tensor_measured,
                  p.tensor_instructions);
    char path[] = "/tmp/test-grade-tensor-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *in = fopen("tests/common/ncu-raw-sample.csv", "r"), *out = fdopen(fd, "w");
    ck_assert(in && out);
    static char line[1 << 17];
    int header = 0;
    while (fgets(line, sizeof line, in)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = '\0';
        if (!strncmp(line, "\"ID\"", 4)) header = 1, fprintf(out, "%s,\"smsp__inst_executed_pipe_tensor_op_hmma.sum\"\n", line);
        else if (header == 1) header = 2, fprintf(out, "%s,\"inst\"\n", line);
        else if (header == 2 && line[0] == '"') fprintf(out, "%s,\"7\"\n", line);
        else fprintf(out, "%s\n", line);
    }
    fclose(in);
    fclose(out);
    ck_assert_int_eq(grade_profile_load_ncu_csv(path), 2);
    unlink(path);
    ck_assert(grade_profile_get("divergent", &p) == 1);
    ck_assert_msg(p.tensor_measured && p.tensor_instructions == 7, "a report with the column: measured %d, count %llu", p.tensor_measured,
                  p.tensor_instructions);
    ck_assert_uint_eq(p.divergent_branches, 512); /* the other figures unchanged */
}
END_TEST

/* A report of one ncu start over several windows (grade_measure.c), made from the sample's rows:
   `names` lists each row's kernel, "C" for the grader's canary. Returns the file's path. */
static const char *windows_report(const char *const *names, int n) {
    static char path[] = "/tmp/test-grade-windows-XXXXXX";
    static char line[3][1 << 17];
    FILE *in = fopen("tests/common/ncu-raw-sample.csv", "r");
    ck_assert(in != NULL);
    int k = 0;
    while (k < 3 && fgets(line[k], sizeof line[k], in)) /* the header, the units, the shared_conflicts row */
        if (k || !strncmp(line[k], "\"ID\"", 4)) k++;
    fclose(in);
    ck_assert_int_eq(k, 3);
    strcpy(path, "/tmp/test-grade-windows-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    fputs(line[0], out);
    fputs(line[1], out);
    static const char kSample[] = "\"shared_conflicts(const float *, float *)\"";
    char *at = strstr(line[2], kSample);
    ck_assert(at != NULL);
    for (int i = 0; i < n; i++) {
        const char *name = !strcmp(names[i], "C") ? "grade_profile_canary_kernel(const float *, float *, unsigned int)" : names[i];
        const char *after_id = strchr(line[2], ','); /* the row's own fields up to the kernel's name */
        fprintf(out, "\"%d\"%.*s\"%s\"%s", i + 1, (int)(at - after_id), after_id, name, at + strlen(kSample));
    }
    fclose(out);
    return path;
}

/* One ncu start measures every window of a lesson: the grader's canary launches bound them, and the
   launches between a window's two canaries are that window's, per kernel; what lies between windows
   belongs to none. A canary the grader did not launch, or one of its own missing from the report,
   and no window is believed (each is then measured by a pass of its own); a window whose end was
   never reached (its test failed inside it) is not believed either. */
START_TEST(test_one_report_is_split_into_its_windows_by_the_canaries) {
    static const char *const rows[] = {"C", "shared_conflicts(const float *, float *)", "C", "stray(int)", "C", "divergent(float *, int)",
                                       "divergent(float *, int)", "C"};
    WindowMarker m[] = {{0, 1}, {0, 0}, {1, 1}, {1, 0}};
    MeasuredWindow w[2];
    char why[300];
    memset(w, 0, sizeof w);
    const char *csv = windows_report(rows, 8);
    ck_assert_int_eq(grade_ncu_split(csv, m, 4, w, 2, why, sizeof why), 0);
    ck_assert(w[0].valid && w[1].valid);
    ck_assert_int_eq(w[0].count, 1);
    ck_assert_str_eq(w[0].kernels[0].name, "shared_conflicts(const float *, float *)");
    ck_assert_uint_eq(w[0].kernels[0].v[0], 1);
    ck_assert_int_eq(w[1].count, 1);
    ck_assert_str_eq(w[1].kernels[0].name, "divergent(float *, int)");
    ck_assert_uint_eq(w[1].kernels[0].v[0], 2);                         /* two launches ... */
    ck_assert_uint_eq(w[1].kernels[0].v[6], 2 * w[0].kernels[0].v[6]); /* ... each with the sample row's figures */
    ck_assert_uint_gt(w[0].kernels[0].v[6], 0);
    unlink(csv);

    /* the student's code launched a canary of its own (or one of the grader's did not show) */
    static const char *const extra[] = {"C", "shared_conflicts(const float *, float *)", "C", "C", "C", "divergent(float *, int)", "C"};
    csv = windows_report(extra, 7);
    ck_assert_int_eq(grade_ncu_split(csv, m, 4, w, 2, why, sizeof why), -1);
    ck_assert(!w[0].valid && !w[1].valid);
    ck_assert_msg(strstr(why, "more canary launches than the 4"), "%s", why);
    unlink(csv);
    static const char *const missing[] = {"C", "shared_conflicts(const float *, float *)", "C", "C", "divergent(float *, int)"};
    csv = windows_report(missing, 5);
    ck_assert_int_eq(grade_ncu_split(csv, m, 4, w, 2, why, sizeof why), -1);
    ck_assert(!w[0].valid && !w[1].valid);
    ck_assert_msg(strstr(why, "fewer canary launches"), "%s", why);
    unlink(csv);

    /* window 0's test failed inside it: its end marker was never launched */
    WindowMarker cut[] = {{0, 1}, {1, 1}, {1, 0}};
    static const char *const rows_cut[] = {"C", "shared_conflicts(const float *, float *)", "C", "divergent(float *, int)", "C"};
    csv = windows_report(rows_cut, 5);
    ck_assert_int_eq(grade_ncu_split(csv, cut, 3, w, 2, why, sizeof why), 0);
    ck_assert(!w[0].valid && w[1].valid);
    ck_assert_int_eq(w[1].count, 1);
    unlink(csv);
}
END_TEST

START_TEST(test_identical_arrays_pass) {
    GradeCompare c = cmp_1d();
    ck_assert_ptr_null(grade_diff_floats(got, want, &c));
}
END_TEST

START_TEST(test_differences_within_tolerance_pass_and_beyond_fail) {
    GradeCompare c = cmp_1d();
    got[500] = want[500] + (float)(0.5e-6 * (1 + fabs(want[500])));
    ck_assert_ptr_null(grade_diff_floats(got, want, &c));
    got[500] = want[500] + (float)(4e-6 * (1 + fabs(want[500])));
    expect_diagnosis(&c, "1 of 1000 elements differ");
}
END_TEST

START_TEST(test_nan_never_passes_even_against_nan) {
    GradeCompare c = cmp_1d();
    want[3] = got[3] = NAN;
    expect_diagnosis(&c, "[3]");
}
END_TEST

START_TEST(test_poisoned_output_is_reported_as_never_copied_back) {
    GradeCompare c = cmp_1d();
    grade_poison_floats(got, N);
    expect_diagnosis(&c, "never written back to the host");
}
END_TEST

START_TEST(test_device_garbage_is_reported_as_never_written_by_the_kernel) {
    GradeCompare c = cmp_1d();
    memset(got, 0xFF, sizeof got);
    expect_diagnosis(&c, "the kernel never wrote the output");
}
END_TEST

START_TEST(test_missing_last_partial_block_is_recognised) {
    GradeCompare c = cmp_1d();
    for (int i = (N / BLOCK) * BLOCK; i < N; i++) memset(&got[i], 0xFF, 4);
    expect_diagnosis(&c, "the last, partial block is missing");
}
END_TEST

START_TEST(test_only_first_block_right_is_recognised) {
    GradeCompare c = cmp_1d();
    for (int i = BLOCK; i < N; i++) got[i] = want[i % BLOCK];
    expect_diagnosis(&c, "only the first block's elements are right");
}
END_TEST

START_TEST(test_shifted_index_is_recognised) {
    GradeCompare c = cmp_1d();
    for (int i = 0; i + 1 < N; i++) got[i] = want[i + 1];
    expect_diagnosis(&c, "off by one");
}
END_TEST

START_TEST(test_transposed_2d_result_is_recognised) {
    enum { ROWS = 20, COLS = 50 };
    GradeCompare c = {.what = "2d", .n = ROWS * COLS, .width = COLS, .block = 16, .block_y = 16};
    for (int r = 0; r < ROWS; r++)
        for (int q = 0; q < COLS; q++) got[q * ROWS + r] = want[r * COLS + q];
    expect_diagnosis(&c, "rows and columns are swapped");
}
END_TEST

START_TEST(test_a_later_schedule_failing_is_called_a_race) {
    GradeCompare c = cmp_1d();
    c.schedule = 1;
    got[7] = -got[7] - 1.0f;
    if (grade_schedule_count() > 1) expect_diagnosis(&c, "missing __syncthreads() or a race");
    else expect_diagnosis(&c, "1 of 1000 elements differ");
}
END_TEST

START_TEST(test_diagnosis_shows_seed_and_at_most_five_mismatches) {
    GradeCompare c = cmp_1d();
    for (int i = 0; i < 20; i++) got[i * 7] += 1.0f;
    char *d = grade_diff_floats(got, want, &c);
    ck_assert_ptr_nonnull(d);
    ck_assert_msg(strstr(d, "GRADE_SEED=") != NULL, "no seed in:\n%s", d);
    ck_assert_msg(strstr(d, "... and 15 more") != NULL, "mismatch list not capped at 5:\n%s", d);
    free(d);
}
END_TEST

START_TEST(test_int_and_byte_comparisons_are_exact) {
    int wi[64], gi[64];
    unsigned char wb[64], gb[64];
    grade_fill_ints(wi, 64, 7, -1000, 1000);
    memcpy(gi, wi, sizeof gi);
    grade_fill_bytes(wb, 64, 8);
    memcpy(gb, wb, sizeof gb);
    GradeCompare c = {.what = "exact", .n = 64};
    ck_assert_ptr_null(grade_diff_ints(gi, wi, &c));
    ck_assert_ptr_null(grade_diff_bytes(gb, wb, &c));
    gi[10] += 1;
    gb[20] ^= 1;
    char *d = grade_diff_ints(gi, wi, &c);
    ck_assert_ptr_nonnull(d);
    free(d);
    d = grade_diff_bytes(gb, wb, &c);
    ck_assert_ptr_nonnull(d);
    free(d);
}
END_TEST

START_TEST(test_inputs_are_seeded_and_never_zero) {
    float a[4096], b[4096];
    grade_fill_floats(a, 4096, 123, -1.0f, 1.0f);
    grade_fill_floats(b, 4096, 123, -1.0f, 1.0f);
    ck_assert_msg(memcmp(a, b, sizeof a) == 0, "the same seed gave different inputs");
    for (int i = 0; i < 4096; i++) ck_assert_msg(a[i] != 0.0f && a[i] >= -1.0f && a[i] < 1.0f, "a[%d] = %g", i, a[i]);
    grade_fill_floats(b, 4096, 124, -1.0f, 1.0f);
    ck_assert_msg(memcmp(a, b, sizeof a) != 0, "different seeds gave the same inputs");
}
END_TEST

/* ---- verdicts: a small lesson graded by grade_main itself (this program, run with --lesson) ---- */

/* 1.1 passes; 1.2 has no kernel list and cannot run here (a package it needs is missing): it must be
   "not checked", never passed (a grader bug once let such an exercise pass untested on a GPU). 1.3
   waits for a package the grader can name: the result's JSON carries it for the scoreboard. */
START_TEST(fake_passes) { ck_assert(1); }
END_TEST
START_TEST(fake_waits_for_a_package) { grade_note_unchecked("waiting: the package it needs is not installed"); }
END_TEST
START_TEST(fake_waits_for_numpy) {
    grade_note_missing_package("NumPy", "sudo apt-get install python3-numpy", "NumPy is not installed for /usr/bin/python3");
    grade_note_missing_package("Numba", "sudo apt-get install python3-numba", "the second reason, which must not replace the first");
}
END_TEST
/* 1.4: a coalescing check whose kernel the profiler counted no global access of (an object built
   without the simulator's profiler, made here from an ncu report with those counts at 0): not
   checked -- 0 requests once passed as coalesced. */
START_TEST(fake_nothing_counted) {
    ck_assert_int_eq(grade_profile_load_ncu_csv("tests/common/ncu-raw-nothing-counted.csv"), 1);
    grade_require_coalesced("nothing_counted", 4.0);
}
END_TEST
static const GradeExercise kFake[] = {{"1.1", 1, "passes", 0, NULL},
                                      {"1.2", 1, "needs a missing package", 0, NULL},
                                      {"1.3", 1, "needs NumPy", 0, NULL},
                                      {"1.4", 1, "coalesced, but nothing counted", 0, NULL}};
#define N_FAKE (int)(sizeof kFake / sizeof kFake[0])
static Suite *fake_suite(void) {
    /* built as a lesson's is (grade_suite), so the verdicts below test that too */
    const GradeTest tests[] = {
        {"1.1", fake_passes, 1},
        {"1.2", fake_waits_for_a_package, 1},
        {"1.3", fake_waits_for_numpy, 1},
        {"1.4", fake_nothing_counted, 1},
    };
    return grade_suite("fake", kFake, N_FAKE, tests, (int)(sizeof tests / sizeof *tests));
}


/* ---- the GPU's tools: what their lines say ---- */

START_TEST(test_the_gpu_is_the_first_visible_device) {
    setenv("CUDA_VISIBLE_DEVICES", "3,1", 1);
    ck_assert_str_eq(judge_gpu_name(), "3");
    setenv("CUDA_VISIBLE_DEVICES", " GPU-ab12/x ,0", 1);
    ck_assert_str_eq(judge_gpu_name(), "GPU-ab12_x");
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    ck_assert_str_eq(judge_gpu_name(), "0");
    unsetenv("CUDA_VISIBLE_DEVICES");
    ck_assert_str_eq(judge_gpu_name(), "0");
}
END_TEST

/* ncu's lines as it printed them: when it failed to profile and shut the program down (seen on an
   H100, intel/llvm#17007), when another profiler held the counters, when the program itself ended
   with a status, and a normal run. */
START_TEST(test_ncu_failing_on_its_own_is_told_from_the_programs_end) {
    char why[1024];
    ck_assert(judge_ncu_failed("==PROF== Connected to process 41 (/tmp/grade-exe-x/runner)\n==ERROR== Failed to prepare kernel for profiling\n"
                               "==ERROR== Unknown Error on device 0.\n==PROF== Trying to shutdown target application\n"
                               "==ERROR== The application returned an error code (9).\n==ERROR== An error occurred while trying to profile.\n",
                               why, sizeof why) == 1);
    ck_assert_msg(strstr(why, "Nsight Compute failed on its own: ==ERROR== Failed to prepare kernel for profiling"), "%s", why);
    ck_assert(judge_ncu_failed("==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no other tool (like DCGM) "
                               "is concurrently collecting profiling data.\n", why, sizeof why) == 1);
    ck_assert(judge_ncu_failed("==PROF== Connected to process 7\n==PROF== Trying to shutdown target application\n", why, sizeof why) == 1);
    ck_assert_msg(strstr(why, "shut the program down"), "%s", why);
    ck_assert(judge_ncu_failed("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n", why,
                               sizeof why) == 1);
    ck_assert_msg(strstr(why, "administrators"), "%s", why);
    /* the program's own end: its status is the program's, not ncu's */
    ck_assert(judge_ncu_failed("==PROF== Connected to process 41 (/tmp/runner)\n==ERROR== The application returned an error code (3).\n"
                               "==PROF== Disconnected from process 41\n", why, sizeof why) == 0);
    ck_assert(judge_ncu_failed("==PROF== Connected to process 41 (/tmp/runner)\n==PROF== Profiling \"copy_strided_kernel\" - 0: 0%....100% - 1 pass\n"
                               "==PROF== Disconnected from process 41\n", why, sizeof why) == 0);
    ck_assert(judge_ncu_failed("", why, sizeof why) == 0);
}
END_TEST

START_TEST(test_sanitizer_verdicts_tell_a_report_a_clean_check_and_its_own_failure) {
    char text[2048];
    ck_assert_int_eq(judge_sanitizer_verdict("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", 0, text, sizeof text), 0);
    ck_assert_int_eq(judge_sanitizer_verdict("========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", 0,
                                             text, sizeof text), 0);
    ck_assert_int_eq(judge_sanitizer_verdict("========= Invalid __global__ write of size 4 bytes\n=========     at k+0x70 in a.cu:12\n"
                                             "========= ERROR SUMMARY: 1 error\n", 86, text, sizeof text), 1);
    ck_assert_msg(strstr(text, "Invalid __global__ write"), "%s", text);
    ck_assert_int_eq(judge_sanitizer_verdict("========= Error: Race reported between Write access at k+0x10 in a.cu:3\n=========     and Read access at "
                                             "k+0x20 in a.cu:5 [32 hazards]\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n",
                                             86, text, sizeof text), 1);
    /* the program's own end, with the sanitizer's summary: its check is complete, and clean */
    ck_assert_int_eq(judge_sanitizer_verdict("========= Error: process didn't terminate successfully\n========= ERROR SUMMARY: 0 errors\n", 1, text,
                                             sizeof text), 0);
    /* its own failures */
    ck_assert_int_eq(judge_sanitizer_verdict("========= COMPUTE-SANITIZER\n========= Internal Sanitizer Error: The Sanitizer encountered an error "
                                             "while launching the application\n", 1, text, sizeof text), -1);
    ck_assert_msg(strstr(text, "failed on its own: Internal Sanitizer Error"), "%s", text);
    ck_assert_int_eq(judge_sanitizer_verdict("========= Error: Device not supported\n========= ERROR SUMMARY: 0 errors\n", 0, text, sizeof text), -1);
    ck_assert_int_eq(judge_sanitizer_verdict("========= COMPUTE-SANITIZER\n", -1, text, sizeof text), -1);
    ck_assert_msg(strstr(text, "did not complete"), "%s", text);
    ck_assert_int_eq(judge_sanitizer_verdict("", 0, text, sizeof text), -1);
}
END_TEST

/* A fresh private folder for the locks (made 0700 by mkdtemp). */
static void lock_folder(char *dir, size_t size) {
    snprintf(dir, size, "/tmp/grade-test-locks-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    setenv("GRADE_GPU_LOCK_DIR", dir, 1);
}

/* In a child process: judge_gpu_lock with `timeout_s`; its exit status 0 when it got the lock,
   1 when it found it busy with the expected words, 2 otherwise. */
static int lock_in_child(double timeout_s) {
    pid_t p = fork();
    if (p == 0) {
        char why[512];
        int fd = judge_gpu_lock(timeout_s, why, sizeof why);
        _exit(fd >= 0 ? 0 : fd == JUDGE_GPU_LOCK_BUSY && strstr(why, "another grading's profiler pass held GPU 7") ? 1 : 2);
    }
    int st = 0;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

START_TEST(test_gpu_lock_is_exclusive_across_processes_and_never_inherited) {
    char dir[64], path[4096], why[512];
    lock_folder(dir, sizeof dir);
    setenv("CUDA_VISIBLE_DEVICES", "7,2", 1);
    ck_assert_int_eq(judge_gpu_lock_path(path, sizeof path, why, sizeof why), 0);
    ck_assert_msg(strlen(path) > strlen(dir) && !strncmp(path, dir, strlen(dir)) && !strcmp(path + strlen(dir), "/gpu-7.lock"), "%s", path);
    int fd = judge_gpu_lock(1, why, sizeof why);
    ck_assert_msg(fd >= 0, "%s", why);
    ck_assert_msg(fcntl(fd, F_GETFD) & FD_CLOEXEC, "the lock's descriptor would be inherited by the runner");
    ck_assert_int_eq(lock_in_child(0.3), 1);
    judge_gpu_unlock(fd);
    ck_assert_int_eq(lock_in_child(0.3), 0);
    /* four processes at once: each holds it alone (GRADE_GPU_LOCK_LOG: when each held it) */
    char log[128];
    snprintf(log, sizeof log, "%s/held.log", dir);
    setenv("GRADE_GPU_LOCK_LOG", log, 1);
    pid_t kids[4];
    for (int k = 0; k < 4; k++)
        if ((kids[k] = fork()) == 0) {
            int f = judge_gpu_lock(30, why, sizeof why);
            usleep(100000);
            judge_gpu_unlock(f);
            _exit(f >= 0 ? 0 : 1);
        }
    for (int k = 0; k < 4; k++) {
        int st = 1;
        waitpid(kids[k], &st, 0);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    unsetenv("GRADE_GPU_LOCK_LOG");
    double from[8], until[8];
    int n = 0;
    FILE *f = fopen(log, "r");
    ck_assert(f != NULL);
    while (n < 8 && fscanf(f, "%lf %lf %*d %*s %*s", &from[n], &until[n]) == 2) n++;
    fclose(f);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            ck_assert_msg(i == j || until[i] <= from[j] || until[j] <= from[i], "two holders at once: [%f, %f] and [%f, %f]", from[i], until[i],
                          from[j], until[j]);
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("GRADE_GPU_LOCK_DIR");
    sandbox_remove_tree(dir);
}
END_TEST

/* In a child: the gradings' lock (whole: exclusive), tried for `timeout_s`; 0 got it, 1 busy. */
static int lesson_lock_in_child(int whole, double timeout_s) {
    pid_t p = fork();
    if (p == 0) {
        char why[512];
        int fd = judge_gpu_lesson_lock(whole, timeout_s, why, sizeof why);
        _exit(fd >= 0 ? 0 : fd == JUDGE_GPU_LOCK_BUSY && strstr(why, "another grading held GPU 0") ? 1 : 2);
    }
    int st = 0;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

/* A lesson that needs the GPU to itself (14.4 takes its memory, 11 times it) waits for every other
   grading on it, and they for it; the others share it. The passes' lock is another one: holding
   the gradings' lock never keeps a profiler pass waiting. */
START_TEST(test_a_lesson_that_needs_the_gpu_to_itself_waits_for_every_other_grading) {
    char dir[64], why[512];
    lock_folder(dir, sizeof dir);
    int shared = judge_gpu_lesson_lock(0, 1, why, sizeof why);
    ck_assert_msg(shared >= 0, "%s", why);
    ck_assert_msg(fcntl(shared, F_GETFD) & FD_CLOEXEC, "the lock's descriptor would be inherited by the runner");
    ck_assert_int_eq(lesson_lock_in_child(0, 0.3), 0); /* two ordinary lessons at once */
    ck_assert_int_eq(lesson_lock_in_child(1, 0.3), 1); /* the whole GPU waits for them */
    ck_assert_int_eq(lock_in_child(0.3) == 1, 0);       /* ... but the passes' lock is free */
    judge_gpu_lesson_unlock(shared);
    int whole = judge_gpu_lesson_lock(1, 1, why, sizeof why);
    ck_assert_msg(whole >= 0, "%s", why);
    ck_assert_int_eq(lesson_lock_in_child(0, 0.3), 1); /* and the others wait for it */
    ck_assert_int_eq(lesson_lock_in_child(1, 0.3), 1);
    judge_gpu_lesson_unlock(whole);
    ck_assert_int_eq(lesson_lock_in_child(1, 0.3), 0);
    unsetenv("GRADE_GPU_LOCK_DIR");
    sandbox_remove_tree(dir);
}
END_TEST

/* A grading that needs the whole GPU and waits for the ones sharing it goes first: no grading that
   comes after it begins sharing meanwhile (else four lessons graded in turn keep it out for good). */
START_TEST(test_a_waiting_whole_gpu_grading_is_not_overtaken) {
    char dir[64], why[512];
    lock_folder(dir, sizeof dir);
    int shared = judge_gpu_lesson_lock(0, 1, why, sizeof why);
    ck_assert_msg(shared >= 0, "%s", why);
    pid_t waiter = fork();
    if (waiter == 0) _exit(lesson_lock_in_child(1, 5));
    usleep(300000);                                     /* the whole grading is waiting by now */
    ck_assert_int_eq(lesson_lock_in_child(0, 0.3), 1); /* a new sharing grading waits behind it */
    judge_gpu_lesson_unlock(shared);
    int st = 0;
    waitpid(waiter, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the whole grading did not get the GPU once the sharing one ended");
    ck_assert_int_eq(lesson_lock_in_child(0, 0.3), 0); /* and it let go of the gate */
    unsetenv("GRADE_GPU_LOCK_DIR");
    sandbox_remove_tree(dir);
}
END_TEST

START_TEST(test_gpu_lock_refuses_a_folder_others_may_write) {
    char dir[64], why[512];
    lock_folder(dir, sizeof dir);
    ck_assert(chmod(dir, 0777) == 0);
    ck_assert_int_eq(judge_gpu_lock(1, why, sizeof why), JUDGE_GPU_LOCK_NONE);
    ck_assert_msg(strstr(why, "only it may write"), "%s", why);
    unsetenv("GRADE_GPU_LOCK_DIR");
    sandbox_remove_tree(dir);
}
END_TEST

/* ---- the GPU's tools around a real runner: a small lesson graded by grade_main (--lesson-tools) ---- */

/* c = a + b through lesson 02's vector_add_gpu, in the runner; fails the test when it is wrong. */
static void add_once(void) {
    enum { n = 1000 };
    static float a[n], b[n], c[n];
    for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 2.0f * (float)i;
    float *d[3];
    for (int k = 0; k < 3; k++) ck_assert(cudaMalloc((void **)&d[k], n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d[0], a, sizeof a, cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(d[1], b, sizeof b, cudaMemcpyHostToDevice) == cudaSuccess);
    JudgeCall call;
    judge_begin(&call, "vector_add_gpu", 1);
    for (int k = 0; k < 3; k++) judge_ptr(&call, d[k]);
    judge_u64(&call, n);
    judge_u64(&call, 256);
    ck_assert(judge_finish(&call) == cudaSuccess);
    ck_assert(cudaMemcpy(c, d[2], sizeof c, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; i++) ck_assert_msg(c[i] == 3.0f * (float)i, "c[%d] = %g", i, c[i]);
    for (int k = 0; k < 3; k++) cudaFree(d[k]);
}

static char g_tools[64]; /* the stand-ins, each a copy of fake_profiler.sh under its behaviour's name */

static const char *tool(const char *name) {
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", g_tools, name);
    return p;
}

/* T.1: Nsight Compute shuts the program down in the middle of a call (the "exit status 9"). */
START_TEST(tools_ncu_shuts_the_program_down) {
    add_once();
    char why[512];
    ck_assert_msg(judge_ncu_begin(tool("ncu-dies"), "smsp__inst_executed.sum", why, sizeof why) == 0, "%s", why);
    add_once();
    grade_hold_default_stream(12000); /* a long call, in which ncu-dies ends the program (after 3 s) */
    cudaDeviceSynchronize();
    ck_abort_msg("the runner under ncu-dies was not shut down");
}
END_TEST

/* T.2: Nsight Compute lets the program end but says it could not profile: nothing is believed. */
START_TEST(tools_ncu_log_says_it_failed) {
    char why[512], csv[4200];
    ck_assert_msg(judge_ncu_begin(tool("ncu-errs"), "smsp__inst_executed.sum", why, sizeof why) == 0, "%s", why);
    add_once();
    int measured = judge_ncu_end(csv, sizeof csv, why, sizeof why);
    ck_assert_msg(!measured && strstr(why, "Nsight Compute failed on its own") && strstr(why, "driver resource was unavailable"), "%d: %s",
                  measured, why);
    grade_note_unchecked(why);
}
END_TEST

/* T.3: a plain exercise, for the sanitizer passes ($GRADE_SANITIZER) */
START_TEST(tools_plain) { add_once(); }
END_TEST

static const GradeExercise kTools[] = {{"T.1", 1, "ncu shuts the program down mid-call", 0, "vector_add_kernel"},
                                       {"T.2", 1, "ncu's log says it failed", 0, "vector_add_kernel"},
                                       {"T.3", 1, "plain, for the sanitizer passes", 0, "vector_add_kernel"}};
static Suite *tools_suite(void) {
    const GradeTest tests[] = {
        {"T.1", tools_ncu_shuts_the_program_down, 1},
        {"T.2", tools_ncu_log_says_it_failed, 1},
        {"T.3", tools_plain, 1},
    };
    return grade_suite("tools", kTools, 3, tests, (int)(sizeof tests / sizeof *tests));
}

static const char *g_self;
static char g_locks[64];

static void tools_setup(void) {
    snprintf(g_tools, sizeof g_tools, "/tmp/grade-test-tools-XXXXXX");
    ck_assert(mkdtemp(g_tools) != NULL);
    ck_assert(chmod(g_tools, 0755) == 0); /* the runner's uid runs them, inside its box */
    static const char *names[] = {"ncu-dies", "ncu-errs", "compute-sanitizer-clean", "compute-sanitizer-slow", "compute-sanitizer-finds",
                                  "compute-sanitizer-broken"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ck_assert_msg(!sandbox_copy_file("tests/common/fake_profiler.sh", tool(names[i]), 0755), "cannot copy tests/common/fake_profiler.sh");
    snprintf(g_locks, sizeof g_locks, "/tmp/grade-test-locks-XXXXXX");
    ck_assert(mkdtemp(g_locks) != NULL);
    unsetenv("CUDA_VISIBLE_DEVICES");
}

static void tools_teardown(void) {
    sandbox_remove_tree(g_tools);
    sandbox_remove_tree(g_locks);
}

/* Starts the tools lesson on exercise `ex` with $GRADE_SANITIZER `sanitizer` ("" none) and more
   settings `extra` ("NAME=value ..."): its output comes from the returned pipe. */
static FILE *start_tools_lesson(const char *ex, const char *sanitizer, const char *extra) {
    const char *runner = getenv("GRADE_TEST_RUNNER");
    ck_assert_msg(runner && *runner && !access(runner, X_OK),
                  "GRADE_TEST_RUNNER must name lesson 02's runner (make test-common does: build/<backend>/solution/02-vector-add/runner)");
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "GRADE_RUNNER='%s' GRADE_JSON= GRADE_EXERCISE=%s GRADE_SANITIZER='%s' GRADE_SANDBOX_RO='%s' GRADE_GPU_LOCK_DIR='%s' %s '%s' "
             "--lesson-tools 2>&1",
             runner, ex, sanitizer, g_tools, g_locks, extra, g_self);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    return p;
}

static void finish_tools_lesson(FILE *p, char *out, size_t size) {
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    pclose(p);
}

static void run_tools_lesson(const char *ex, const char *sanitizer, const char *extra, char *out, size_t size) {
    finish_tools_lesson(start_tools_lesson(ex, sanitizer, extra), out, size);
}

/* The verdict word on exercise `ex`'s line of the lesson's output ("" when there is none). */
static const char *verdict(const char *out, const char *ex) {
    static char word[16];
    word[0] = '\0';
    for (const char *line = out; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, ex, strlen(ex)) && line[strlen(ex)] == ' ') {
            sscanf(line + strlen(ex), "%15s", word);
            break;
        }
    return word;
}

START_TEST(test_a_profiler_that_shuts_the_program_down_leaves_the_exercise_unchecked) {
    char out[16384];
    run_tools_lesson("T.1", "", "", out, sizeof out);
    ck_assert_msg(!strcmp(verdict(out, "T.1"), "UNCHECKED"), "not UNCHECKED:\n%s", out);
    ck_assert_msg(strstr(out, "could not finish measuring") && strstr(out, "failed on its own") && strstr(out, "Failed to profile"), "the profiler's words are missing:\n%s", out);
    ck_assert_msg(!strstr(out, "called exit()"), "the profiler's end was blamed on the student's code:\n%s", out);
}
END_TEST

START_TEST(test_a_profiler_whose_log_says_it_failed_measures_nothing) {
    char out[16384];
    run_tools_lesson("T.2", "", "", out, sizeof out);
    ck_assert_msg(!strcmp(verdict(out, "T.2"), "UNCHECKED") && strstr(out, "driver resource was unavailable"), "not UNCHECKED with ncu's words:\n%s",
                  out);
}
END_TEST

START_TEST(test_sanitizer_passes_pass_fail_or_leave_unchecked) {
    char out[16384];
    run_tools_lesson("T.3", tool("compute-sanitizer-clean"), "", out, sizeof out);
    ck_assert_msg(!strcmp(verdict(out, "T.3"), "PASS"), "a clean sanitizer did not pass:\n%s", out);
    run_tools_lesson("T.3", tool("compute-sanitizer-finds"), "", out, sizeof out);
    ck_assert_msg(!strcmp(verdict(out, "T.3"), "FAIL") && strstr(out, "Invalid __global__ write"), "a report did not fail:\n%s", out);
    run_tools_lesson("T.3", tool("compute-sanitizer-broken"), "", out, sizeof out);
    ck_assert_msg(!strcmp(verdict(out, "T.3"), "UNCHECKED") && strstr(out, "compute-sanitizer could not start the program") &&
                      strstr(out, "Internal Sanitizer Error"),
                  "a sanitizer that failed on its own did not leave the exercise UNCHECKED:\n%s", out);
    ck_assert_msg(!strcmp(verdict(out, "T.3"), "UNCHECKED") && !strstr(out, "called exit()") && !strstr(out, "never started answering"),
                  "blamed on the student:\n%s", out);
}
END_TEST

START_TEST(test_a_pass_that_cannot_get_its_gpu_is_unchecked) {
    char out[16384], why[512];
    setenv("GRADE_GPU_LOCK_DIR", g_locks, 1);
    int held = judge_gpu_lock(1, why, sizeof why); /* another grading's pass, holding GPU 0 */
    ck_assert_msg(held >= 0, "%s", why);
    run_tools_lesson("T.3", tool("compute-sanitizer-clean"), "GRADE_GPU_LOCK_TIMEOUT=1", out, sizeof out);
    judge_gpu_unlock(held);
    unsetenv("GRADE_GPU_LOCK_DIR");
    ck_assert_msg(!strcmp(verdict(out, "T.3"), "UNCHECKED") && strstr(out, "another grading's profiler pass held GPU 0 for more than 1 s"),
                  "not UNCHECKED with the lock's reason:\n%s", out);
    ck_assert_msg(!strstr(out, "waiting for another grading"), "a short wait was announced:\n%s", out);
}
END_TEST

/* Four gradings at once, each with three sanitizer passes, while an Nsight Compute pass (this test,
   holding the exclusive lock) has the GPU: no sanitizer pass starts before it ends; then they share
   it, and each grading's three tools run at once. */
START_TEST(test_passes_of_gradings_at_once_take_turns) {
    char log[128], extra[300], out[4][16384], why[512];
    snprintf(log, sizeof log, "%s/held.log", g_tools);
    snprintf(extra, sizeof extra, "GRADE_GPU_LOCK_LOG='%s'", log);
    setenv("GRADE_GPU_LOCK_DIR", g_locks, 1);
    int ncu = judge_gpu_lock(1, why, sizeof why);
    unsetenv("GRADE_GPU_LOCK_DIR");
    ck_assert_msg(ncu >= 0, "%s", why);
    FILE *p[4];
    for (int k = 0; k < 4; k++) p[k] = start_tools_lesson("T.3", tool("compute-sanitizer-slow"), extra);
    usleep(800 * 1000);
    double ncu_until = judge_now_s();
    judge_gpu_unlock(ncu);
    for (int k = 0; k < 4; k++) finish_tools_lesson(p[k], out[k], sizeof out[k]);
    for (int k = 0; k < 4; k++) ck_assert_msg(!strcmp(verdict(out[k], "T.3"), "PASS"), "grading %d:\n%s", k, out[k]);
    double from[32], until[32];
    int pid[32], n = 0;
    char how[32][16];
    FILE *f = fopen(log, "r");
    ck_assert_msg(f != NULL, "no pass took the GPU's lock");
    while (n < 32 && fscanf(f, "%lf %lf %d %*s %15s", &from[n], &until[n], &pid[n], how[n]) == 4) n++;
    fclose(f);
    ck_assert_int_eq(n, 12);
    int overlapping = 0;
    for (int i = 0; i < n; i++) {
        ck_assert_msg(!strcmp(how[i], "shared"), "a sanitizer pass held the GPU %s", how[i]);
        ck_assert_msg(from[i] >= ncu_until, "a sanitizer pass (pid %d) held the GPU while Nsight Compute's pass did", pid[i]);
        for (int j = 0; j < n; j++) overlapping += i != j && from[i] < until[j] && from[j] < until[i];
    }
    ck_assert_msg(overlapping > 0, "no two sanitizer passes ran at once: the shared lock serialised them");
}
END_TEST

START_TEST(test_an_exercise_nothing_could_check_is_never_passed) {
    char cmd[4200], out[8192] = "";
    snprintf(cmd, sizeof cmd, "GRADE_RUNNER=/nonexistent GRADE_JSON= GRADE_EXERCISE= '%s' --lesson 2>&1", g_self);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    ck_assert_msg(strstr(out, "1.1") && strstr(out, "PASS"), "the passing exercise was not shown as passed:\n%s", out);
    const char *line = strstr(out, "1.2");
    ck_assert_msg(line && !strncmp(strchr(line, ' ') + strspn(strchr(line, ' '), " "), "UNCHECKED", 9),
                  "an exercise that noted a missing package was not UNCHECKED:\n%s", out);
    ck_assert_msg(strstr(out, "not checked on this machine: the package it needs is not installed"), "the reason is missing:\n%s", out);
}
END_TEST

/* The scoreboard says "needs NumPy: `sudo apt-get install python3-numpy`" from the result's JSON:
   the exercise that named its package carries it there, the one that did not has no "needs". */
START_TEST(test_a_missing_package_is_named_in_the_result) {
    char json_path[] = "/tmp/test-grade-json-XXXXXX", cmd[4300], json[8192] = "";
    int fd = mkstemp(json_path);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "GRADE_RUNNER=/nonexistent GRADE_JSON='%s' GRADE_EXERCISE= '%s' --lesson >/dev/null 2>&1", json_path, g_self);
    ck_assert(system(cmd) != -1);
    FILE *f = fopen(json_path, "r");
    ck_assert(f != NULL);
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = '\0';
    fclose(f);
    unlink(json_path);
    const char *ex13 = strstr(json, "{\"id\": \"1.3\"");
    ck_assert_msg(ex13, "no exercise 1.3 in the result:\n%s", json);
    ck_assert_msg(strstr(ex13, "\"status\": \"unchecked\""), "1.3 is not unchecked:\n%s", json);
    ck_assert_msg(strstr(ex13, "\"needs\": {\"package\": \"NumPy\", \"install\": \"sudo apt-get install python3-numpy\"}"),
                  "1.3's package is not in the result (or the second call replaced it):\n%s", json);
    const char *needs = strstr(json, "\"needs\"");
    ck_assert_msg(needs == strstr(ex13, "\"needs\"") && !strstr(needs + 1, "\"needs\""), "only 1.3 may name a package:\n%s", json);
    ck_assert_msg(strstr(ex13, "NumPy is not installed for /usr/bin/python3"), "1.3's reason is missing:\n%s", json);
    const char *ex14 = strstr(json, "{\"id\": \"1.4\"");
    ck_assert_msg(ex14 && strstr(ex14, "\"status\": \"unchecked\"") && strstr(ex14, "counted none of its accesses"),
                  "a coalescing check with no access counted is not unchecked with its reason:\n%s", json);
}
END_TEST

static Suite *toolkit_suite(void) {
    Suite *s = suite_create("common/grade");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, test_identical_arrays_pass);
    tcase_add_test(core, test_nsight_compute_report_is_read_past_its_attribute_columns);
    tcase_add_test(core, test_tensor_pipe_column_is_counted_when_present_and_unmeasured_when_absent);
    tcase_add_test(core, test_one_report_is_split_into_its_windows_by_the_canaries);
    tcase_add_test(core, test_differences_within_tolerance_pass_and_beyond_fail);
    tcase_add_test(core, test_nan_never_passes_even_against_nan);
    tcase_add_test(core, test_int_and_byte_comparisons_are_exact);
    tcase_add_test(core, test_inputs_are_seeded_and_never_zero);
    tcase_add_test(core, test_diagnosis_shows_seed_and_at_most_five_mismatches);
    suite_add_tcase(s, core);
    TCase *diag = tcase_create("Diagnoses");
    tcase_add_checked_fixture(diag, setup, NULL);
    tcase_add_test(diag, test_poisoned_output_is_reported_as_never_copied_back);
    tcase_add_test(diag, test_device_garbage_is_reported_as_never_written_by_the_kernel);
    tcase_add_test(diag, test_missing_last_partial_block_is_recognised);
    tcase_add_test(diag, test_only_first_block_right_is_recognised);
    tcase_add_test(diag, test_shifted_index_is_recognised);
    tcase_add_test(diag, test_transposed_2d_result_is_recognised);
    tcase_add_test(diag, test_a_later_schedule_failing_is_called_a_race);
    suite_add_tcase(s, diag);
    TCase *verdicts = tcase_create("Verdicts");
    tcase_add_test(verdicts, test_an_exercise_nothing_could_check_is_never_passed);
    tcase_add_test(verdicts, test_a_missing_package_is_named_in_the_result);
    suite_add_tcase(s, verdicts);
    TCase *tools = tcase_create("Tools");
    tcase_add_test(tools, test_the_gpu_is_the_first_visible_device);
    tcase_add_test(tools, test_ncu_failing_on_its_own_is_told_from_the_programs_end);
    tcase_add_test(tools, test_sanitizer_verdicts_tell_a_report_a_clean_check_and_its_own_failure);
    tcase_add_test(tools, test_gpu_lock_is_exclusive_across_processes_and_never_inherited);
    tcase_add_test(tools, test_gpu_lock_refuses_a_folder_others_may_write);
    tcase_add_test(tools, test_a_lesson_that_needs_the_gpu_to_itself_waits_for_every_other_grading);
    tcase_add_test(tools, test_a_waiting_whole_gpu_grading_is_not_overtaken);
    suite_add_tcase(s, tools);
    TCase *passes = tcase_create("Passes");
    tcase_add_checked_fixture(passes, tools_setup, tools_teardown);
    tcase_set_timeout(passes, 120);
    tcase_add_test(passes, test_a_profiler_that_shuts_the_program_down_leaves_the_exercise_unchecked);
    tcase_add_test(passes, test_a_profiler_whose_log_says_it_failed_measures_nothing);
    tcase_add_test(passes, test_sanitizer_passes_pass_fail_or_leave_unchecked);
    tcase_add_test(passes, test_a_pass_that_cannot_get_its_gpu_is_unchecked);
    tcase_add_test(passes, test_passes_of_gradings_at_once_take_turns);
    suite_add_tcase(s, passes);
    return s;
}

int main(int argc, char **argv) {
    g_self = argv[0];
    if (argc > 1 && !strcmp(argv[1], "--lesson")) return grade_main("fake", kFake, N_FAKE, fake_suite);
    if (argc > 1 && !strcmp(argv[1], "--lesson-tools")) {
        /* the stand-ins' folder is the one the runner's box is given */
        snprintf(g_tools, sizeof g_tools, "%s", getenv("GRADE_SANDBOX_RO") ? getenv("GRADE_SANDBOX_RO") : "");
        return grade_main("tools", kTools, 3, tools_suite);
    }
    SRunner *sr = srunner_create(toolkit_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
