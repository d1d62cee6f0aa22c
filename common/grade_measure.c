/* grade_measure.c -- one Nsight Compute start for all of a lesson's measured windows.

   On a GPU, a property test (grade_profile_begin ... grade_profile_end, then grade_require_*)
   restarts the runner under ncu, and nearly all of such a pass is the tool's own start: about 2 s,
   whatever the window holds. So before a lesson's exercises run, the judge forks a child that runs
   every property test of the exercises being graded (registered with grade_add_profiled_test) in
   one runner under one ncu, with the grader's canary kernel launched at both ends of each window,
   and hands back each window's figures. The child waits for the GPU's lock like any ncu pass; the
   lesson's own tests run meanwhile.

   When the judge reaches a window, it takes that window's figures from the child instead of
   starting ncu itself, and runs the window's calls on its own runner as before (their values are
   checked there, as always). Nothing the child says is believed unless it all adds up: one runner
   start, the tool's own success, as many canary launches in the report as the child made, and the
   window's end reached. Otherwise the window is measured the old way, by a pass of its own, so a
   student's code that disturbs the shared pass (a canary of its own, a crash in another window)
   costs time, never a property. On the simulator nothing changes: its profiler costs no start.

   On by default; GRADE_MEASURE_TOGETHER=0 gives each window a pass of its own (to compare, or to
   rule the shared pass out). On the H200 it took lesson 07 from 13.1 to 6.5 s and 06 from 11.6 to
   9.2 s, with every verdict as before (docs/results/grading-speed.md). */
#define _GNU_SOURCE
#include "backend.h"
#include "grade.h"
#include "grade_measure.h"
#include "judge.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the property tests, as the lesson's suite registers them ---- */
#define MAX_PROFILED_TESTS 32
static struct {
    TCase *tc;
    const char *exercise;
} g_tcases[64];
static int g_ntcases;
static struct {
    const char *exercise;
    const TTest *test;
} g_profiled[MAX_PROFILED_TESTS];
static int g_nprofiled;

void grade_measure_note_tcase(TCase *tc, const char *exercise) {
    if (g_ntcases < (int)(sizeof g_tcases / sizeof *g_tcases)) {
        g_tcases[g_ntcases].tc = tc;
        g_tcases[g_ntcases++].exercise = exercise;
    }
}

void grade_add_profiled_test_(TCase *tc, const TTest *test) {
    if (!tc) return; /* an exercise the simulator does not run */
    tcase_add_test(tc, test);
    const char *exercise = NULL;
    for (int i = 0; i < g_ntcases && !exercise; i++)
        if (g_tcases[i].tc == tc) exercise = g_tcases[i].exercise;
    /* one the shared pass cannot hold is measured by its own pass, as before */
    if (exercise && g_nprofiled < MAX_PROFILED_TESTS) {
        g_profiled[g_nprofiled].exercise = exercise;
        g_profiled[g_nprofiled++].test = test;
    }
}

/* ---- the child: every window in one pass ---- */
static int g_measuring;
static MeasuredWindow *g_windows; /* shared with the judge (MAP_SHARED, made before the fork) */
static int g_nwindows;
static WindowMarker g_markers[2 * MEASURE_MAX_WINDOWS];
static int g_nmarkers, g_marker_failed;
static char g_mark_exercise[32];
static int g_mark_ordinal, g_open = -1;
static const char *g_child_exercise = ""; /* the exercise whose tests the pass runs now */

int grade_measuring(void) { return g_measuring; }

/* The window ordinal of `exercise`: 0 for its first window, counted in one process. */
static int next_ordinal(char *last, size_t size, int *ordinal, const char *exercise) {
    if (strcmp(last, exercise)) {
        snprintf(last, size, "%s", exercise);
        *ordinal = 0;
    }
    return (*ordinal)++;
}

/* The grader's canary kernel, once, on one warp: a marker in ncu's report. */
static int launch_marker(void) {
    JudgeCall c;
    judge_begin(&c, "profile.Canary", 0);
    judge_u64(&c, 1);
    judge_u64(&c, 32);
    judge_u64(&c, 1);
    return judge_finish(&c) == 1;
}

