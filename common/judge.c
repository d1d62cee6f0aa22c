/* judge.c -- the trusted half of the grader: calls into the runner (the only program linked with
   the student's code), the current exercise's bookkeeping, and CUDA's error texts. The runner's
   sandbox and life are in judge_runner.c, the GPU tools' passes in judge_passes.c; judge.h has the
   contract and rpc.h the wire. */
#define _GNU_SOURCE
#include "judge_internal.h"

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h> /* SIMCUDA tells the backend */

static char g_broken[4800];        /* set when a runner failure stopped the current exercise */
static char g_exercise[16];
typedef struct {
    char kernel[96];
    long launches;
} LaunchCount;
static LaunchCount g_launches[64];
static int g_nlaunch_kinds;
/* What the runners of the current exercise said of their launch observer (rpc.h, RpcTracking):
   one said CUPTI is not installed; one said CUPTI refused it (the first refusal's call and result). */
static int g_observer_absent, g_observer_refused;
static int32_t g_refused_call, g_refused_result;

/* ---- failures ---- */
static char g_message[8192];

/* Ends the test (Check runs tests in this process: this long-jumps out). */
static void fail_now(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail_now(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    ck_abort_msg("%s", g_message);
    abort(); /* not reached */
}

/* What the call was, for messages: name(number, number, ...). */
static void describe_call(const JudgeCall *c, char *buf, size_t size) {
    if (!c->req.student && !strncmp(c->req.name, "cuda.", 5)) {
        /* the grader's own CUDA call; the kernels queued before it run (and fail) inside it */
        snprintf(buf, size, "the grader's cuda%s (which first waits for the kernels launched before it)", c->req.name + 5);
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "%s(", c->req.name);
    for (uint32_t i = 0; i < c->req.nargs && len < size; i++) {
        const RpcArg *a = &c->req.args[i];
        const char *sep = i ? ", " : "";
        if (a->kind == RPC_ARG_VALUE && a->value < (1ull << 32)) len += (size_t)snprintf(buf + len, size - len, "%s%llu", sep, (unsigned long long)a->value);
        else if (a->kind == RPC_ARG_VALUE && (int64_t)a->value < 0 && (int64_t)a->value > -(1ll << 31))
            len += (size_t)snprintf(buf + len, size - len, "%s%lld", sep, (long long)a->value);
        else if (a->kind == RPC_ARG_DOUBLE) {
            double d;
            memcpy(&d, &a->value, sizeof d);
            len += (size_t)snprintf(buf + len, size - len, "%s%g", sep, d);
        } else
            len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, a->kind == RPC_ARG_VALUE ? "ptr" : "buf");
    }
    if (len < size) snprintf(buf + len, size - len, ")");
}

static void last_launch(char *buf, size_t size) {
    RpcReply *r = &g_page->rep;
    uint32_t n = r->nlaunches < RPC_MAX_LAUNCHES ? r->nlaunches : RPC_MAX_LAUNCHES;
    buf[0] = '\0';
    if (!n) return;
    char k[96];
    memcpy(k, r->launches[n - 1].kernel, sizeof k);
    k[sizeof k - 1] = '\0';
    snprintf(buf, size, " (the last kernel it launched: %s)", k);
}

/* The runner did not answer the call: say why, end it, and stop this exercise. */
static const char *(*g_crash_hint)(const char *message);
void judge_set_crash_hint(const char *(*hint)(const char *message)) { g_crash_hint = hint; }

/* The simulator words it: "out-of-bounds access in kernel 'K' ... block (x,y,z), thread (x,y,z) ...
   B-byte read ... of a S-byte buffer of device memory ... (index I if its elements are E bytes)". */
