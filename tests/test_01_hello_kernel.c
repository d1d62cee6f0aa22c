/**
 * @file test_01_hello_kernel.c
 * @brief Grader for lesson 01: first kernels. Index and pattern fills against the CPU reference at
 *        edge sizes and launch shapes, launch errors read and cleared, and results that must be
 *        finished when the function returns -- under every simulator schedule, outputs poisoned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grade.h"
#include "judge.h"
#include "hello.h"

static const GradeExercise kExercises[] = {
    {"01.1", 3, "fill_index_kernel + fill_index_gpu: global index, bounds guard, grid rounded up", 0, "fill_index_kernel"},
    {"01.2", 2, "fill_pattern_gpu: <<<blocks, threads>>> and the roles of blockIdx and threadIdx", 0, "fill_pattern_kernel"},
    {"01.3", 2, "launch_error: a refused launch reported through cudaGetLastError, and cleared", 0, "mark_kernel"},
    {"01.4", 2, "fill_index_and_wait: wait for the kernel before the caller reads its output", 0, "fill_index_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Extra elements after each device output: writing them means a missing bounds guard. */
#define CANARY 64
/* What fresh (poisoned) device memory reads as, as an int. */
#define GARBAGE ((int)GRADE_DEVICE_GARBAGE_BITS)
#define POISON ((int)GRADE_POISON_BITS)

static unsigned long long seed_shown(void) { return (unsigned long long)grade_seed(); }

/* Fails with grade_diff_ints' diagnosis and this lesson's own reading of the mistake (`likely`, may
   be NULL). With `prefer` the lesson's reading replaces the general one; without, it is added only
   when the general diagnosis recognised nothing. */
static void fail_with(char *diagnosis, const char *likely, int prefer) {
    static char msg[8192];
    char *general = strstr(diagnosis, "\n  likely mistake:");
    if (general && likely && prefer) *general = '\0';
    else if (general) likely = NULL;
    snprintf(msg, sizeof msg, "%s%s%s", diagnosis, likely ? "\n  likely mistake: " : "", likely ? likely : "");
    free(diagnosis);
    ck_abort_msg("%s", msg);
}

static int *device_ints(size_t count) {
    int *d = NULL;
    cudaError_t e = cudaMalloc((void **)&d, count * sizeof(int));
    ck_assert_msg(e == cudaSuccess, "grader: cudaMalloc of %zu ints failed: %s", count, cudaGetErrorName(e));
    return d;
}

static void copy_back(int *h, const int *d, size_t count) {
    cudaError_t e = cudaMemcpy(h, d, count * sizeof(int), cudaMemcpyDeviceToHost);
    GRADE_EXPECT_CUDA_OK(e, "copying the result back (an error here comes from the kernel)");
}

static void expect_canary_untouched(const int *got, size_t n, const char *what) {
    for (size_t i = n; i < n + CANARY; i++)
        ck_assert_msg(got[i] == GARBAGE,
                      "%s (n = %zu, GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element output\n"
                      "  likely mistake: a missing bounds guard; the grid is rounded up to whole blocks, so threads with i >= n "
                      "exist and must not write",
                      what, n, seed_shown(), i, n);
}

/* ---- 01.1 ---- */
static const int kSizes[] = {1, 31, 32, 33, 1000, 100003};
#define N_SIZES (int)(sizeof kSizes / sizeof kSizes[0])

/* Recognises the pattern "a prefix is right, everything after it was never written" when that prefix
   is a power of two, one block's worth: what the general diagnosis ("never wrote these elements")
   says too vaguely. Which of two mistakes it was cannot be told from the output, so both are named. */
static const char *index_prefix_mistake(const int *got, const int *want, int n) {
    int f = 0;
    while (f < n && got[f] == want[f]) f++;
    if (f == 0 || f == n || f > 1024 || (f & (f - 1)) != 0) return NULL;
    for (int i = f; i < n; i++)
        if (got[i] != GARBAGE) return NULL;
    static char why[512];
    snprintf(why, sizeof why,
             "only elements 0..%d were written, one block's worth (a power of two), and none after them: either every block wrote "
             "the same elements (threadIdx.x starts again at 0 in each block; the global index is blockIdx.x * blockDim.x + "
             "threadIdx.x), or too few blocks were launched (round the division up: (n + threads - 1) / threads blocks)",
             f - 1);
    return why;
}

