/* grade_profile.c -- performance properties: the grader asks the runner's profiler what one
   kernel did (sectors per request, bank conflicts, active threads per instruction) and turns a
   property that does not hold into a failure a student can act on.

   On the simulator the runner is built with `simcc --profile` for lessons that grade properties
   (their lesson.mk says PROFILED_RUNNER), and its profiler counts exactly what Nsight Compute
   counts (sim/README.md, "Profiling memory accesses"). Where nothing can be counted (a GPU
   runner, for now), a property is never shown as passed: the exercise is marked "property not
   checked on this machine" and earns no points.

   The simulator's profiler counts inside the runner, where the student's code runs too and could
   switch it off, reset it, or keep some launches from it. So each window between
   grade_profile_begin() and grade_profile_end() is checked from here: the runner runs the grader's
   own kernel (common/profile_canary.cu) right after the profiler is switched on and right before
   it is switched off, on a configuration picked at random here, whose figures are known exactly;
   and every launch the runner saw in the window must have been counted. When either fails, no
   figure of that window is believed: grade_profile_get() fails the test (tampering, or a broken
   runner); a runner without the canary kernel counts as one that cannot count. */
#include "backend.h"
#include "grade.h"
#include "grade_measure.h"
#include "judge.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static int g_profile_available = -1; /* -1 unknown, 0 this runner cannot count, 1 it can */
static char g_why[512];              /* why nothing could be counted, when known */
#if ON_SIM
static int g_window_checked;   /* the last window's canaries and launches were checked */
static char g_disturbed[1024]; /* ... and what did not add up ("" when all did) */
#endif

/* On a GPU: Nsight Compute's metrics, in RpcProfile's order (the atomics have no column). */
static const char *kMetrics[] = {
    NULL, /* launches: one row per launch */
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed.sum",                         "smsp__thread_inst_executed.sum",
    "smsp__sass_branch_targets.sum",                   "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__inst_executed_pipe_tensor_op_hmma.sum", /* optional: asked for only by grade_profile_want_tensor_cores */
};
#define TENSOR_METRIC 13 /* its index: a report without its column leaves it unmeasured (UINT64_MAX), not failed */
static int g_want_tensor;
void grade_profile_want_tensor_cores(void) { g_want_tensor = 1; }
#define NMETRICS (sizeof kMetrics / sizeof kMetrics[0])
_Static_assert(NMETRICS == NCU_FIGURES, "grade_measure.h's NcuKernel holds one figure per metric");
_Static_assert(offsetof(RpcProfile, tensor_instructions) == TENSOR_METRIC * sizeof(uint64_t), "kMetrics and RpcProfile in one order");
static NcuKernel g_ncu_kernels[64];
static int g_ncu_count;

/* Splits one CSV line into fields (quoted, maybe with commas inside); returns how many. */
static int csv_fields(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    while (*p && *p != '\n' && *p != '\r' && n < max) {
        if (*p == '"') {
            char *start = ++p, *w = p;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') p++;
                *w++ = *p++;
            }
            if (*p == '"') p++;
            *w = '\0';
            f[n++] = start;
        } else {
            f[n++] = p;
            while (*p && *p != ',' && *p != '\n') p++;
        }
        if (*p == ',') *p++ = '\0';
        else if (*p) *p++ = '\0';
    }
    return n;
}

static uint64_t csv_number(const char *s) {
    double v = 0, scale = 0;
    int frac = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            if (frac) v += (*s - '0') * (scale /= 10);
            else v = v * 10 + (*s - '0');
        } else if (*s == '.') {
            frac = 1;
            scale = 1;
        } /* thousands separators and units are skipped */
    }
    return (uint64_t)(v + 0.5);
}

/* Reads ncu's CSV: a header row ("ID", ..., "Kernel Name", ..., metrics), a units row, one row per launch. */
static int g_from_ncu; /* the figures come from Nsight Compute's report (g_ncu_kernels) */
double g_ncu_seconds;   /* the Nsight Compute passes' time, for $GRADE_TIMES */
#if !ON_SIM
static double g_ncu_started;
static const MeasuredWindow *g_measured; /* this window's figures, from the lesson's shared pass */
#endif

/* Adds one launch's figures to the kernel of its name in k[0..*count) (a new one while fewer than
   `max`); -1 when there was no room. */