int judge_oob_read(const char *said, const char *kernel, JudgeOobRead *r) {
    char head[300];
    snprintf(head, sizeof head, "out-of-bounds access in kernel '%s'", kernel);
    const char *at = strstr(said, head);
    if (!at || !strstr(at, "-byte read")) return 0;
    const char *blk = strstr(at, "block ("), *buf = strstr(at, "-byte buffer of device memory"), *idx = strstr(at, "(index ");
    if (!blk || !buf || !idx ||
        sscanf(blk, "block (%u,%u,%u), thread (%u,%u,%u)", &r->block[0], &r->block[1], &r->block[2], &r->thread[0], &r->thread[1],
               &r->thread[2]) != 6 ||
        sscanf(idx, "(index %zu if its elements are %zu bytes)", &r->index, &r->elem_bytes) != 2)
        return 0;
    const char *num = buf;
    while (num > at && num[-1] >= '0' && num[-1] <= '9') num--;
    return sscanf(num, "%zu", &r->buffer_bytes) == 1;
}

static void runner_failed(const JudgeCall *c, int timed_out, int over_memory) {
    char call[600], how[2048], tail[1600] = "", extra[1200] = "";
    describe_call(c, call, sizeof call);
    int sim_fatal = 0;
    char sim_message[RPC_MESSAGE_BYTES];
    if (timed_out) {
        where_stuck(extra, sizeof extra);
        if (!extra[0]) last_launch(extra, sizeof extra);
        snprintf(how, sizeof how,
                 "did not finish within %ld s%s. An endless loop, threads waiting for each other, or a kernel far slower than it "
                 "should be (GRADE_TIMEOUT=<seconds> allows more)",
                 env_long("GRADE_TIMEOUT", DEFAULT_CALL_TIMEOUT_S), extra);
        end_runner(0.1);
    } else if (over_memory) {
        snprintf(how, sizeof how, "used more than %ld MiB of host memory and was stopped (GRADE_MEMORY_MB raises the limit)",
                 env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB));
        end_runner(0.1);
    } else {
        int st = end_runner(0.1);
        if (g_page->rep.fatal) {
            memcpy(sim_message, g_page->rep.message, sizeof sim_message);
            sim_message[sizeof sim_message - 1] = '\0';
            sim_fatal = 1;
        }
        describe_end(st, how, sizeof how);
        output_tail(tail, sizeof tail);
    }
    char tool_why[1200];
    if (g_runner.tool && pass_ended_by_tool(tool_why, sizeof tool_why)) {
        /* the profiler around the runner ended it on its own: never the student's exit() or crash */
        snprintf(g_broken, sizeof g_broken,
                 "%s could not finish: %s. That is the grader's profiler failing (another grading's profiler on the same GPU, "
                 "say), not your code", call, tool_why);
        fail_now("%s", g_broken);
    }
    const char *under = g_runner.tool == TOOL_NCU ? " (it ran under Nsight Compute, the grader's profiler)"
                        : g_runner.tool ? " (it ran under compute-sanitizer)" : "";
    if (sim_fatal)
        snprintf(g_broken, sizeof g_broken, "%s: %s", call, sim_message);
    else
        snprintf(g_broken, sizeof g_broken, "%s %s%s%s", call, how, under, tail);
    const char *hint = g_crash_hint && !timed_out && !over_memory ? g_crash_hint(g_broken) : NULL;
    /* Host code that read past a heap array (the simulator's AddressSanitizer; each host input of a
       student's function lies in a block of exactly its size: common/runner.c). No lesson knows
       better: the array is the caller's or the student's own. */
    if (!hint && sim_fatal && strstr(g_broken, "-byte read of address") && strstr(g_broken, "(heap-buffer-overflow)") &&
        !strstr(g_broken, "in kernel"))
        hint = "host code read past the end of a heap array: a copy or a loop given more than the array holds -- "
               "sizeof of a larger array (a __constant__ or static array's whole size, where the caller's array is smaller), "
               "or a count in bytes where elements are meant; the grader's host arrays are exactly the size the "
               "function's contract gives";
    if (hint) {
        /* The lesson's hint is decided from what the grader knows of the call (its sizes, its
           buffers); the simulator's own "(hint: ...)" is a general guess from the fault alone, and
           where the two differ the student would get two causes: keep the lesson's. */
        char *sim_hint = strstr(g_broken, " (hint: ");
        for (char *next; sim_hint && (next = strstr(sim_hint + 1, " (hint: ")) != NULL;) sim_hint = next;
        if (sim_hint) {
            size_t end = strlen(g_broken);
            while (end > 0 && (g_broken[end - 1] == '\n' || g_broken[end - 1] == ' ')) end--;
            if (end > 0 && g_broken[end - 1] == ')') *sim_hint = '\0';
        }
        size_t len = strlen(g_broken);
        snprintf(g_broken + len, sizeof g_broken - len, "\n  likely mistake: %s", hint);
    }
    fail_now("%s", g_broken);
}