START_TEST(test_fill_index_writes_every_threads_global_index) {
    int n = kSizes[_i];
    int *d_out = device_ints((size_t)n + CANARY);
    int *want = grade_alloc((size_t)n * sizeof(int)), *got = grade_alloc(((size_t)n + CANARY) * sizeof(int));
    fill_index_cpu(want, n);
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_device(d_out, ((size_t)n + CANARY) * sizeof(int));
        GRADE_EXPECT_CUDA_OK(fill_index_gpu(d_out, n), "fill_index_gpu");
        copy_back(got, d_out, (size_t)n + CANARY);
        GradeCompare cmp = {.what = "fill_index_gpu: out[i] = i", .n = (size_t)n, .block = 256, .schedule = s};
        char *diag = grade_diff_ints(got, want, &cmp);
        if (diag) {
            /* the lesson's reading replaces the general one only where that one is the vague "never wrote these elements" */
            const char *mine = index_prefix_mistake(got, want, n);
            fail_with(diag, mine, mine && strstr(diag, "the kernel never wrote these elements") != NULL);
        }
        expect_canary_untouched(got, (size_t)n, "fill_index_gpu");
    }
    cudaFree(d_out);
    free(want);
    free(got);
}
END_TEST

START_TEST(test_fill_index_launches_nothing_for_n_zero) {
    /* n = 0 is legal: no launch (a grid of 0 blocks would be an error), no pointer needed. */
    GRADE_EXPECT_CUDA_OK(fill_index_gpu(NULL, 0), "fill_index_gpu(NULL, 0)");
    ck_assert_msg(cudaGetLastError() == cudaSuccess, "fill_index_gpu(NULL, 0) left a launch error pending: it must not launch at all");
}
END_TEST

/* ---- 01.2 ---- */
/* Launch shapes (blocks, threads): one of each; more blocks than threads and the other way round
   (first, because they tell the two kinds of swap apart); sizes that are no multiple of 32; both
   roles large. */
static const unsigned kShapes[][2] = {{1, 1}, {3, 5}, {5, 3}, {1, 32}, {4, 33}, {7, 64}, {2, 999}, {40, 7}, {130, 256}};
#define N_SHAPES (int)(sizeof kShapes / sizeof kShapes[0])

/* What the wrong version of the pattern would hold, for the diagnosis. */
static int matches(const int *got, int n, int (*value_at)(int i, unsigned blocks, unsigned threads), unsigned blocks, unsigned threads) {
    for (int i = 0; i < n; i++)
        if (got[i] != value_at(i, blocks, threads)) return 0;
    return 1;
}
/* <<<threads, blocks>>>: `threads` blocks of `blocks` threads. */
static int swapped_launch(int i, unsigned blocks, unsigned threads) {
    (void)threads;
    return (int)((i / blocks) * 1000 + i % blocks);
}
/* threadIdx.x * 1000 + blockIdx.x */
static int swapped_value(int i, unsigned blocks, unsigned threads) {
    (void)blocks;
    return (int)((i % threads) * 1000 + i / threads);
}

static const char *pattern_mistake(const int *got, int n, unsigned blocks, unsigned threads) {
    int written = 0;
    for (int i = 0; i < n; i++) written += got[i] != GARBAGE;
    if (!written) return NULL; /* the general diagnosis (never launched) says it all */
    if (matches(got, n, swapped_launch, blocks, threads) && matches(got, n, swapped_value, blocks, threads))
        return "block and thread are swapped: either the launch is <<<threads, blocks>>> (the number of blocks comes first), or the "
               "value is threadIdx.x * 1000 + blockIdx.x (it should be blockIdx.x * 1000 + threadIdx.x)";
    if (matches(got, n, swapped_launch, blocks, threads))
        return "the launch is <<<threads, blocks>>>: the first number in <<< >>> is the number of blocks (the grid), the second the "
               "threads per block";
    if (matches(got, n, swapped_value, blocks, threads))
        return "the value is threadIdx.x * 1000 + blockIdx.x; it should be blockIdx.x * 1000 + threadIdx.x";
    int same_first = 1;
    for (int i = 0; i < n && same_first; i++) {
        if (i < (int)threads) same_first = got[i] >= 0 && got[i] % 1000 == i;
        else same_first = got[i] == GARBAGE;
    }
    if (same_first && blocks > 1)
        return "every block wrote into the first blockDim.x elements, and nothing after them was written: the index must include "
               "the block, blockIdx.x * blockDim.x + threadIdx.x";
    return "element i belongs to block i / threads and thread i % threads: index with blockIdx.x * blockDim.x + threadIdx.x "
           "(blockDim.x, not gridDim.x) and store blockIdx.x * 1000 + threadIdx.x";
}