static int add_launch(NcuKernel *k, int *count, int max, const char *name, const uint64_t *v) {
    NcuKernel *to = NULL;
    for (int i = 0; i < *count && !to; i++)
        if (!strcmp(k[i].name, name)) to = &k[i];
    if (!to && *count < max) {
        to = &k[(*count)++];
        memset(to, 0, sizeof *to);
        snprintf(to->name, sizeof to->name, "%s", name);
    }
    if (!to) return -1;
    for (size_t m = 0; m < NMETRICS; m++)
        to->v[m] = m == TENSOR_METRIC && (to->v[m] == UINT64_MAX || v[m] == UINT64_MAX) ? UINT64_MAX : to->v[m] + v[m];
    return 0;
}

/* Calls row(name, figures, ctx) for every launch of ncu's CSV report, in the report's order (its
   launch IDs'); the figures are in kMetrics' order, v[0] = 1. 0, or -1 when the report has no
   header or lacks a metric's column (a metric read as 0 would pass "no bank conflicts"). */
typedef void (*NcuRow)(const char *name, const uint64_t *v, void *ctx);
static int ncu_rows(const char *path, NcuRow row, void *ctx) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    /* the raw page has a column for every device attribute before the metrics: hundreds */
    static char line[1 << 20];
    static char *fields[4096];
    int col[NMETRICS], name_col = -1, header = 0;
    while (fgets(line, sizeof line, f)) {
        if (!header) {
            if (strncmp(line, "\"ID\"", 4)) continue;
            int n = csv_fields(line, fields, 4096);
            for (size_t m = 0; m < NMETRICS; m++) col[m] = -1;
            for (int i = 0; i < n; i++) {
                if (!strcmp(fields[i], "Kernel Name")) name_col = i;
                for (size_t m = 1; m < NMETRICS; m++)
                    if (!strcmp(fields[i], kMetrics[m])) col[m] = i;
            }
            header = 1;
            for (size_t m = 1; m < NMETRICS; m++)
                if (col[m] < 0 && m != TENSOR_METRIC) {
                    snprintf(g_why, sizeof g_why, "Nsight Compute's report has no column %s", kMetrics[m]);
                    fclose(f);
                    return -1;
                }
            continue;
        }
        int n = csv_fields(line, fields, 4096);
        if (name_col < 0 || n <= name_col || !fields[0][0] || fields[0][0] < '0' || fields[0][0] > '9') continue; /* the units row */
        uint64_t v[NMETRICS] = {1};
        for (size_t m = 1; m < NMETRICS; m++)
            if (col[m] >= 0 && col[m] < n) v[m] = csv_number(fields[col[m]]);
            else if (m == TENSOR_METRIC) v[m] = UINT64_MAX;
        row(fields[name_col], v, ctx);
    }
    fclose(f);
    return header ? 0 : -1;
}

static void aggregate_row(const char *name, const uint64_t *v, void *ctx) {
    (void)ctx;
    (void)add_launch(g_ncu_kernels, &g_ncu_count, 64, name, v);
}

static void read_ncu_csv(const char *path) {
    g_ncu_count = 0;
    if (ncu_rows(path, aggregate_row, NULL)) g_ncu_count = 0;
}

/* ---- a lesson's windows in one report (grade_measure.c) ---- */
typedef struct {
    const WindowMarker *markers;
    int nmarkers, next, current, trusted;
    MeasuredWindow *windows;
    int nwindows;
    int overflow[MEASURE_MAX_WINDOWS];
} Split;

/* The grader's canary kernel, as ncu names it: "grade_profile_canary_kernel(const float *, ...)". */
static int is_canary(const char *name) {
    static const char kName[] = "grade_profile_canary_kernel";
    return !strncmp(name, kName, sizeof kName - 1) && (name[sizeof kName - 1] == '\0' || name[sizeof kName - 1] == '(');
}

static void split_row(const char *name, const uint64_t *v, void *ctx) {
    Split *s = ctx;
    if (is_canary(name)) {
        if (s->next >= s->nmarkers) { /* a canary nobody here launched */
            s->trusted = 0;
            return;
        }
        const WindowMarker *m = &s->markers[s->next++];
        if (m->window < 0 || m->window >= s->nwindows) {
            s->trusted = 0;
        } else if (m->begins) {
            s->current = m->window;
            s->windows[m->window].count = 0;
            s->windows[m->window].valid = 0;
        } else {
            s->windows[m->window].valid = s->current == m->window && !s->overflow[m->window];
            s->current = -1;
        }
        return;
    }
    if (s->current < 0) return; /* between windows: no property reads it */
    MeasuredWindow *w = &s->windows[s->current];
    if (add_launch(w->kernels, &w->count, MEASURE_MAX_KERNELS, name, v)) s->overflow[s->current] = 1;
}