/* ---- calls ---- */
double g_runner_call_seconds;

void judge_sanitize_skip_large(size_t bytes) {
    if (!judge_sanitizing()) return;
    long limit = env_long("GRADE_SANITIZE_MAX_BYTES", 4l << 20);
    if ((unsigned long long)bytes > (unsigned long long)limit)
        fail_now("not run under compute-sanitizer: a large case (a buffer of %zu bytes; the sanitizer checks the cases with buffers of at "
                 "most %ld bytes)", bytes, limit);
}

void judge_begin(JudgeCall *c, const char *name, int student) {
    shm_setup();
    memset(c, 0, sizeof *c);
    snprintf(c->req.name, sizeof c->req.name, "%s", name);
    c->req.student = (uint32_t)student;
    c->data_end = RPC_DATA_OFFSET;
}

static RpcArg *next_arg(JudgeCall *c) {
    if (c->req.nargs >= RPC_MAX_ARGS) {
        fprintf(stderr, "grader bug: %s has more than %d arguments\n", c->req.name, RPC_MAX_ARGS);
        abort();
    }
    return &c->req.args[c->req.nargs++];
}

void judge_u64(JudgeCall *c, uint64_t v) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_VALUE;
    a->value = v;
}

void judge_double(JudgeCall *c, double v) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_DOUBLE;
    memcpy(&a->value, &v, sizeof v);
}

static uint64_t reserve(JudgeCall *c, size_t bytes) {
    uint64_t at = (c->data_end + 255) & ~255ull;
    if (bytes > RPC_SHM_BYTES - RPC_GUARD_BYTES || at > RPC_SHM_BYTES - RPC_GUARD_BYTES - bytes) {
        fprintf(stderr, "grader bug: %s passes more than %llu MiB\n", c->req.name, (unsigned long long)(RPC_SHM_BYTES >> 20));
        abort();
    }
    c->data_end = at + bytes + RPC_GUARD_BYTES;
    return at;
}

void judge_in(JudgeCall *c, const void *host, size_t bytes) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_IN;
    a->value = host != NULL;
    a->bytes = bytes;
    a->offset = reserve(c, bytes);
    if (host && bytes) memcpy(g_base + a->offset, host, bytes);
}

void judge_inout(JudgeCall *c, void *host, size_t bytes, const char *name, const char *overflow_hint) {
    int i = (int)c->req.nargs;
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_INOUT;
    a->value = host != NULL;
    a->bytes = bytes;
    a->offset = reserve(c, bytes);
    c->host[i] = host;
    c->arg_name[i] = name;
    c->overflow_hint[i] = overflow_hint;
    if (host && bytes) memcpy(g_base + a->offset, host, bytes);
    memset(g_base + a->offset + bytes, RPC_GUARD_BYTE, RPC_GUARD_BYTES);
}

void judge_out(JudgeCall *c, void *host, size_t bytes, const char *name) {
    int i = (int)c->req.nargs;
    judge_inout(c, NULL, bytes, name, NULL); /* the same argument, with nothing copied in */
    c->req.args[i].value = host != NULL;
    c->host[i] = host;
    c->out_only[i] = 1;
}

