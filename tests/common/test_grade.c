/**
 * @file test_grade.c
 * @brief Unit tests of the grader's toolkit (common/grade.c): comparisons must fail on every kind
 *        of wrong result, never on a right one, and name the likely mistake they are built to
 *        recognise. Inputs are made here, so each diagnosis is checked on a known cause.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade.h"

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
static const GradeExercise kFake[] = {
    {"1.1", 1, "passes", 0, NULL}, {"1.2", 1, "needs a missing package", 0, NULL}, {"1.3", 1, "needs NumPy", 0, NULL}};
#define N_FAKE (int)(sizeof kFake / sizeof kFake[0])
static Suite *fake_suite(void) {
    Suite *s = suite_create("fake");
    TCase *a = grade_tcase(s, kFake, N_FAKE, "1.1");
    tcase_add_test(a, fake_passes);
    TCase *b = grade_tcase(s, kFake, N_FAKE, "1.2");
    tcase_add_test(b, fake_waits_for_a_package);
    TCase *c = grade_tcase(s, kFake, N_FAKE, "1.3");
    tcase_add_test(c, fake_waits_for_numpy);
    return s;
}

static const char *g_self;

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
}
END_TEST

static Suite *grade_suite(void) {
    Suite *s = suite_create("common/grade");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, test_identical_arrays_pass);
    tcase_add_test(core, test_nsight_compute_report_is_read_past_its_attribute_columns);
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
    return s;
}

int main(int argc, char **argv) {
    g_self = argv[0];
    if (argc > 1 && !strcmp(argv[1], "--lesson")) return grade_main("fake", kFake, N_FAKE, fake_suite);
    SRunner *sr = srunner_create(grade_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