START_TEST(test_fill_pattern_labels_each_element_with_its_block_and_thread) {
    unsigned blocks = kShapes[_i][0], threads = kShapes[_i][1];
    int n = (int)(blocks * threads);
    int *d_out = device_ints((size_t)n + CANARY);
    int *want = grade_alloc((size_t)n * sizeof(int)), *got = grade_alloc(((size_t)n + CANARY) * sizeof(int));
    fill_pattern_cpu(want, blocks, threads);
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_device(d_out, ((size_t)n + CANARY) * sizeof(int));
        cudaError_t e = fill_pattern_gpu(d_out, blocks, threads);
        if (e != cudaSuccess)
            ck_abort_msg("fill_pattern_gpu(d_out, blocks = %u, threads = %u) returned %s (%s)\n"
                         "  likely mistake: the launch must be <<<blocks, threads>>>; a block holds at most 1024 threads",
                         blocks, threads, cudaGetErrorName(e), cudaGetErrorString(e));
        copy_back(got, d_out, (size_t)n + CANARY);
        char what[128];
        snprintf(what, sizeof what, "fill_pattern_gpu(d_out, blocks = %u, threads = %u): out[b * threads + t] = b * 1000 + t", blocks, threads);
        GradeCompare cmp = {.what = what, .n = (size_t)n,
                            .schedule = s};
        char *diag = grade_diff_ints(got, want, &cmp);
        if (diag) fail_with(diag, pattern_mistake(got, n, blocks, threads), 1);
        expect_canary_untouched(got, (size_t)n, "fill_pattern_gpu");
    }
    cudaFree(d_out);
    free(want);
    free(got);
}
END_TEST

/* ---- 01.3 ---- */
#define MARK_SLOTS 2048

/* Launch configurations CUDA refuses (2048 and 1025 threads per block, and none) with cudaErrorInvalidValue. */
static const unsigned kBadThreads[] = {2048, 1025, 0};

START_TEST(test_launch_error_reports_and_clears_a_refused_launch) {
    unsigned threads = kBadThreads[_i];
    int *d_out = device_ints(MARK_SLOTS + CANARY);
    grade_poison_device(d_out, (MARK_SLOTS + CANARY) * sizeof(int));
    long launches0 = judge_exercise_launches("mark_kernel");
    cudaError_t e = launch_error(d_out, threads);
    if (e == cudaSuccess) {
        /* what happened instead tells the mistakes apart: a launch that ran, none at all, or one unchecked */
        long launched = launches0 < 0 ? -1 : judge_exercise_launches("mark_kernel") - launches0;
        int *seen = grade_alloc((MARK_SLOTS + CANARY) * sizeof(int)), ran = 0;
        cudaDeviceSynchronize();
        copy_back(seen, d_out, MARK_SLOTS + CANARY);
        for (int i = 0; i < MARK_SLOTS + CANARY; i++) ran |= seen[i] != GARBAGE;
        if (!ran && launched == 0) {
            /* a refused launch is not counted: a valid one says whether the function launches at all */
            grade_poison_device(d_out, (MARK_SLOTS + CANARY) * sizeof(int));
            long before = judge_exercise_launches("mark_kernel");
            cudaGetLastError();
            (void)launch_error(d_out, 32);
            cudaDeviceSynchronize();
            cudaGetLastError();
            if (judge_exercise_launches("mark_kernel") > before) launched = -1; /* it does: the refused one went unchecked */
        }
        free(seen);
        const char *why = ran ? "mark_kernel ran, so the launch was not <<<1, threads>>>: with <<<threads, 1>>> (`threads` blocks of one "
                                "thread each) nothing is ever refused -- the block size is the second number"
                          : launched == 0 ? "mark_kernel was never launched: write mark_kernel<<<1, threads>>>(d_out); then return "
                                            "cudaGetLastError()"
                                          : "the launch itself returns nothing; return cudaGetLastError() right after it, which reports "
                                            "the refused launch";
        ck_abort_msg("launch_error(d_out, %u) returned cudaSuccess, but a block of %u threads cannot be launched (the limit is 1024 "
                     "threads per block, and at least 1)\n  likely mistake: %s",
                     threads, threads, why);
    }
    ck_assert_msg(e == cudaErrorInvalidValue,
                  "launch_error(d_out, %u) returned %s, expected cudaErrorInvalidValue (what CUDA reports for a block of %u threads)\n"
                  "  likely mistake: return cudaGetLastError() unchanged, right after the launch",
                  threads, cudaGetErrorName(e), threads);
    cudaError_t again = cudaGetLastError();
    ck_assert_msg(again == cudaSuccess,
                  "launch_error(d_out, %u) returned the right error, but left it pending: a cudaGetLastError() afterwards still "
                  "returns %s\n"
                  "  likely mistake: cudaPeekAtLastError() reads the error and leaves it set, so the next check blames an innocent "
                  "call; cudaGetLastError() reads it and resets it to cudaSuccess",
                  threads, cudaGetErrorName(again));
    int *got = grade_alloc((MARK_SLOTS + CANARY) * sizeof(int));
    ck_assert(cudaDeviceSynchronize() == cudaSuccess);
    copy_back(got, d_out, MARK_SLOTS + CANARY);
    for (int i = 0; i < MARK_SLOTS + CANARY; i++)
        ck_assert_msg(got[i] == GARBAGE,
                      "launch_error(d_out, %u) reported the error, but something wrote d_out[%d]: with %u threads requested, "
                      "nothing may run\n  likely mistake: launch exactly <<<1, threads>>>, with no other launch",
                      threads, i, threads);
    free(got);
    cudaFree(d_out);
}
END_TEST