int grade_ncu_split(const char *csv, const WindowMarker *markers, int nmarkers, MeasuredWindow *windows, int nwindows, char *why, size_t why_size) {
    Split s = {.markers = markers, .nmarkers = nmarkers, .current = -1, .trusted = 1, .windows = windows, .nwindows = nwindows};
    for (int k = 0; k < nwindows; k++) windows[k].valid = 0;
    int read = ncu_rows(csv, split_row, &s);
    if (!read && s.trusted && s.next == nmarkers) return 0;
    if (read) snprintf(why, why_size, "its report could not be read: %s", g_why);
    else snprintf(why, why_size, "its report holds %s canary launches than the %d the grader made", s.trusted ? "fewer" : "more", nmarkers);
    for (int k = 0; k < nwindows; k++) windows[k].valid = 0;
    return -1;
}

/* During the compute-sanitizer pass (which reruns passed exercises) properties were already checked. */
static int sanitizing(void) { return judge_sanitizing(); }

#if ON_SIM
/* ---- the canary: the grader's own kernel at both ends of the window ---- */
typedef struct {
    unsigned blocks, threads, stride;
} Canary;
static Canary g_canary[2];

/* A number the student's code cannot have known when it was built (not from GRADE_SEED). */
static unsigned canary_random(unsigned below) {
    unsigned v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        v = (unsigned)(t.tv_nsec ^ (t.tv_sec * 2654435761u) ^ ((unsigned)getpid() << 16));
    }
    return v % below;
}

/* Runs canary k (0: after switching on, 1: before switching off) on a fresh random configuration. */
static void run_canary(int k) {
    Canary *cn = &g_canary[k];
    cn->blocks = 1 + canary_random(8);
    cn->threads = 32 * (1 + canary_random(8));
    cn->stride = 1 + canary_random(12);
    JudgeCall c;
    judge_begin(&c, "profile.Canary", 0);
    judge_u64(&c, cn->blocks);
    judge_u64(&c, cn->threads);
    judge_u64(&c, cn->stride);
    int64_t r = judge_finish(&c);
    if (r == 0) {
        g_profile_available = 0;
        snprintf(g_why, sizeof g_why, "this runner lacks the grader's canary kernel (common/profile_canary.cu, added by the lesson's lesson.mk), "
                                      "so nothing shows that its profiler counted");
    } else if (r != 1 && !g_disturbed[0]) {
        snprintf(g_disturbed, sizeof g_disturbed, "the grader's own kernel could not run in the profiled window");
    }
}

/* Both canaries' figures, and every launch of the window profiled (`seen`: the runner's count). */
static void check_window(uint64_t seen) {
    RpcProfile p, all;
    memset(&p, 0, sizeof p);
    memset(&all, 0, sizeof all);
    JudgeCall c;
    judge_begin(&c, "profile.Get", 0);
    judge_in(&c, "grade_profile_canary_kernel", sizeof "grade_profile_canary_kernel");
    judge_inout(&c, &p, sizeof p, "profile", NULL);
    int64_t r = judge_finish(&c);
    uint64_t warps = 0, sectors = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t w = (uint64_t)g_canary[k].blocks * g_canary[k].threads / 32;
        warps += w;
        sectors += w * (g_canary[k].stride >= 8 ? 32 : 4 * g_canary[k].stride);
    }
    if (r != 1 || p.launches != 2 || p.global_load_requests != warps || p.global_load_sectors != sectors || p.global_store_requests != warps ||
        p.global_store_sectors != 4 * warps) {
        snprintf(g_disturbed, sizeof g_disturbed,
                 "the grader's own kernel, launched once before and once after your code, came back from the profiler as %llu launch(es), "
                 "%llu load requests (%llu sectors) and %llu store requests (%llu sectors), where it made 2 launches, %llu load requests "
                 "(%llu sectors) and %llu store requests (%llu sectors): the profiler did not count throughout the window",
                 (unsigned long long)(r == 1 ? p.launches : 0), (unsigned long long)p.global_load_requests, (unsigned long long)p.global_load_sectors,
                 (unsigned long long)p.global_store_requests, (unsigned long long)p.global_store_sectors, (unsigned long long)warps,
                 (unsigned long long)sectors, (unsigned long long)warps, (unsigned long long)(4 * warps));
        return;
    }
    judge_begin(&c, "profile.Get", 0);
    judge_in(&c, "", 1); /* every kernel */
    judge_inout(&c, &all, sizeof all, "profile", NULL);
    r = judge_finish(&c);
    if (r != 1 || all.launches != seen)
        snprintf(g_disturbed, sizeof g_disturbed,
                 "the runner saw %llu kernel launches while the profiler was on, but the profiler counted %llu: some launches were kept "
                 "from it",
                 (unsigned long long)seen, (unsigned long long)(r == 1 ? all.launches : 0));
}
#endif

