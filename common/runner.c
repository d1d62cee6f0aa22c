/* runner.c -- the untrusted half of the grader: maps the judge's shared page, calls the student's
   functions (and a few CUDA built-ins) when asked, and reports what they returned, which kernels
   they launched and the device memory they left allocated. It never sees an expected answer.

   The judge starts it with fd 3 = requests, fd 4 = replies, fd 5 = the shared memory (rpc.h),
   standard output and error redirected to a file, in its own process group (and PID namespace
   where the machine allows), with resource limits. Nothing here is trusted: the judge bounds and
   checks every byte it reads back. */
#define _GNU_SOURCE
#include "backend.h"
#include "runner.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static RpcPage *g_page;
static unsigned char *g_base;
static uintptr_t g_self_base;

double rc_double(const RunnerCall *c, int i) {
    double d;
    memcpy(&d, &c->req->args[i].value, sizeof d);
    return d;
}

/* ---- launches and allocations: what the student's code did, kept live in the reply so a
   timeout can still say which kernel was last launched ---- */
/* A launch of `blocks` blocks of `threads_per_block` threads; 0 and 0 where the grid was not seen (a
   GPU's observer; lesson 12's counts). */
static void track_launch_grid(const char *kernel, uint64_t threads, uint64_t blocks, uint64_t threads_per_block) {
    RpcReply *r = &g_page->rep;
    uint32_t n = r->nlaunches < RPC_MAX_LAUNCHES ? r->nlaunches : RPC_MAX_LAUNCHES;
    for (uint32_t i = 0; i < n; i++)
        if (!strncmp(r->launches[i].kernel, kernel, sizeof r->launches[i].kernel - 1)) {
            r->launches[i].launches++;
            r->launches[i].threads += threads;
            r->launches[i].blocks += blocks;
            r->launches[i].last_block_threads = threads_per_block;
            return;
        }
    if (n == RPC_MAX_LAUNCHES) return;
    snprintf(r->launches[n].kernel, sizeof r->launches[n].kernel, "%s", kernel);
    r->launches[n].launches = 1;
    r->launches[n].threads = threads;
    r->launches[n].blocks = blocks;
    r->launches[n].last_block_threads = threads_per_block;
    r->nlaunches = n + 1;
}
void track_launch(const char *kernel, uint64_t threads) { track_launch_grid(kernel, threads, 0, 0); }

/* While a student function runs: the bytes it copies from the device to the host (the simulator
   reports every copy, CUPTI's callbacks every cudaMemcpy on a GPU; a result the host computed from a
   copy of the input is not the exercise). */
static int g_in_student_call;
static uint64_t g_copied_to_host;
void track_copy_to_host(uint64_t bytes) {
    if (g_in_student_call) g_copied_to_host += bytes;
}

#if ON_SIM
#include <simcuda/timeline.h> /* SIM_TL_D2H */

/* Launches since the profiler was last switched on, whoever made them (the profiler must have
   counted every one of them: grade_profile.c). */
static uint64_t g_launches_while_profiling;

/* grade_refuse_launches_after: launches still to run before g_refuse_count are refused (0: none armed). */
static unsigned g_refuse_skip, g_refuse_count;

/* The simulator calls these hooks itself. */
void simcuda_on_launch(const char *kernel, unsigned long long blocks, unsigned long long threads_per_block) {
    g_launches_while_profiling++;
    if (g_refuse_skip && --g_refuse_skip == 0) simcuda_refuse_launches(g_refuse_count);
    track_launch_grid(kernel, blocks * threads_per_block, blocks, threads_per_block);
}
void simcuda_on_copy(int kind, unsigned long long bytes) {
    if (kind == SIM_TL_D2H) track_copy_to_host(bytes);
}
void simcuda_on_fatal(const char *message) {
    snprintf(g_page->rep.message, sizeof g_page->rep.message, "%s", message);
    g_page->rep.fatal = 1;
}
/* The simulator observes every launch itself. */
static int tracking_start(int32_t *result, int32_t *call) {
    *result = *call = 0;
    return RPC_TRACKING_ON;
}
static void live_allocations(uint64_t *count, uint64_t *bytes) {
    size_t c = 0, b = 0;
    simcuda_device_allocations(&c, &b);
    *count = c;
    *bytes = b;
}
static void where_am_i(char *buf, size_t size) { simcuda_where(buf, size); }
#else
int tracking_start_gpu(int32_t *result, int32_t *call);
void live_allocations_gpu(uint64_t *count, uint64_t *bytes);
void stream_ops_gpu(uint64_t *legacy, uint64_t *per_thread, uint64_t *other);
void graph_ops_gpu(uint64_t *graph_launches, uint64_t *prefetch_device, uint64_t *prefetch_host, uint64_t *prefetch_device_at_launch,
                   uint64_t *prefetch_host_at_launch);
