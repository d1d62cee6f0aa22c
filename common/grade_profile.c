/* grade_profile.c -- performance properties: the grader asks the runner's profiler what one
   kernel did (sectors per request, bank conflicts, active threads per instruction) and turns a
   property that does not hold into a failure a student can act on.

   On the simulator the runner is built with `simcc --profile` for lessons that grade properties
   (their lesson.mk says PROFILED_RUNNER), and its profiler counts exactly what Nsight Compute
   counts (sim/README.md, "Profiling memory accesses"). Where nothing can be counted (a GPU
   runner, for now), a property is never shown as passed: the exercise is marked "property not
   checked on this machine" and earns no points. */
#include "grade.h"
#include "judge.h"

#include <stdio.h>
#include <string.h>

static int g_profile_available = -1; /* -1 unknown, 0 this runner cannot count, 1 it can */

void grade_profile_begin(void) {
    JudgeCall c;
    judge_begin(&c, "profile.Control", 0);
    judge_u64(&c, 1);
    g_profile_available = judge_finish(&c) == 1;
}

void grade_profile_end(void) {
    JudgeCall c;
    judge_begin(&c, "profile.Control", 0);
    judge_u64(&c, 0);
    (void)judge_finish(&c);
}

int grade_profile_get(const char *kernel, GradeProfile *out) {
    memset(out, 0, sizeof *out);
    if (g_profile_available != 1) return 0;
    RpcProfile p;
    memset(&p, 0, sizeof p);
    JudgeCall c;
    judge_begin(&c, "profile.Get", 0);
    judge_in(&c, kernel, strlen(kernel) + 1);
    judge_inout(&c, &p, sizeof p, "profile", NULL);
    int64_t r = judge_finish(&c);
    if (r == 0) return 0;
    ck_assert_msg(r == 1, "`%s` was not launched while the grader measured it: this exercise's work must be done by that kernel", kernel);
    out->measured = 1;
    out->launches = p.launches;
    out->global_load_requests = p.global_load_requests;
    out->global_load_sectors = p.global_load_sectors;
    out->global_store_requests = p.global_store_requests;
    out->global_store_sectors = p.global_store_sectors;
    out->shared_load_requests = p.shared_load_requests;
    out->shared_load_conflicts = p.shared_load_conflicts;
    out->shared_store_requests = p.shared_store_requests;
    out->shared_store_conflicts = p.shared_store_conflicts;
    out->threads_per_instruction = p.warp_instructions ? (double)p.thread_instructions / (double)p.warp_instructions : 0.0;
    out->branches = p.branches;
    out->divergent_branches = p.divergent_branches;
    out->atomics = p.atomics;
    out->atomics_on_busiest_address = p.atomics_on_busiest_address;
    return 1;
}

/* Where nothing was measured: remember which property went unchecked (grade.c shows it). */
static int measured_or_note(const char *kernel, GradeProfile *p, const char *property) {
    if (grade_profile_get(kernel, p)) return 1;
    grade_note_unchecked(property);
    return 0;
}

void grade_require_coalesced(const char *kernel, double max_sectors_per_request) {
    GradeProfile p;
    char what[160];
    snprintf(what, sizeof what, "`%s`'s global loads and stores coalesced (at most %.1f sectors per request)", kernel, max_sectors_per_request);
    if (!measured_or_note(kernel, &p, what)) return;
    double ld = p.global_load_requests ? (double)p.global_load_sectors / (double)p.global_load_requests : 0.0;
    double st = p.global_store_requests ? (double)p.global_store_sectors / (double)p.global_store_requests : 0.0;
    ck_assert_msg(ld <= max_sectors_per_request && st <= max_sectors_per_request,
                  "the values are right, but `%s`'s %s not coalesced: %.1f sectors per request (at most %.1f expected; 4.0 is a warp "
                  "reading 32 consecutive floats). Neighbouring threads (threadIdx.x, threadIdx.x + 1) must touch neighbouring addresses; "
                  "`make profile LESSON=NN` shows the line",
                  kernel, ld > max_sectors_per_request ? (st > max_sectors_per_request ? "loads and stores are" : "loads are") : "stores are",
                  ld > max_sectors_per_request ? ld : st, max_sectors_per_request);
}

void grade_require_no_bank_conflicts(const char *kernel) {
    GradeProfile p;
    char what[160];
    snprintf(what, sizeof what, "no shared-memory bank conflicts in `%s`", kernel);
    if (!measured_or_note(kernel, &p, what)) return;
    ck_assert_msg(p.shared_load_conflicts == 0 && p.shared_store_conflicts == 0,
                  "the values are right, but `%s` has shared-memory bank conflicts: %llu on loads (in %llu requests) and %llu on stores "
                  "(in %llu requests). Threads of a warp that read different words of one bank wait for each other; a column of a "
                  "[32][32] float tile is all in one bank: pad each row by one element ([32][33]). `make profile LESSON=NN` shows the line",
                  kernel, p.shared_load_conflicts, p.shared_load_requests, p.shared_store_conflicts, p.shared_store_requests);
}

void grade_require_threads_per_instruction(const char *kernel, double at_least) {
    GradeProfile p;
    char what[160];
    snprintf(what, sizeof what, "`%s`'s warps do not diverge (at least %.1f active threads per instruction)", kernel, at_least);
    if (!measured_or_note(kernel, &p, what)) return;
    ck_assert_msg(p.threads_per_instruction >= at_least,
                  "the values are right, but `%s`'s warps diverge: %.1f active threads per executed warp instruction (at least %.1f "
                  "expected; 32 = every lane busy), %llu of %llu warp-level branches split the warp. A branch on threadIdx.x %% 2 sends "
                  "the lanes of one warp both ways, and the warp runs both paths one after the other; make the condition the same "
                  "for all 32 lanes of a warp (e.g. depend on threadIdx.x / 32). `make profile LESSON=NN` shows the line",
                  kernel, p.threads_per_instruction, at_least, p.divergent_branches, p.branches);
}