void grade_profile_begin(void) {
    if (sanitizing()) return;
#if ON_SIM
    JudgeCall c;
    judge_begin(&c, "profile.Control", 0);
    judge_u64(&c, 1);
    g_profile_available = judge_finish(&c) == 1;
    snprintf(g_why, sizeof g_why, "this lesson's runner was built without the simulator's profiler (PROFILED_RUNNER in its lesson.mk)");
    g_window_checked = 0;
    g_disturbed[0] = '\0';
    if (g_profile_available) run_canary(0);
#else
    const char *ncu = getenv("GRADE_NCU");
    g_profile_available = ncu && *ncu;
    g_ncu_count = 0;
    g_from_ncu = 1;
    g_measured = NULL;
    snprintf(g_why, sizeof g_why, "Nsight Compute (ncu) is not installed here");
    if (!g_profile_available) return;
    if (grade_measuring()) { /* the lesson's shared pass: this window's bounds, in its report */
        grade_measure_mark(0);
        return;
    }
    /* measured already, in the lesson's shared pass: the calls run as they are, without a tool */
    if ((g_measured = grade_measured_window())) return;
    g_ncu_started = judge_now_s();
    /* the pass waits for its GPU's lock; one that cannot get it measures nothing (and says why) */
    if (judge_ncu_begin(ncu, grade_ncu_metrics(), g_why, sizeof g_why)) g_profile_available = 0;
#endif
}

const char *grade_ncu_metrics(void) {
    static char metrics[2048];
    metrics[0] = '\0';
    for (size_t m = 1; m < NMETRICS; m++)
        if (m != TENSOR_METRIC || g_want_tensor)
            snprintf(metrics + strlen(metrics), sizeof metrics - strlen(metrics), "%s%s", m > 1 ? "," : "", kMetrics[m]);
    return metrics;
}

void grade_profile_end(void) {
    if (sanitizing()) return;
#if ON_SIM
    if (g_profile_available == 1) run_canary(1);
    JudgeCall c;
    judge_begin(&c, "profile.Control", 0);
    judge_u64(&c, 0);
    (void)judge_finish(&c);
    if (g_profile_available == 1 && !g_disturbed[0]) check_window(c.out[0]);
    g_window_checked = 1;
#else
    if (g_profile_available != 1) return;
    if (grade_measuring()) {
        grade_measure_mark(1);
        g_profile_available = 0; /* the judge reads the figures; this pass only takes them */
        return;
    }
    if (g_measured) {
        memcpy(g_ncu_kernels, g_measured->kernels, (size_t)g_measured->count * sizeof *g_ncu_kernels);
        g_ncu_count = g_measured->count;
        g_measured = NULL;
        snprintf(g_why, sizeof g_why, "Nsight Compute measured no kernel");
        if (!g_ncu_count) g_profile_available = 0;
        return;
    }
    char csv[4200];
    int measured = judge_ncu_end(csv, sizeof csv, g_why, sizeof g_why);
    g_ncu_seconds += judge_now_s() - g_ncu_started;
    if (measured) {
        snprintf(g_why, sizeof g_why, "Nsight Compute measured no kernel");
        read_ncu_csv(csv);
        unlink(csv); /* the judge's own copy of the report (judge_passes.c) */
    }
    if (!g_ncu_count) g_profile_available = 0; /* ncu ran no kernel or could not read the counters */
#endif
}