void grade_measure_mark(int closes) {
    if (!closes) {
        int ordinal = next_ordinal(g_mark_exercise, sizeof g_mark_exercise, &g_mark_ordinal, g_child_exercise);
        if (g_nwindows >= MEASURE_MAX_WINDOWS) {
            g_open = -1;
            return;
        }
        g_open = g_nwindows++;
        snprintf(g_windows[g_open].exercise, sizeof g_windows[g_open].exercise, "%s", g_child_exercise);
        g_windows[g_open].ordinal = ordinal;
    }
    if (g_open < 0) return;
    /* the marker is noted first: a call that fails may still have launched it */
    g_markers[g_nmarkers].window = g_open;
    g_markers[g_nmarkers++].begins = !closes;
    if (!launch_marker()) g_marker_failed = 1;
    if (closes) g_open = -1;
}

/* Why the pass's windows were not taken (shared with the judge; "" when they were). */
static char *g_refused;
#define REFUSED_SIZE 600
static void refuse(const char *fmt, const char *what) {
    if (!g_refused[0]) snprintf(g_refused, REFUSED_SIZE, fmt, what);
}

static void measure_child(const char *only) {
    judge_detach();
    g_measuring = 1;
    Suite *s = suite_create("measured windows");
    TCase *made[MAX_PROFILED_TESTS];
    const char *made_for[MAX_PROFILED_TESTS];
    int nmade = 0;
    for (int i = 0; i < g_nprofiled; i++) {
        if (only && *only && strcmp(only, g_profiled[i].exercise)) continue;
        TCase *tc = NULL;
        for (int k = 0; k < nmade && !tc; k++)
            if (!strcmp(made_for[k], g_profiled[i].exercise)) tc = made[k];
        if (!tc) {
            tc = tcase_create(g_profiled[i].exercise);
            suite_add_tcase(s, tc);
            made_for[nmade] = g_profiled[i].exercise;
            made[nmade++] = tc;
        }
        tcase_add_test(tc, g_profiled[i].test);
    }
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    char why[1200], csv[4200];
    double t0 = judge_now_s();
    int measured = 0, one_runner = 0;
    /* Nsight Compute sometimes fails on its own beside other work on the GPU ("Failed to prepare
       kernel for profiling"): then the pass is made once more before its windows go apart */
    for (int attempt = 0; attempt < 2 && !measured; attempt++) {
        g_nwindows = g_nmarkers = g_marker_failed = 0;
        g_mark_exercise[0] = '\0';
        g_open = -1;
        if (judge_ncu_begin(getenv("GRADE_NCU"), grade_ncu_metrics(), why, sizeof why)) {
            refuse("the pass could not begin: %s", why);
            _exit(1);
        }
        int starts = g_runner_starts;
        judge_set_failure_probe(NULL);
        /* (no judge_exercise_begin here: a new exercise closes the pass that is open) */
        for (int k = 0; k < nmade; k++) {
            g_child_exercise = made_for[k];
            srunner_run(sr, NULL, made_for[k], CK_SILENT);
            judge_forget_failure(); /* one window's broken call does not stop the next one's */
        }
        one_runner = g_runner_starts - starts == 1;
        measured = judge_ncu_end(csv, sizeof csv, why, sizeof why);
        if (!measured && strncmp(why, "Nsight Compute failed on its own", 32)) break; /* not the tool's whim: no second try */
    }
    grade_note_time("all", "ncu", judge_now_s() - t0);
    char split_why[300] = "";
    if (!measured) refuse("Nsight Compute measured nothing: %s", why);
    else if (!one_runner) refuse("%s", "its runner had to start more than once");
    else if (g_marker_failed) refuse("%s", "a canary launch failed");
    else if (grade_ncu_split(csv, g_markers, g_nmarkers, g_windows, g_nwindows, split_why, sizeof split_why)) refuse("%s", split_why);
    if (g_refused[0])
        for (int k = 0; k < g_nwindows; k++) g_windows[k].valid = 0;
    if (measured) unlink(csv);
    judge_shutdown();
    _exit(0);
}

/* ---- the judge: starts the child, then takes its windows ---- */
static pid_t g_child = -1;
static int g_collected, g_told; /* the child was waited for; it ended well, so its windows count */
static char g_use_exercise[32];
static int g_use_ordinal;