uint64_t prefetched_device_bytes_gpu(uint64_t since, uint64_t until);
static int tracking_start(int32_t *result, int32_t *call) { return tracking_start_gpu(result, call); }
static void live_allocations(uint64_t *count, uint64_t *bytes) { live_allocations_gpu(count, bytes); }
static void where_am_i(char *buf, size_t size) { (void)size; buf[0] = '\0'; }
#endif

/* The observer's state, as tracking_start left it (RpcTracking). */
static int g_tracking = -1;

int runner_live_allocations(uint64_t *count, uint64_t *bytes) {
    *count = *bytes = 0;
    if (g_tracking != RPC_TRACKING_ON) return 0;
    live_allocations(count, bytes);
    return 1;
}

int runner_stream_ops(RunnerStreamOps *out) {
    memset(out, 0, sizeof *out);
#if ON_SIM
    return 0;
#else
    if (g_tracking != RPC_TRACKING_ON) return 0;
    stream_ops_gpu(&out->legacy, &out->per_thread, &out->other);
    graph_ops_gpu(&out->graph_launches, &out->prefetch_device, &out->prefetch_host, &out->prefetch_device_at_launch, &out->prefetch_host_at_launch);
    return 1;
#endif
}

uint64_t runner_prefetched_device_bytes(uint64_t since, uint64_t until) {
#if ON_SIM
    (void)since, (void)until;
    return 0;
#else
    return g_tracking == RPC_TRACKING_ON ? prefetched_device_bytes_gpu(since, until) : 0;
#endif
}

/* SIGUSR1 from the judge at a timeout: say where this process is, then wait to be killed. */
static void on_where(int sig, siginfo_t *si, void *ctx) {
    (void)sig;
    (void)si;
    RpcReply *r = &g_page->rep;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    pc = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
    (void)ctx;
#endif
    Dl_info info;
    r->where_pc = 0;
    if (pc && dladdr((void *)pc, &info) && (uintptr_t)info.dli_fbase == g_self_base) r->where_pc = pc - g_self_base;
    where_am_i(r->where, sizeof r->where);
    __atomic_store_n(&r->where_ready, 1, __ATOMIC_SEQ_CST);
}