int grade_profile_get(const char *kernel, GradeProfile *out) {
    memset(out, 0, sizeof *out);
    if (g_profile_available != 1) return 0;
    RpcProfile p;
    memset(&p, 0, sizeof p);
    int64_t r = 0;
    if (g_from_ncu) {
        int found = 0;
        for (int i = 0; i < g_ncu_count; i++) {
            if (!strstr(g_ncu_kernels[i].name, kernel)) continue;
            found = 1;
            uint64_t *v = &p.launches;
            for (size_t m = 0; m < NMETRICS; m++)
                v[m] = m == TENSOR_METRIC && (v[m] == UINT64_MAX || g_ncu_kernels[i].v[m] == UINT64_MAX) ? UINT64_MAX : v[m] + g_ncu_kernels[i].v[m];
        }
        p.blocks = UINT64_MAX; /* Nsight Compute has no count of blocks that stored nothing */
        r = found ? 1 : -1;
    } else {
#if ON_SIM
        if (!g_window_checked) {
            snprintf(g_why, sizeof g_why, "the grader asked for figures before its measurement ended (a grader bug)");
            return 0;
        }
        ck_assert_msg(!g_disturbed[0],
                      "the grader cannot take this measurement of `%s`: %s. Something in the runner switched the profiler off, reset "
                      "it or kept launches from it (simcuda_profile_control and the simulator's insides are the grader's, not your "
                      "code's); no property is taken from a measurement that was not whole",
                      kernel, g_disturbed);
        JudgeCall c;
        judge_begin(&c, "profile.Get", 0);
        judge_in(&c, kernel, strlen(kernel) + 1);
        judge_inout(&c, &p, sizeof p, "profile", NULL);
        r = judge_finish(&c);
#endif
    }
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
    out->tensor_measured = p.tensor_instructions != UINT64_MAX;
    out->tensor_instructions = out->tensor_measured ? p.tensor_instructions : 0;
    out->blocks_measured = p.blocks != UINT64_MAX;
    if (out->blocks_measured) {
        out->blocks = p.blocks;
        out->blocks_storing_nothing = p.blocks_storing_nothing;
        for (int d = 0; d < 3; d++) out->storing_block_end[d] = p.storing_block_end[d], out->grid[d] = p.grid[d];
    }
    return 1;
}

/* Where nothing was measured: remember which property went unchecked (grade.c shows it). */
static int measured_or_note(const char *kernel, GradeProfile *p, const char *property) {
    if (sanitizing() || grade_measuring()) return 0;
    if (grade_profile_get(kernel, p)) return 1;
    char what[1024];
    snprintf(what, sizeof what, "%s; %s", property, g_why[0] ? g_why : "this runner cannot count");
    grade_note_unchecked(what);
    return 0;
}

double grade_per_request(unsigned long long sectors, unsigned long long requests) {
    return requests ? (double)sectors / (double)requests : 0.0;
}

int grade_profile_global(const char *kernel, double max_sectors_per_request, GradeProfile *p) {
    char what[1024];
    snprintf(what, sizeof what, "`%s`'s global loads and stores coalesced (at most %.1f sectors per request)", kernel, max_sectors_per_request);
    if (!measured_or_note(kernel, p, what)) return 0;
    if (!p->global_load_requests && !p->global_store_requests) {
        /* right values were stored, but not by it (launched with nothing to do, another kernel made them), or its code was
           not instrumented: either way nothing is measured (fails closed), and the note names both */
        snprintf(what, sizeof what, "`%s`'s global loads and stores coalesced; the profiler counted none of its accesses although the "
                 "values are right: either `%s` was launched with nothing to do and another kernel made the result (the exercise's "
                 "work must be done by `%s`), or its object was compiled without the simulator's profiler -- then rebuild it (touch "
                 "the lesson's .cu file) and grade again", kernel, kernel, kernel);
        grade_note_unchecked(what);
        return 0;
    }
    return 1;
}

void grade_require_coalesced(const char *kernel, double max_sectors_per_request) {
    GradeProfile p;
    if (!grade_profile_global(kernel, max_sectors_per_request, &p)) return;
    double ld = grade_per_request(p.global_load_sectors, p.global_load_requests);
    double st = grade_per_request(p.global_store_sectors, p.global_store_requests);
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
                  "(in %llu requests). The words one warp request touches must fall in 32 different banks (4-byte banks, bank = word "
                  "index %% 32); threads that read different words of one bank wait for each other. For a column of a [32][32] float "
                  "tile, pad each row by one element ([32][33]). `make profile LESSON=NN` shows the line",
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

int grade_profile_load_ncu_csv(const char *path) {
    g_from_ncu = 1;
    read_ncu_csv(path);
    g_profile_available = g_ncu_count > 0;
    return g_ncu_count;
}