void grade_measure_lesson(const char *only) {
#if ON_SIM
    (void)only;
    return;
#else
    const char *ncu = getenv("GRADE_NCU");
    const char *together = getenv("GRADE_MEASURE_TOGETHER");
    if (!ncu || !*ncu || (together && !strcmp(together, "0"))) return;
    int any = 0;
    for (int i = 0; i < g_nprofiled; i++) any |= !only || !*only || !strcmp(only, g_profiled[i].exercise);
    if (!any) return;
    void *shared = mmap(NULL, MEASURE_MAX_WINDOWS * sizeof(MeasuredWindow) + REFUSED_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return;
    g_windows = shared;
    g_refused = (char *)(g_windows + MEASURE_MAX_WINDOWS);
    judge_shutdown(); /* no runner alive while the child is made */
    fflush(stdout);
    fflush(stderr);
    g_child = fork();
    if (g_child == 0) measure_child(only);
    if (g_child > 0) judge_spare_child(g_child, 1); /* the runner's sweeps leave it be */
    if (g_child < 0) g_collected = 1; /* every window is then measured by a pass of its own */
#endif
}

/* How long a window waits for the shared pass (GRADE_MEASURE_WAIT, seconds): it takes a few seconds
   on a GPU, but a student's file can stall it (on the H200, a runner holding CUPTI's subscriber
   made every call under ncu wait out its timeout, with the GPU's lock held all the while). */
#define DEFAULT_MEASURE_WAIT_S 120

/* The child has been waited for; its windows count when it ended well (`told`). */
static void forget_child(int told) {
    judge_spare_child(g_child, 0);
    g_child = -1;
    g_collected = 1;
    g_told = told;
}

/* Ends the child without its figures (they came too late, or nobody needs them): its runner and
   Nsight Compute end with it, since the runner's box dies with its parent, and whatever is left is
   re-parented to this judge, whose next sweep of orphans ends it (at once when `sweep` is set: no
   exercise is using the runner then). Its GPU lock goes with it. */
static void abandon(const char *why, int sweep) {
    kill(g_child, SIGKILL);
    while (waitpid(g_child, NULL, 0) < 0 && errno == EINTR) {}
    forget_child(0);
    if (!g_refused[0]) snprintf(g_refused, REFUSED_SIZE, "%s", why);
    if (sweep) judge_shutdown();
}

/* Waits for the child, GRADE_MEASURE_WAIT seconds at most; its windows stay in the shared page,
   which nothing writes once it ended. */
static void collect(void) {
    if (g_collected) return;
    int status = -1, ended = 0;
    long wait_s = env_long("GRADE_MEASURE_WAIT", DEFAULT_MEASURE_WAIT_S);
    for (double until = judge_now_s() + (double)wait_s; !ended && judge_now_s() < until;) {
        pid_t got = waitpid(g_child, &status, WNOHANG);
        ended = got == g_child || (got < 0 && errno != EINTR);
        if (!ended) usleep(5000);
    }
    if (ended) {
        forget_child(status == 0); /* a child that did not end well said nothing */
        if (status != 0 && !g_refused[0]) snprintf(g_refused, REFUSED_SIZE, "the pass ended with wait status %d", status);
    } else {
        char why[96];
        snprintf(why, sizeof why, "the pass took more than %ld s (GRADE_MEASURE_WAIT)", wait_s);
        abandon(why, 0);
    }
    /* GRADE_VERBOSE: why the windows were measured apart, when they were */
    if (getenv("GRADE_VERBOSE") && g_refused[0]) printf("note: the lesson's windows were measured apart: %s\n", g_refused);
}

const MeasuredWindow *grade_measured_window(void) {
    if (!g_windows) return NULL;
    /* (Check's tcase_name() names the test, not its exercise: the exercise is the judge's) */
    const char *exercise = grade_current_exercise();
    int ordinal = next_ordinal(g_use_exercise, sizeof g_use_exercise, &g_use_ordinal, exercise);
    double t0 = judge_now_s();
    collect();
    g_ncu_seconds += judge_now_s() - t0; /* the wait is the pass's cost to this grading */
    for (int k = 0; k < MEASURE_MAX_WINDOWS && g_told; k++)
        if (g_windows[k].valid && !strcmp(g_windows[k].exercise, exercise) && g_windows[k].ordinal == ordinal) return &g_windows[k];
    return NULL;
}

/* The lesson's exercises are over: a pass whose windows no exercise reached (each failed before
   its property test) is of no use, and is not waited for. */
void grade_measure_end(void) {
    if (g_child > 0 && !g_collected) abandon("no exercise reached its window", 1);
}