/* ---- built-ins: the CUDA calls the judge makes to prepare and read device buffers ---- */
void CUDART_CB runner_sleep_ms(void *ms) {
    struct timespec t = {(time_t)((uintptr_t)ms / 1000), (long)((uintptr_t)ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

#define A(i) (c->req->args[i].value)
#define P(i) (c->ptr[i])
static int64_t b_malloc(const RunnerCall *c) {
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, A(0));
    return rc_reply_handle(c, p, e);
}
static int64_t b_free(const RunnerCall *c) { return cudaFree(P(0)); }
static int64_t b_memcpy(const RunnerCall *c) { return cudaMemcpy(P(0), P(1), A(2), (enum cudaMemcpyKind)A(3)); }
static int64_t b_memset(const RunnerCall *c) { return cudaMemset(P(0), (int)A(1), A(2)); }
static int64_t b_sync(const RunnerCall *c) {
    (void)c;
    return cudaDeviceSynchronize();
}
static int64_t b_get_last_error(const RunnerCall *c) {
    (void)c;
    return cudaGetLastError();
}
static int64_t b_peek_last_error(const RunnerCall *c) {
    (void)c;
    return cudaPeekAtLastError();
}
static int64_t b_error_text(const RunnerCall *c) {
    cudaError_t e = (cudaError_t)A(0);
    snprintf((char *)P(1), c->req->args[1].bytes, "%s", cudaGetErrorName(e));
    snprintf((char *)P(2), c->req->args[2].bytes, "%s", cudaGetErrorString(e));
    return 0;
}
static int64_t b_device_count(const RunnerCall *c) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    c->rep->out[0] = (uint64_t)n;
    return e;
}
static int64_t b_get_device(const RunnerCall *c) {
    int d = 0;
    cudaError_t e = cudaGetDevice(&d);
    c->rep->out[0] = (uint64_t)d;
    return e;
}
static int64_t b_properties(const RunnerCall *c) {
    if (c->req->args[0].bytes < sizeof(struct cudaDeviceProp)) return cudaErrorInvalidValue;
    return cudaGetDeviceProperties((struct cudaDeviceProp *)P(0), (int)A(1));
}
static int64_t b_versions(const RunnerCall *c) {
    int rt = 0, drv = 0;
    cudaError_t e = cudaRuntimeGetVersion(&rt);
    cudaError_t f = cudaDriverGetVersion(&drv);
    c->rep->out[0] = (uint64_t)rt;
    c->rep->out[1] = (uint64_t)drv;
    c->rep->out[2] = (uint64_t)f;
    return e;
}
static int64_t b_malloc_host(const RunnerCall *c) {
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, A(0));
    return rc_reply_handle(c, p, e);
}
static int64_t b_free_host(const RunnerCall *c) { return cudaFreeHost(P(0)); }
/* Copies between a pinned buffer and the data area: arg 0 pinned (runner address), arg 1 bytes. */
static int64_t b_pinned_read(const RunnerCall *c) {
    memcpy(P(1), P(0), c->req->args[1].bytes);
    return 0;
}
static int64_t b_hold_stream(const RunnerCall *c) { return cudaLaunchHostFunc(0, runner_sleep_ms, (void *)(uintptr_t)A(0)); }
static int64_t b_schedule(const RunnerCall *c) {
#if ON_SIM
    return simcuda_set_schedule((const char *)P(0));
#else
    (void)c;
    return 0;
#endif
}
/* The next A(1) launches after the next A(0) that run are refused (simulator only; grade_refuse_launches
   is this with A(0) = 0, and a new call replaces what an earlier one armed). 1, or 0 on a GPU. */
static int64_t b_refuse_launches_after(const RunnerCall *c) {
#if ON_SIM
    g_refuse_skip = (unsigned)A(0);
    g_refuse_count = (unsigned)A(1);
    simcuda_refuse_launches(g_refuse_skip ? 0 : g_refuse_count);
    return 1;
#else
    (void)c;
    return 0;
#endif
}
/* The next A(0) copies to or from a symbol fail (simulator only). Returns 1 when they will, 0 on a GPU. */
static int64_t b_refuse_symbol_copies(const RunnerCall *c) {
#if ON_SIM
    simcuda_refuse_symbol_copies((unsigned)A(0));
    return 1;
#else
    (void)c;
    return 0;
#endif
}
/* Of the next copies of direction A(0) (cudaMemcpy, cudaMemcpyAsync), the A(2) after the first A(1) fail
   (simulator only). Returns 1 when they will, 0 on a GPU. */
static int64_t b_refuse_copies(const RunnerCall *c) {
#if ON_SIM
    simcuda_refuse_copies((cudaMemcpyKind)A(0), (unsigned)A(1), (unsigned)A(2));
    return 1;
#else
    (void)c;
    return 0;
#endif
}
/* The race check (simulator builds made with `simcc --profile`): on/off for the launches that
   follow. Returns 1 when this runner can check, 0 when it cannot. */
static int64_t b_racecheck(const RunnerCall *c) {
#if ON_SIM
    return simcuda_racecheck((int)A(0));
#else
    (void)c;
    return 0;
#endif
}
/* The profiler (simulator builds made with `simcc --profile`): on/off, and one kernel's figures.
   Returns 1 with the figures, 0 when this runner cannot count, -1 when the kernel never ran.
   Switching off also says (out[0]) how many launches the runner saw since it was switched on. */
static int64_t b_profile_control(const RunnerCall *c) {
#if ON_SIM
    int r = simcuda_profile_control((int)A(0)); /* waits for the launches queued before */
    if (A(0)) g_launches_while_profiling = 0;
    c->rep->out[0] = g_launches_while_profiling;
    return r;
#else
    (void)c;
    return 0;
#endif
}
/* The grader's own kernel (common/profile_canary.cu, linked into the profiled lessons' runners):
   args blocks, threads, stride. 1 when it ran, 0 when this runner has none, -1 when it failed. */