static const unsigned kGoodThreads[] = {1, 32, 1000, 1024};

START_TEST(test_launch_error_reports_success_and_runs_the_kernel_for_a_valid_block) {
    unsigned threads = kGoodThreads[_i];
    int *d_out = device_ints(MARK_SLOTS + CANARY);
    int *got = grade_alloc((MARK_SLOTS + CANARY) * sizeof(int));
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_device(d_out, (MARK_SLOTS + CANARY) * sizeof(int));
        long launches0 = judge_exercise_launches("mark_kernel");
        cudaError_t e = launch_error(d_out, threads);
        long launched = launches0 < 0 ? -1 : judge_exercise_launches("mark_kernel") - launches0;
        ck_assert_msg(launched < 0 || launched == 1,
                      "launch_error(d_out, %u) launched mark_kernel %ld times\n  likely mistake: launch exactly <<<1, threads>>>, with no "
                      "other launch", threads, launched);
        ck_assert_msg(e == cudaSuccess, "launch_error(d_out, %u) returned %s for a valid block of %u threads\n  likely mistake: %s",
                      threads, cudaGetErrorName(e), threads,
                      launched == 1 ? "mark_kernel was launched once, as asked, so the error is not the launch's: return exactly what "
                                      "cudaGetLastError() gives right after the launch, not an error of your own"
                                    : "the launch must be <<<1, threads>>> (one block of `threads` threads)");
        ck_assert(cudaDeviceSynchronize() == cudaSuccess);
        copy_back(got, d_out, MARK_SLOTS + CANARY);
        int marked = 0;
        while (marked < MARK_SLOTS && got[marked] == 1) marked++;
        ck_assert_msg(marked > 0, "launch_error(d_out, %u) returned cudaSuccess but d_out[0] was never marked (d_out[0] = %d)\n"
                      "  likely mistake: %s", threads, got[0],
                      launched == 1 ? "mark_kernel ran, but not on d_out: launch it on the caller's array, mark_kernel<<<1, "
                                      "threads>>>(d_out), not on a buffer of your own"
                                    : "no launch: write mark_kernel<<<1, threads>>>(d_out);");
        for (int i = 0; i < MARK_SLOTS + CANARY; i++)
            ck_assert_msg(i < (int)threads ? got[i] == 1 : got[i] == GARBAGE,
                          "launch_error(d_out, %u): d_out[%d] is %d, expected %s: mark_kernel ran with %s threads than asked for\n"
                          "  likely mistake: the launch must be <<<1, threads>>>: exactly one block of `threads` threads",
                          threads, i, got[i], i < (int)threads ? "1" : "untouched", i < (int)threads ? "fewer" : "more");
    }
    free(got);
    cudaFree(d_out);
}
END_TEST