/* ---- pinned host memory (cudaMallocHost): a local copy here, the real buffer in the runner ---- */
typedef struct {
    void *local;
    uint64_t remote;
    size_t bytes;
} Pinned;
static Pinned g_pinned[64];

void judge_pinned_add(void *local, uint64_t remote, size_t bytes) {
    for (int i = 0; i < 64; i++)
        if (!g_pinned[i].local) {
            g_pinned[i] = (Pinned){local, remote, bytes};
            return;
        }
}

void judge_pinned_remove(void *local) {
    for (int i = 0; i < 64; i++)
        if (g_pinned[i].local == local) g_pinned[i].local = NULL;
}

static Pinned *pinned_of(const void *p) {
    for (int i = 0; i < 64; i++)
        if (g_pinned[i].local && (const char *)p >= (const char *)g_pinned[i].local &&
            (const char *)p < (const char *)g_pinned[i].local + (g_pinned[i].bytes ? g_pinned[i].bytes : 1))
            return &g_pinned[i];
    return NULL;
}

void judge_ptr(JudgeCall *c, const void *p) {
    Pinned *pin = p ? pinned_of(p) : NULL;
    if (!pin) {
        judge_u64(c, (uint64_t)(uintptr_t)p);
        return;
    }
    size_t skip = (size_t)((const char *)p - (const char *)pin->local);
    int i = (int)c->req.nargs;
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_PINNED;
    a->value = pin->remote + skip;
    a->bytes = pin->bytes - skip;
    a->offset = reserve(c, a->bytes);
    c->host[i] = (void *)p;
    memcpy(g_base + a->offset, p, a->bytes);
}

void judge_refresh_pinned(void) {
    for (int i = 0; i < 64; i++) {
        if (!g_pinned[i].local || !g_pinned[i].bytes) continue;
        JudgeCall c;
        judge_begin(&c, "pinned.Read", 0);
        judge_u64(&c, g_pinned[i].remote);
        judge_inout(&c, g_pinned[i].local, g_pinned[i].bytes, "pinned", NULL);
        judge_finish(&c);
    }
}

/* A runner's word on its observer. Under Nsight Compute or compute-sanitizer CUPTI's one
   subscriber is the tool's (CUPTI refuses the runner by design): such a runner's refusal is
   expected, and what it did observe still counts. */
static void note_observer(const RpcReply *r) {
    if (g_runner.tool || r->tracking == RPC_TRACKING_ON) return;
    if (r->tracking == RPC_TRACKING_ABSENT) {
        g_observer_absent = 1;
    } else if (!g_observer_refused) {
        /* RPC_TRACKING_REFUSED, or any other value: the runner's word, never taken for "observed" */
        g_observer_refused = 1;
        g_refused_call = r->tracking == RPC_TRACKING_REFUSED ? r->tracking_call : RPC_TRACKING_CALL_NONE;
        g_refused_result = r->tracking == RPC_TRACKING_REFUSED ? r->tracking_result : 0;
    }
}

/* The launches of the last student call, as the runner reported them (judge_last_call_grid). */
static RpcLaunch g_last_call[RPC_MAX_LAUNCHES];
static uint32_t g_last_call_n;

static void count_launches(const RpcReply *r) {
    note_observer(r);
    uint32_t n = r->nlaunches < RPC_MAX_LAUNCHES ? r->nlaunches : RPC_MAX_LAUNCHES;
    memcpy(g_last_call, r->launches, n * sizeof *g_last_call);
    g_last_call_n = r->tracking == RPC_TRACKING_ON ? n : 0;
    for (uint32_t i = 0; i < n; i++) {
        char k[96];
        memcpy(k, r->launches[i].kernel, sizeof k);
        k[sizeof k - 1] = '\0';
        int j = 0;
        while (j < g_nlaunch_kinds && strcmp(g_launches[j].kernel, k)) j++;
        if (j == g_nlaunch_kinds) {
            if (j == 64) continue;
            g_nlaunch_kinds++;
            memcpy(g_launches[j].kernel, k, sizeof k);
            g_launches[j].launches = 0;
        }
        g_launches[j].launches += (long)(r->launches[i].launches > 1000000 ? 1000000 : r->launches[i].launches);
    }
}