int grade_profile_canary(unsigned blocks, unsigned threads, unsigned stride) __attribute__((weak));
static int64_t b_profile_canary(const RunnerCall *c) {
    if (!grade_profile_canary) return 0;
    return grade_profile_canary((unsigned)A(0), (unsigned)A(1), (unsigned)A(2)) == 0 ? 1 : -1;
}
static int64_t b_profile_get(const RunnerCall *c) {
    if (c->req->args[1].bytes < sizeof(RpcProfile)) return 0;
#if ON_SIM
    if (!c->req->args[0].bytes) return 0;
    ((char *)P(0))[c->req->args[0].bytes - 1] = '\0';
    struct simcuda_kernel_profile k;
    int r = simcuda_profile_kernel((const char *)P(0), &k);
    RpcProfile *o = (RpcProfile *)P(1);
    o->launches = k.launches;
    o->global_load_requests = k.global_load_requests;
    o->global_load_sectors = k.global_load_sectors;
    o->global_store_requests = k.global_store_requests;
    o->global_store_sectors = k.global_store_sectors;
    o->shared_load_requests = k.shared_load_requests;
    o->shared_load_conflicts = k.shared_load_conflicts;
    o->shared_store_requests = k.shared_store_requests;
    o->shared_store_conflicts = k.shared_store_conflicts;
    o->warp_instructions = k.warp_instructions;
    o->thread_instructions = k.thread_instructions;
    o->branches = k.branches;
    o->divergent_branches = k.divergent_branches;
    o->tensor_instructions = k.tensor_instructions;
    o->atomics = k.atomics;
    o->atomics_on_busiest_address = k.atomics_on_busiest_address;
    o->blocks = k.blocks;
    o->blocks_storing_nothing = k.blocks_storing_nothing;
    for (int d = 0; d < 3; d++) o->storing_block_end[d] = k.storing_block_end[d], o->grid[d] = k.grid[d];
    return r;
#else
    return 0;
#endif
}
#undef A
#undef P

static const RunnerFunction kBuiltins[] = {
    {"cuda.Malloc", b_malloc},           {"cuda.Free", b_free},
    {"cuda.Memcpy", b_memcpy},           {"cuda.Memset", b_memset},
    {"cuda.DeviceSynchronize", b_sync},  {"cuda.GetLastError", b_get_last_error},
    {"cuda.PeekAtLastError", b_peek_last_error}, {"cuda.ErrorText", b_error_text},
    {"cuda.GetDeviceCount", b_device_count}, {"cuda.GetDevice", b_get_device},
    {"cuda.GetDeviceProperties", b_properties}, {"cuda.Versions", b_versions},
    {"cuda.MallocHost", b_malloc_host},  {"cuda.FreeHost", b_free_host},
    {"pinned.Read", b_pinned_read},      {"grade.HoldStream", b_hold_stream},
    {"sim.Schedule", b_schedule},        {"sim.Racecheck", b_racecheck},
    {"profile.Control", b_profile_control},
    {"sim.RefuseLaunchesAfter", b_refuse_launches_after}, {"sim.RefuseSymbolCopies", b_refuse_symbol_copies},
    {"sim.RefuseCopies", b_refuse_copies},
    {"profile.Get", b_profile_get},      {"profile.Canary", b_profile_canary},
    {NULL, NULL},
};

static RunnerFn lookup(const RunnerFunction *t, const char *name) {
    for (; t->name; t++)
        if (!strcmp(t->name, name)) return t->fn;
    return NULL;
}