START_TEST(test_launch_error_after_a_refused_launch_reports_only_its_own_launch) {
    int *d_out = device_ints(MARK_SLOTS + CANARY);
    cudaError_t first = launch_error(d_out, 2048);
    cudaError_t second = launch_error(d_out, 64);
    ck_assert_msg(first == cudaErrorInvalidValue && second == cudaSuccess,
                  "launch_error(d_out, 2048) then launch_error(d_out, 64) returned %s then %s; expected cudaErrorInvalidValue then "
                  "cudaSuccess\n  likely mistake: %s",
                  cudaGetErrorName(first), cudaGetErrorName(second),
                  second == cudaErrorInvalidValue ? "the first launch's error was never cleared, so the second call reported it again: "
                                                    "use cudaGetLastError(), which resets the error"
                                                  : "return cudaGetLastError() right after the launch");
    cudaDeviceSynchronize();
    cudaFree(d_out);
}
END_TEST

/* ---- 01.4 ---- */
static const int kWaitSizes[] = {1, 1000, 100003};


START_TEST(test_fill_index_and_wait_returns_finished_results_in_pinned_memory) {
    int n = kWaitSizes[_i];
    int *out = NULL;
    cudaError_t e = cudaMallocHost((void **)&out, (size_t)n * sizeof(int));
    ck_assert_msg(e == cudaSuccess, "grader: cudaMallocHost failed: %s", cudaGetErrorName(e));
    int *want = grade_alloc((size_t)n * sizeof(int));
    fill_index_cpu(want, n);
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_ints(out, (size_t)n);
#if !ON_SIM
        /* On a GPU a tiny kernel may finish before the host looks, hiding a missing wait. A host
           function queued ahead of the student's kernel on the runner's (legacy default) stream
           holds the kernel back for a while: a function that waits is slower by that much, one
           that does not returns at once. */
        grade_hold_default_stream(100);
#endif
        GRADE_EXPECT_CUDA_OK(fill_index_and_wait(out, n), "fill_index_and_wait");
        /* Read at once, as the caller is entitled to. */
        size_t unwritten = 0;
        for (int i = 0; i < n; i++) unwritten += out[i] == POISON;
        if (unwritten) {
            ck_assert(cudaDeviceSynchronize() == cudaSuccess);
            size_t after_wait = 0;
            for (int i = 0; i < n; i++) after_wait += out[i] == POISON;
            if (after_wait < unwritten)
                ck_abort_msg("fill_index_and_wait(out, n = %d) (schedule %s, GRADE_SEED=%llu): when it returned, %zu of %d elements "
                             "were not written yet; they appeared only after the grader called cudaDeviceSynchronize()\n"
                             "  likely mistake: the kernel had not finished: synchronise before reading. A launch returns "
                             "before the kernel runs; call cudaDeviceSynchronize() before returning",
                             n, grade_schedule_name(s), seed_shown(), unwritten, n);
            if (after_wait == (size_t)n)
                ck_abort_msg("fill_index_and_wait(out, n = %d) (GRADE_SEED=%llu): nothing was ever written to out, even after waiting\n"
                             "  likely mistake: call fill_index_gpu(out, n) (and do 01.1 first)",
                             n, seed_shown());
        }
        GradeCompare cmp = {.what = "fill_index_and_wait: out[i] = i", .n = (size_t)n, .block = 256, .schedule = s};
        GRADE_EXPECT_INTS(out, want, &cmp);
    }
    cudaFreeHost(out);
    free(want);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"01.1", test_fill_index_writes_every_threads_global_index, N_SIZES},
        {"01.1", test_fill_index_launches_nothing_for_n_zero, 1},
        {"01.2", test_fill_pattern_labels_each_element_with_its_block_and_thread, N_SHAPES},
        {"01.3", test_launch_error_reports_and_clears_a_refused_launch, 3},
        {"01.3", test_launch_error_reports_success_and_runs_the_kernel_for_a_valid_block, 4},
        {"01.3", test_launch_error_after_a_refused_launch_reports_only_its_own_launch, 1},
        {"01.4", test_fill_index_and_wait_returns_finished_results_in_pinned_memory, 3},
    };
    return grade_suite("01-hello-kernel", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("01", kExercises, N_EXERCISES, build_suite); }