static off_t g_call_output_start;

void judge_last_call_output(char *buf, size_t size) {
    format_output(g_call_output_start, output_size(), 0, "what the CUDA runtime printed during that call:", 300, buf, size);
}

static int (*g_failure_probe)(void);
void judge_set_failure_probe(int (*probe)(void)) { g_failure_probe = probe; }

static uint64_t g_copied_to_host, g_exercise_copied_to_host;
uint64_t judge_copied_to_host(void) { return g_copied_to_host; }
uint64_t judge_exercise_copied_to_host(void) { return g_exercise_copied_to_host; }

int64_t judge_finish(JudgeCall *c) {
    char call[600];
    if (g_start_failure[0]) fail_now("%s", g_start_failure);
    if (g_failure_probe && g_failure_probe()) {
        describe_call(c, call, sizeof call);
        fail_now("%s was not run: an earlier case of this exercise already failed (its diagnosis is the one shown)", call);
    }
    if (g_broken[0]) {
        describe_call(c, call, sizeof call);
        fail_now("%s was not run: an earlier case of this exercise already failed this way: %s", call, g_broken);
    }
    if (c->req.student)
        for (uint32_t i = 0; i < c->req.nargs; i++)
            if (c->req.args[i].kind == RPC_ARG_IN || c->req.args[i].kind == RPC_ARG_INOUT || c->req.args[i].kind == RPC_ARG_PINNED)
                judge_sanitize_skip_large(c->req.args[i].bytes);
    if (!g_runner.alive && start_runner()) fail_now("%s", g_start_failure);
    g_call_output_start = output_size();
    RpcPage *pg = g_page;
    pg->req = c->req;
    pg->req.seq = ++g_runner.seq;
    pg->rep.fatal = 0;
    pg->rep.nlaunches = 0;
    uint64_t seq = pg->req.seq;
    double sent = judge_now_s();
    if (write(g_runner.req_fd, &seq, sizeof seq) != (ssize_t)sizeof seq) runner_failed(c, 0, 0);
    int over = 0;
    int r = wait_readable(g_runner.rep_fd, judge_now_s() + env_long("GRADE_TIMEOUT", DEFAULT_CALL_TIMEOUT_S) * (g_tool_argv[0] ? 20 : 1),
                          env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB), &over);
    uint64_t back = 0;
    if (r != 1) runner_failed(c, r == 0, over);
    if (read(g_runner.rep_fd, &back, sizeof back) != (ssize_t)sizeof back || back != seq) runner_failed(c, 0, 0);
    g_runner_call_seconds += judge_now_s() - sent;
    /* From here on, the reply is the runner's word: bounded, copied, never trusted further. */
    RpcReply rep = pg->rep;
    if (rep.seq != seq) runner_failed(c, 0, 0);
    describe_call(c, call, sizeof call);
    if (rep.status == RPC_NO_SUCH_FUNCTION) {
        fprintf(stderr, "grader bug: the runner has no function %s\n", c->req.name);
        abort();
    }
    if (rep.status != RPC_OK) {
        fprintf(stderr, "grader bug: the runner could not decode %s\n", call);
        abort();
    }
    memcpy(c->out, rep.out, sizeof c->out);
    for (uint32_t i = 0; i < c->req.nargs; i++) {
        const RpcArg *a = &c->req.args[i];
        if ((a->kind == RPC_ARG_INOUT || a->kind == RPC_ARG_PINNED) && c->host[i] && a->bytes && !(c->out_only[i] && rep.ret != 0))
            memcpy(c->host[i], g_base + a->offset, a->bytes);
    }
    if (c->req.student) {
        g_copied_to_host = rep.copied_to_host;
        if (g_copied_to_host > g_exercise_copied_to_host) g_exercise_copied_to_host = g_copied_to_host;
        count_launches(&rep);
        for (uint32_t i = 0; i < c->req.nargs; i++) {
            const RpcArg *a = &c->req.args[i];
            if (a->kind != RPC_ARG_INOUT || !c->host[i]) continue;
            const unsigned char *g = g_base + a->offset + a->bytes;
            for (int k = 0; k < RPC_GUARD_BYTES; k++)
                if (g[k] != RPC_GUARD_BYTE)
                    fail_now("%s wrote past the end of the %llu bytes it was given in `%s` (byte %llu of it)%s%s", call,
                             (unsigned long long)a->bytes, c->arg_name[i] ? c->arg_name[i] : "an argument", (unsigned long long)a->bytes + k,
                             c->overflow_hint[i] ? "\n  likely mistake: " : "", c->overflow_hint[i] ? c->overflow_hint[i] : "");
        }
        if (rep.tracking == RPC_TRACKING_ON && rep.allocs_after > rep.allocs_before)
            fail_now("%s returned with %llu more device allocation(s) than before the call (%llu bytes still allocated)\n"
                     "  likely mistake: every cudaMalloc needs its cudaFree before the function returns, on the error paths too (and so "
                     "does every cudaMallocManaged)",
                     call, (unsigned long long)(rep.allocs_after - rep.allocs_before),
                     (unsigned long long)(rep.bytes_after > rep.bytes_before ? rep.bytes_after - rep.bytes_before : 0));
    }
    return rep.ret;
}