static int read_all(int fd, void *p, size_t n) {
    unsigned char *b = p;
    while (n) {
        ssize_t k = read(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static void write_seq(uint64_t seq) {
    while (write(RPC_FD_REPLY, &seq, sizeof seq) < 0 && errno == EINTR) {
    }
}

/* Decodes one request into pointers; 0 when every buffer lies inside the mapping. */
static int decode(const RpcRequest *q, RunnerCall *c) {
    if (q->nargs > RPC_MAX_ARGS) return -1;
    for (uint32_t i = 0; i < q->nargs; i++) {
        const RpcArg *a = &q->args[i];
        if (a->kind == RPC_ARG_VALUE || a->kind == RPC_ARG_DOUBLE || a->kind == RPC_ARG_PINNED) {
            c->ptr[i] = (void *)(uintptr_t)a->value;
        } else if (a->kind == RPC_ARG_IN || a->kind == RPC_ARG_INOUT) {
            if (a->offset < RPC_DATA_OFFSET || a->offset > RPC_SHM_BYTES || a->bytes > RPC_SHM_BYTES - a->offset) return -1;
            c->ptr[i] = a->value ? g_base + a->offset : NULL;
        } else {
            return -1;
        }
    }
    return 0;
}

int main(void) {
    void *m = mmap(NULL, RPC_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, RPC_FD_SHM, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "runner: cannot map the judge's shared memory: %s (start it through the grader)\n", strerror(errno));
        return 3;
    }
    g_base = m;
    g_page = m;
    if (g_page->magic != RPC_MAGIC) {
        fprintf(stderr, "runner: the shared memory is not the judge's (start it through the grader)\n");
        return 3;
    }
    Dl_info self;
    if (dladdr((void *)main, &self)) g_self_base = (uintptr_t)self.dli_fbase;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_where;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    /* abort() is to end the process with SIGABRT, named as such by the judge, not to be caught. */
    signal(SIGABRT, SIG_DFL);
    g_page->runner_pid_hint = (uint32_t)getpid();
    int32_t tracking_result = 0, tracking_call = 0;
    int tracking = tracking_start(&tracking_result, &tracking_call);
    g_tracking = tracking;
    write_seq(0); /* ready */

    for (;;) {
        uint64_t seq;
        if (read_all(RPC_FD_REQUEST, &seq, sizeof seq)) return 0; /* the judge is done */
        RpcRequest q = g_page->req;
        q.name[RPC_NAME_BYTES - 1] = '\0';
        RpcReply *r = &g_page->rep;
        memset(r, 0, sizeof *r);
        r->tracking = tracking;
        r->tracking_result = tracking_result;
        r->tracking_call = tracking_call;
        RunnerCall c = {.req = &q, .rep = r};
        RunnerFn fn = lookup(kBuiltins, q.name);
        if (!fn) fn = lookup(runner_functions, q.name);
        if (!fn) {
            r->status = RPC_NO_SUCH_FUNCTION;
        } else if (decode(&q, &c)) {
            r->status = RPC_BAD_REQUEST;
        } else {
            /* Pinned buffers: the judge's bytes go in before the call and come back right after it. */
            for (uint32_t i = 0; i < q.nargs; i++)
                if (q.args[i].kind == RPC_ARG_PINNED && q.args[i].bytes) memcpy(c.ptr[i], g_base + q.args[i].offset, q.args[i].bytes);
            /* Host inputs of a student's function, each in a heap block of exactly its size: a read past
               one (08.2's sizeof(c_filter) from a smaller filter, trial 11) then reaches no other
               argument's bytes, and on the simulator AddressSanitizer reports it. */
            void *in_copy[RPC_MAX_ARGS] = {0};
            for (uint32_t i = 0; q.student && i < q.nargs; i++)
                if (q.args[i].kind == RPC_ARG_IN && c.ptr[i] && q.args[i].bytes && (in_copy[i] = malloc(q.args[i].bytes))) {
                    memcpy(in_copy[i], c.ptr[i], q.args[i].bytes);
                    c.ptr[i] = in_copy[i];
                }
            if (q.student) live_allocations(&r->allocs_before, &r->bytes_before);
            g_in_student_call = q.student;
            g_copied_to_host = 0;
            r->ret = fn(&c);
            g_in_student_call = 0;
            r->copied_to_host = g_copied_to_host;
            if (q.student) live_allocations(&r->allocs_after, &r->bytes_after);
            for (uint32_t i = 0; i < q.nargs; i++)
                if (q.args[i].kind == RPC_ARG_PINNED && q.args[i].bytes) memcpy(g_base + q.args[i].offset, c.ptr[i], q.args[i].bytes);
            for (uint32_t i = 0; i < q.nargs; i++) free(in_copy[i]);
        }
        fflush(stdout);
        fflush(stderr);
        r->seq = seq;
        write_seq(seq);
    }
}