/* ---- exercises ---- */
void judge_exercise_begin(const char *id) {
    snprintf(g_exercise, sizeof g_exercise, "%s", id);
    g_broken[0] = '\0';
    g_nlaunch_kinds = 0;
    g_exercise_copied_to_host = 0;
    g_observer_absent = g_observer_refused = 0;
    passes_exercise_begin();
}

/* Matches a kernel's name as the simulator reports it ("ns::k<float>") or as CUPTI does (the
   mangled symbol "_Z17vector_add_kernelPKfS0_Pfm", or a plain extern "C" name). */
static int kernel_matches(const char *reported, const char *want) {
    size_t n = strlen(want);
    if (!strncmp(reported, want, n) && (reported[n] == '\0' || reported[n] == '<' || reported[n] == '(')) return 1;
    char mangled[128];
    snprintf(mangled, sizeof mangled, "%zu%s", n, want);
    const char *m = strstr(reported, mangled);
    return m && reported[0] == '_' && m > reported && !(m[-1] >= '0' && m[-1] <= '9');
}

long judge_exercise_launches(const char *kernel) {
    long total = 0;
    for (int i = 0; i < g_nlaunch_kinds; i++)
        if (kernel_matches(g_launches[i].kernel, kernel)) total += g_launches[i].launches;
    if (g_observer_refused || (!total && g_observer_absent)) return -1;
    return total;
}

int judge_last_call_grid(const char *kernel, unsigned long long *blocks, unsigned long long *block_threads) {
    int found = 0, seen = 1;
    *blocks = *block_threads = 0;
    for (uint32_t i = 0; i < g_last_call_n; i++) {
        char k[96];
        memcpy(k, g_last_call[i].kernel, sizeof k);
        k[sizeof k - 1] = '\0';
        if (!kernel_matches(k, kernel)) continue;
        found += g_last_call[i].launches > 1000000 ? 1000000 : (int)g_last_call[i].launches;
        if (!g_last_call[i].blocks || !g_last_call[i].last_block_threads) seen = 0;
        *blocks += g_last_call[i].blocks;
        *block_threads = g_last_call[i].last_block_threads;
    }
    return found && seen ? found : found ? -1 : 0;
}

/* CUPTI's results (cupti_result.h) that a refused subscriber meets, by name. */
static const char *cupti_result_name(int32_t r) {
    switch (r) {
    case 1: return "CUPTI_ERROR_INVALID_PARAMETER";
    case 7: return "CUPTI_ERROR_INVALID_OPERATION";
    case 8: return "CUPTI_ERROR_OUT_OF_MEMORY";
    case 14: return "CUPTI_ERROR_NOT_COMPATIBLE";
    case 15: return "CUPTI_ERROR_NOT_INITIALIZED";
    case 23: return "CUPTI_ERROR_DISABLED";
    case 26: return "CUPTI_ERROR_HARDWARE_BUSY";
    case 27: return "CUPTI_ERROR_NOT_SUPPORTED";
    case 33: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
    case 35: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case 39: return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    case 40: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case 41: return "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
    case 999: return "CUPTI_ERROR_UNKNOWN";
    default: return NULL;
    }
}

const char *judge_launch_observer_refused(void) {
    static char why[400];
    if (!g_observer_refused) return NULL;
    const char *name = cupti_result_name(g_refused_result);
    char result[64];
    if (name) snprintf(result, sizeof result, "%s", name);
    else snprintf(result, sizeof result, "CUPTI error %d", (int)g_refused_result);
    if (g_refused_call == RPC_TRACKING_CALL_SUBSCRIBE && g_refused_result == 39)
        snprintf(why, sizeof why, "launches could not be observed: another CUPTI subscriber was active (cuptiSubscribe returned %s)", result);
    else if (g_refused_call == RPC_TRACKING_CALL_SUBSCRIBE || g_refused_call == RPC_TRACKING_CALL_ENABLE)
        snprintf(why, sizeof why, "launches could not be observed: CUPTI would not take the grader's observer (%s returned %s)",
                 g_refused_call == RPC_TRACKING_CALL_SUBSCRIBE ? "cuptiSubscribe" : "cuptiEnableDomain", result);
    else if (g_refused_call == RPC_TRACKING_CALL_LOOKUP)
        snprintf(why, sizeof why, "launches could not be observed: the CUPTI library found lacks cuptiSubscribe or cuptiEnableDomain");
    else
        snprintf(why, sizeof why, "launches could not be observed: the runner did not say its observer was working");
    return why;
}

const char *judge_exercise_broken(void) { return g_broken[0] ? g_broken : NULL; }

void judge_forget_failure(void) { g_broken[0] = '\0'; }

void judge_shutdown(void) {
    runner_cleanup();
}

/* ---- error texts, asked of the runner's CUDA once per code ---- */
typedef struct {
    int code;
    char name[96], text[160];
} ErrorText;
static ErrorText g_errors[64];
static int g_nerrors;

static const ErrorText *error_text(int code) {
    for (int i = 0; i < g_nerrors; i++)
        if (g_errors[i].code == code) return &g_errors[i];
    static ErrorText fallback;
    fallback.code = code;
    snprintf(fallback.name, sizeof fallback.name, "cudaError(%d)", code);
    snprintf(fallback.text, sizeof fallback.text, "CUDA error %d", code);
    if (g_start_failure[0] || g_broken[0] || g_nerrors == 64) return &fallback;
    ErrorText *t = &g_errors[g_nerrors];
    t->code = code;
    JudgeCall c;
    judge_begin(&c, "cuda.ErrorText", 0);
    judge_u64(&c, (uint64_t)(int64_t)code);
    judge_inout(&c, t->name, sizeof t->name, "name", NULL);
    judge_inout(&c, t->text, sizeof t->text, "text", NULL);
    judge_finish(&c);
    t->name[sizeof t->name - 1] = t->text[sizeof t->text - 1] = '\0';
    g_nerrors++;
    return t;
}

const char *judge_error_name(int code) { return error_text(code)->name; }
const char *judge_error_string(int code) { return error_text(code)->text; }

