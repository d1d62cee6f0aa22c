/* calls/15-multi-gpu.c -- lesson 15's functions across the judge/runner boundary, one row each
   (common/calls_table.h makes the judge's stubs).
   The student's functions need buffers on several devices, which the judge's own CUDA calls
   cannot make (they reach the runner's current device only), so three runner-side helpers wrap
   them: each puts the inputs where they belong, calls the student's functions, reads the results
   back at two moments (right when the function returned, and after the runner waited for every
   device: a difference is work the function did not wait for) and reports what it saw. Nothing
   here judges: the judge compares with the CPU reference. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "multigpu.h"
#include "15-multi-gpu.h"

/* mg_split alone (trial 7, a112: shares that overlap were first seen as a stream race between two
   devices' copies, ordering the streams the only advice): the judge checks the shares before a plan */
#define CALLS(X)                                                                                                               \
    X(void, mg_split, NUM(size_t, n), NUM(int, ndev), NUM(int, d), INOUT(size_t *, first, sizeof *first, "first", NULL),       \
      INOUT(size_t *, count, sizeof *count, "count", NULL))
/* the runner-side helpers below (call_NAME); the two 15.2 calls take the same buffers: the plain
   one, and the one with the injected fault (GRADER: not a student call, so the judge's generic leak
   check does not speak first) */
#define PEER(X, f, ...)                                                                                                        \
    X(int, f, __VA_ARGS__ INOUT(PeerReport *, rep, sizeof *rep, "report", NULL), IN(const float *, x, rep->n * sizeof(float)),  \
      IN(const float *, y, rep->n * sizeof(float)), INOUT(float *, out, rep->n * sizeof(float), "out", NULL),                  \
      INOUT(float *, copy, rep->n * sizeof(float), "copy", NULL))
#define HAND_CALLS(X)                                                                                                          \
    X(int, plan_roundtrip, INOUT(PlanReport *, rep, sizeof *rep, "report", NULL), IN(const float *, a, a_n * sizeof(float)),  \
      IN(const float *, b, b_n * sizeof(float)), INOUT(float *, c_early, c_n * sizeof(float), "c", NULL),                      \
      INOUT(float *, c_late, c_n * sizeof(float), "c", NULL), NUM(size_t, a_n), NUM(size_t, b_n), NUM(size_t, c_n))            \
    PEER(X, peer_copy_gpu_then_peer_add_gpu, )                                                                                 \
    PEER(X, peer_fault_roundtrip, GRADER, )                                                                                    \
    X(int, nccl_roundtrip, INOUT(NcclReport *, rep, sizeof *rep, "report", NULL), IN(const float *, in, in_n * sizeof(float)), \
      INOUT(float *, out, out_n * sizeof(float), "out", NULL), NUM(size_t, in_n), NUM(size_t, out_n))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#include <time.h>

#include <nccl.h>

#include "runner.h"

#if ON_SIM
#include <simcuda/timeline.h>
#endif

#define POISON_BYTE 0xFF /* NaN as a float, what fresh device memory holds on the simulator */

static int current_device(void) {
    int d = -1;
    if (cudaGetDevice(&d) != cudaSuccess) cudaGetLastError();
    return d;
}

/* Every device idle, then device 0 current again; errors here are not the student's to see. */
static void wait_every_device(int ndev) {
    for (int d = 0; d < ndev; d++)
        if (cudaSetDevice(d) == cudaSuccess) cudaDeviceSynchronize();
    cudaSetDevice(0);
    cudaGetLastError();
}

/* The device a pointer belongs to, as the runtime records it: -1 for NULL, -2 for anything but device
   memory. A failed query's error is cleared, but not an error the student's code left pending. */
static int device_of(const void *p) {
    if (!p) return -1;
    cudaError_t before = cudaPeekAtLastError();
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        if (before == cudaSuccess) cudaGetLastError(); /* our query's error is not the student's */
        return -2;
    }
    return a.type == cudaMemoryTypeDevice ? a.device : -2;
}

/* Streams and events alive in this process (the simulator counts them; a GPU does not say). */
static void live_streams_events(int *streams, int *events) {
#if ON_SIM
    simcuda_live_streams_events(streams, events);
#else
    *streams = *events = 0;
#endif
}
static void leaks_since(int s0, int e0, int *streams_left, int *events_left) {
    int s1 = 0, e1 = 0;
    live_streams_events(&s1, &e1);
    *streams_left = ON_SIM ? s1 - s0 : -1;
    *events_left = ON_SIM ? e1 - e0 : -1;
}

/* The blocks of `kernel`'s launches the runner has seen in the current call (0 on a GPU: not observed). */
static unsigned long long kernel_blocks(const RunnerCall *c, const char *kernel) {
    unsigned long long k = 0;
    for (uint32_t i = 0; i < c->rep->nlaunches && i < RPC_MAX_LAUNCHES; i++)
        if (strstr(c->rep->launches[i].kernel, kernel)) k += c->rep->launches[i].blocks;
    return k;
}

static int all_zero(const void *p, size_t bytes) {
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i]) return 0;
    return 1;
}

/* ---- 15.1 ---- */
#if ON_SIM
/* The modelled timeline of one run: each device's span, the run's, and the host waits between one
   device's work and the next device's (what makes devices take turns). */
#define TL_MAX 4096
static SimTimelineOp g_tl[TL_MAX];
static void timeline_start(void) {
    SimTimelineModel m;
    simcuda_timeline_default_model(&m);
    m.scale = 256; /* a small run stands for a large one: copies and kernels, not calls, take the time */
    simcuda_timeline_start(&m);
}
static void timeline_take(PlanReport *rep, int overlap) {
    int whole = simcuda_timeline_recording();
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(g_tl, TL_MAX);
    if (!whole || n > TL_MAX) {
        rep->timeline = overlap ? -1 : 0;
        rep->streams_observed = -1;
        return;
    }
    rep->streams_observed = 1;
    for (size_t i = 0; i < n; i++) {
        int k = g_tl[i].kind;
        if (k != SIM_TL_KERNEL && k != SIM_TL_H2D && k != SIM_TL_D2H && k != SIM_TL_D2D) continue;
        if (g_tl[i].stream == 0) rep->legacy_ops++;
        else rep->stream_ops++;
    }
    if (!overlap) return;
    double first[MG_MAX_DEVICES], last[MG_MAX_DEVICES];
    int seen[MG_MAX_DEVICES] = {0}, prev_dev = -1, pending_wait = -1, working = 0;
    for (size_t i = 0; i < n; i++) {
        const SimTimelineOp *o = &g_tl[i];
        if (o->kind == SIM_TL_HOST_WAIT) {
            if (prev_dev >= 0 && pending_wait < 0) pending_wait = (int)i;
            continue;
        }
        if (o->kind != SIM_TL_KERNEL && o->kind != SIM_TL_H2D && o->kind != SIM_TL_D2H && o->kind != SIM_TL_D2D && o->kind != SIM_TL_MEMSET) continue;
        int d = o->device;
        if (d < 0 || d >= MG_MAX_DEVICES) continue;
        if (!seen[d]) seen[d] = 1, working++, first[d] = o->start_us, last[d] = o->end_us;
        if (o->start_us < first[d]) first[d] = o->start_us;
        if (o->end_us > last[d]) last[d] = o->end_us;
        if (pending_wait >= 0 && d != prev_dev) {
            if (!rep->waits_between++) snprintf(rep->wait_name, sizeof rep->wait_name, "%s", g_tl[pending_wait].name);
        }
        if (d != prev_dev) pending_wait = -1;
        prev_dev = d;
    }
    if (working < 2) return;
    double lo = 1e300, hi = 0;
    for (int d = 0; d < MG_MAX_DEVICES; d++) {
        if (!seen[d]) continue;
        rep->device_us[d] = last[d] - first[d];
        if (first[d] < lo) lo = first[d];
        if (last[d] > hi) hi = last[d];
    }
    rep->span_us = hi - lo;
    rep->timeline = 1;
}
#endif

static int64_t call_plan_roundtrip(const RunnerCall *c) {
    PlanReport *rep = rc_ptr(c, 0);
    const float *a = rc_ptr(c, 1), *b = rc_ptr(c, 2);
    float *early = rc_ptr(c, 3), *late = rc_ptr(c, 4);
    size_t a_n = rc_u64(c, 5), b_n = rc_u64(c, 6), c_n = rc_u64(c, 7);
    int mat = rep->kind == 1;
    size_t row = mat ? (size_t)rep->cols : 1;
    cudaGetDeviceCount(&rep->visible);
    cudaSetDevice(0);
    float *ha = NULL, *hb = NULL, *hc = NULL;
    if (cudaMallocHost((void **)&ha, a_n * sizeof(float)) != cudaSuccess || cudaMallocHost((void **)&hb, b_n * sizeof(float)) != cudaSuccess ||
        cudaMallocHost((void **)&hc, c_n * sizeof(float)) != cudaSuccess) {
        cudaFreeHost(ha);
        cudaFreeHost(hb);
        return cudaErrorMemoryAllocation;
    }
    memcpy(ha, a, a_n * sizeof(float));
    memcpy(hb, b, b_n * sizeof(float));
    memset(hc, POISON_BYTE, c_n * sizeof(float));
    for (int d = 0; d < MG_MAX_DEVICES; d++) rep->buf_device[d] = -1, rep->part_ok[d] = -1, rep->b_held[d] = -1, rep->b_rows_split[d] = 0;

    int s0 = 0, e0 = 0;
    live_streams_events(&s0, &e0);
    MgPlan p;
    memset(&p, 0x5A, sizeof p); /* garbage, as an uninitialised local of the caller would be */
    rep->create_err = mat ? mg_matmul_create(&p, (int)rep->n, rep->cols, rep->inner, rep->max_devices)
                          : mg_vector_add_create(&p, (size_t)rep->n, rep->max_devices);
    rep->device_after_create = current_device();
    cudaSetDevice(0);
    rep->ndev = p.ndev;
    rep->run_err = -1;
    if (rep->create_err == cudaSuccess && p.ndev >= 0 && p.ndev <= MG_MAX_DEVICES) {
        for (int d = 0; d < p.ndev; d++) {
            rep->first[d] = p.first[d];
            rep->count[d] = p.count[d];
        }
        /* On a GPU the devices but the last start late, so that a run that waits only for the
           last one returns before the others have finished (the simulator does not run what
           nobody waits for, hold or not). */
        if (rep->hold_ms > 0)
            for (int d = 0; d + 1 < p.ndev && d < rep->visible; d++)
                if (p.stream[d] && cudaSetDevice(d) == cudaSuccess) cudaLaunchHostFunc(p.stream[d], runner_sleep_ms, (void *)(uintptr_t)rep->hold_ms);
        cudaSetDevice(0);
        cudaGetLastError();
#if ON_SIM
        /* every run recorded, for the streams; the overlap only where the run is large enough that
           the copies and kernels, not the host's calls (2 us each), take the time */
        int overlap = mat ? rep->n >= 128 : rep->n >= 4096;
        timeline_start();
#else
        RunnerStreamOps ops0, ops1;
        int seen = runner_stream_ops(&ops0);
#endif
        unsigned long long mm0 = kernel_blocks(c, "mg_matmul_kernel");
        rep->run_err = mat ? mg_matmul_run(&p, ha, hb, hc) : mg_vector_add_run(&p, ha, hb, hc);
        rep->matmul_blocks = kernel_blocks(c, "mg_matmul_kernel") - mm0;
#if ON_SIM
        timeline_take(rep, overlap);
#else
        if (seen && runner_stream_ops(&ops1)) {
            rep->streams_observed = 1;
            rep->legacy_ops = ops1.legacy - ops0.legacy;
            rep->stream_ops = ops1.per_thread - ops0.per_thread + ops1.other - ops0.other;
        }
#endif
        rep->device_after_run = current_device();
        memcpy(early, hc, c_n * sizeof(float)); /* what the caller would read now */
        wait_every_device(rep->visible);
        memcpy(late, hc, c_n * sizeof(float));
        /* Did device d's own buffer hold device d's part? Then device d did that work. */
        for (int d = 0; d < p.ndev && d < rep->visible; d++) {
            if (!p.count[d] || (p.first[d] + p.count[d]) * row > c_n) continue;
            rep->buf_device[d] = device_of(p.d_c[d]);
            if (rep->buf_device[d] < 0) continue;
            size_t elems = p.count[d] * row;
            float *tmp = malloc(elems * sizeof(float));
            if (!tmp) continue;
            cudaSetDevice(rep->buf_device[d]);
            if (cudaMemcpy(tmp, p.d_c[d], elems * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess)
                rep->part_ok[d] = !memcmp(tmp, hc + p.first[d] * row, elems * sizeof(float));
            cudaGetLastError();
            free(tmp);
        }
        /* Did device d's d_b hold all of B? (the kernel does not write it: what is there is what was copied in) */
        for (int d = 0; mat && d < p.ndev && d < rep->visible; d++) {
            size_t bn = (size_t)rep->inner * row;
            if (!p.count[d] || bn != b_n || device_of(p.d_b[d]) < 0) continue;
            float *tmp = malloc(bn * sizeof(float));
            if (!tmp) continue;
            cudaSetDevice(device_of(p.d_b[d]));
            if (cudaMemcpy(tmp, p.d_b[d], bn * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess) {
                long long held = 0;
                for (size_t i = 0; i < bn; i++) held += !memcmp(&tmp[i], &hb[i], sizeof(float));
                rep->b_held[d] = held;
                size_t share = p.count[d] * row;
                rep->b_rows_split[d] = share < bn && (p.first[d] + p.count[d]) * row <= bn &&
                                       !memcmp(tmp, hb + p.first[d] * row, share * sizeof(float));
            }
            cudaGetLastError();
            free(tmp);
        }
        cudaSetDevice(0);
        cudaGetLastError();
    }
    if (rep->create_err == cudaSuccess) {
        rep->destroy_err = mg_plan_destroy(&p);
        rep->device_after_destroy = current_device();
        rep->left_after_destroy = !all_zero(&p, sizeof p);
        cudaSetDevice(0);
        leaks_since(s0, e0, &rep->streams_left, &rep->events_left);
    }
    cudaFreeHost(ha);
    cudaFreeHost(hb);
    cudaFreeHost(hc);
    return 0;
}

/* ---- 15.2 ---- */
/* The fault: a peer copy that fails once. Lesson 15's runners are linked with --wrap for
   cudaMemcpyPeerAsync and cudaMemcpyPeer (lessons/15-multi-gpu/lesson.mk), so that the student's
   calls of them come here first. While a fault is armed (around one peer_add_gpu call), the next one
   fails without copying, as a copy can fail on a GPU; otherwise they go on to the runtime's. (The
   __real_ names are the runtime's functions under --wrap; weak, so that a runner linked without it
   still links: its copies never come here, nothing fails, and the test says nothing.) */
#define FAULT_ERROR cudaErrorMemoryAllocation
static int g_fault_armed, g_faults;
__attribute__((weak)) cudaError_t __real_cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t count, cudaStream_t s);
__attribute__((weak)) cudaError_t __real_cudaMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev, size_t count);
cudaError_t __wrap_cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t count, cudaStream_t s);
cudaError_t __wrap_cudaMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev, size_t count);

static int g_peer_copies; /* peer copies made, counted while peer_add_gpu runs */
/* A peer copy's device ids checked against its pointers (trial 24, c093: the staged copy called
   peer_copy_gpu(staged, dev_a, d_x, dev_b, n), the ids swapped; with one address space the copy
   still came out right). The first mismatch, while g_peer_ids_phase says which call runs. */
static int g_peer_ids_phase;
static PeerReport *g_peer_ids_report;
static void check_peer_ids(const void *dst, int dst_dev, const void *src, int src_dev) {
    PeerReport *r = g_peer_ids_report;
    if (!g_peer_ids_phase || !r || r->peer_ids_phase) return;
    int dst_owner = device_of(dst), src_owner = device_of(src); /* < 0: no device's memory, not checked */
    if ((dst_owner >= 0 && dst_owner != dst_dev) || (src_owner >= 0 && src_owner != src_dev)) {
        r->peer_ids_phase = g_peer_ids_phase;
        r->peer_ids_given[0] = dst_dev, r->peer_ids_given[1] = src_dev;
        r->peer_ids_owner[0] = dst_owner, r->peer_ids_owner[1] = src_owner;
    }
}
static int fault_now(void) {
    g_peer_copies++;
    if (!g_fault_armed) return 0;
    g_fault_armed = 0;
    g_faults++;
    return 1;
}
cudaError_t __wrap_cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t count, cudaStream_t s) {
    check_peer_ids(dst, dst_dev, src, src_dev);
    return fault_now() ? FAULT_ERROR : __real_cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, count, s);
}
cudaError_t __wrap_cudaMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev, size_t count) {
    check_peer_ids(dst, dst_dev, src, src_dev);
    return fault_now() ? FAULT_ERROR : __real_cudaMemcpyPeer(dst, dst_dev, src, src_dev, count);
}

/* 15.2's diagnosis of a cudaDeviceEnablePeerAccess inside peer_add_gpu that answers
   cudaErrorPeerAccessUnsupported (its peer is the current device): the peer it was given and the
   device current then, the first time (trial 12, a045: cudaSetDevice(dev_b) moved after it, and the
   message read as if the argument were wrong). Linked with --wrap like the copies above. */
static int g_enable_watch, g_enable_peer = -1, g_enable_current = -1;
__attribute__((weak)) cudaError_t __real_cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
cudaError_t __wrap_cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
cudaError_t __wrap_cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    cudaError_t e = __real_cudaDeviceEnablePeerAccess(peer, flags);
    if (g_enable_watch && e == cudaErrorPeerAccessUnsupported && g_enable_peer < 0) {
        g_enable_peer = peer;
        if (cudaGetDevice(&g_enable_current) != cudaSuccess) g_enable_current = -1;
    }
    return e;
}

/* Peer access off between every pair of devices, then on from `reader` to `owner` if `on`: each
   case starts from the state it names, not from what an earlier case left. */
static void set_peer_access(int visible, int owner, int reader, int on) {
    for (int d = 0; d < visible && d < MG_MAX_DEVICES; d++) {
        if (cudaSetDevice(d) != cudaSuccess) continue;
        for (int q = 0; q < visible && q < MG_MAX_DEVICES; q++)
            if (q != d) cudaDeviceDisablePeerAccess(q); /* cudaErrorPeerAccessNotEnabled when it was off */
    }
    if (on && owner != reader && cudaSetDevice(reader) == cudaSuccess) cudaDeviceEnablePeerAccess(owner, 0);
    cudaSetDevice(0);
    cudaGetLastError();
}

static int64_t call_peer_copy_gpu_then_peer_add_gpu(const RunnerCall *c) {
    PeerReport *rep = rc_ptr(c, 0);
    const float *x = rc_ptr(c, 1), *y = rc_ptr(c, 2);
    float *out = rc_ptr(c, 3), *copy = rc_ptr(c, 4);
    size_t n = rep->n, bytes = n * sizeof(float);
    cudaGetDeviceCount(&rep->visible);
    if (rep->dev_a >= rep->visible || rep->dev_b >= rep->visible) return cudaErrorInvalidDevice;
    if (rep->dev_a != rep->dev_b && cudaDeviceCanAccessPeer(&rep->can_access, rep->dev_b, rep->dev_a) != cudaSuccess) rep->can_access = -1;
    cudaGetLastError();
    float *d_x = NULL, *d_y = NULL, *d_out = NULL, *d_copy = NULL;
    cudaError_t e = cudaSetDevice(rep->dev_a);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_x, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaSetDevice(rep->dev_b);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_y, bytes);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_out, bytes);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_copy, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemset(d_out, POISON_BYTE, bytes);
    if (e == cudaSuccess) e = cudaMemset(d_copy, POISON_BYTE, bytes);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    rep->setup_err = e;
    rep->copy_err = rep->add_err = -1;
    if (e == cudaSuccess) {
        set_peer_access(rep->visible, rep->dev_a, rep->dev_b, rep->peer_before);
        if (rep->hold_ms > 0 && !ON_SIM && cudaSetDevice(rep->dev_b) == cudaSuccess)
            cudaLaunchHostFunc(0, runner_sleep_ms, (void *)(uintptr_t)rep->hold_ms);
        cudaSetDevice(0);
        g_peer_copies = 0;
        rep->peer_ids_phase = 0;
        g_peer_ids_report = rep, g_peer_ids_phase = 1;
        rep->copy_err = peer_copy_gpu(d_copy, rep->dev_b, d_x, rep->dev_a, n);
        g_peer_ids_phase = 0;
        rep->copy_peer_copies = __real_cudaMemcpyPeerAsync ? g_peer_copies : -1;
        rep->device_after_copy = current_device();
        /* work still queued in either device's default stream when peer_copy_gpu returned: the copy
           it did not wait for (on a GPU, queued behind the hold above) */
        for (int k = 0; k < 2; k++)
            if (cudaSetDevice(k ? rep->dev_b : rep->dev_a) == cudaSuccess && cudaStreamQuery(0) == cudaErrorNotReady) rep->copy_not_waited = 1;
        wait_every_device(rep->visible);
        cudaGetLastError();
        cudaSetDevice(0);
        rep->direct = -1;
        uint64_t allocs0 = 0, bytes0 = 0, allocs1 = 0, bytes1 = 0;
        rep->allocs_observed = runner_live_allocations(&allocs0, &bytes0);
        g_faults = 0;
        g_fault_armed = rep->inject_fault;
        g_enable_peer = g_enable_current = -1;
        g_enable_watch = 1;
        g_peer_copies = 0;
        g_peer_ids_phase = 2;
        rep->add_err = peer_add_gpu(rep->dev_a, d_x, rep->dev_b, d_y, d_out, n, rep->allow_peer, &rep->direct);
        g_peer_ids_phase = 0, g_peer_ids_report = NULL;
        rep->add_peer_copies = g_peer_copies;
        g_enable_watch = 0;
        rep->unsupported_peer = g_enable_peer;
        rep->unsupported_current = g_enable_current;
        g_fault_armed = 0;
        rep->device_after_add = current_device();
        rep->faults = g_faults;
        rep->fault_err = FAULT_ERROR;
        runner_live_allocations(&allocs1, &bytes1);
        rep->leaked_allocs = (long long)allocs1 - (long long)allocs0;
        rep->leaked_bytes = (long long)bytes1 - (long long)bytes0;
        wait_every_device(rep->visible);
        cudaSetDevice(rep->dev_b);
        if (cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) memset(out, POISON_BYTE, bytes);
        if (cudaMemcpy(copy, d_copy, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) memset(copy, POISON_BYTE, bytes);
        unsigned char *xa = bytes ? malloc(bytes) : NULL;
        if (xa && cudaSetDevice(rep->dev_a) == cudaSuccess && cudaMemcpy(xa, d_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
            rep->x_overwritten = memcmp(xa, x, bytes) != 0;
        free(xa);
        cudaGetLastError();
    }
    cudaSetDevice(rep->dev_a);
    cudaFree(d_x);
    cudaSetDevice(rep->dev_b);
    cudaFree(d_y);
    cudaFree(d_out);
    cudaFree(d_copy);
    cudaSetDevice(0);
    cudaGetLastError();
    return 0;
}

/* ---- 15.3 ---- */
typedef struct {
    float *grad[MG_MAX_DEVICES], *bcast[MG_MAX_DEVICES], *send[MG_MAX_DEVICES], *recv[MG_MAX_DEVICES];
    cudaStream_t s[MG_MAX_DEVICES]; /* the helper's own non-blocking streams, for reading back */
} Bufs;

static void free_bufs(Bufs *b, int ndev) {
    for (int r = 0; r < ndev; r++) {
        cudaSetDevice(r);
        cudaFree(b->grad[r]);
        cudaFree(b->bcast[r]);
        cudaFree(b->send[r]);
        cudaFree(b->recv[r]);
        if (b->s[r]) cudaStreamDestroy(b->s[r]);
    }
    cudaSetDevice(0);
    cudaGetLastError();
}

/* Reads `elems` floats of buf[r] for every rank into out, through the helper's own non-blocking
   streams: nothing here waits for the student's streams, so what they have not finished shows. */
static void read_ranks(float *const *buf, const Bufs *b, int ndev, size_t elems, float *out) {
    for (int r = 0; r < ndev; r++) {
        cudaSetDevice(r);
        if (cudaMemcpyAsync(out + (size_t)r * elems, buf[r], elems * sizeof(float), cudaMemcpyDeviceToHost, b->s[r]) != cudaSuccess ||
            cudaStreamSynchronize(b->s[r]) != cudaSuccess)
            memset(out + (size_t)r * elems, POISON_BYTE, elems * sizeof(float));
    }
    cudaSetDevice(0);
    cudaGetLastError();
}

static void hold(const MgNccl *g, int ms) {
    if (ms <= 0) return;
    for (int r = 0; r + 1 < g->ndev; r++)
        if (g->stream[r] && cudaSetDevice(r) == cudaSuccess) cudaLaunchHostFunc(g->stream[r], runner_sleep_ms, (void *)(uintptr_t)ms);
    cudaSetDevice(0);
    cudaGetLastError();
}

static void note_device(NcclReport *rep) {
    int d = current_device();
    if (d != 0 && rep->device_after == 0) rep->device_after = d;
    cudaSetDevice(0);
}

/* 15.3: the stream each rank's collective was given. The runners are linked with --wrap for the three
   collectives (lessons/15-multi-gpu/lesson.mk): a call queued into stream 0 and then waited for in
   g->stream[r] (trial 15, c008) is named as a wrong stream, not as a missing wait. */
#define SEEN_MAX (2 * MG_MAX_DEVICES)
static struct { ncclComm_t comm; cudaStream_t stream; } g_seen[SEEN_MAX];
static int g_seen_n;
static void seen(ncclComm_t comm, cudaStream_t stream) {
    if (g_seen_n < SEEN_MAX) {
        g_seen[g_seen_n].comm = comm;
        g_seen[g_seen_n].stream = stream;
        g_seen_n++;
    }
}
__attribute__((weak)) ncclResult_t __real_ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                                                        cudaStream_t st);
__attribute__((weak)) ncclResult_t __real_ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c,
                                                        cudaStream_t st);
__attribute__((weak)) ncclResult_t __real_ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st);
ncclResult_t __wrap_ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st);
ncclResult_t __wrap_ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st);
ncclResult_t __wrap_ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st);
ncclResult_t __wrap_ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st) {
    seen(c, st);
    return __real_ncclAllReduce(s, r, n, t, op, c, st);
}
ncclResult_t __wrap_ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
    seen(c, st);
    return __real_ncclBroadcast(s, r, n, t, root, c, st);
}
ncclResult_t __wrap_ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
    seen(c, st);
    return __real_ncclAllGather(s, r, n, t, c, st);
}
/* after collective k: the first rank whose call (the last one on its communicator) had another stream */
static void note_streams(NcclReport *rep, int k, const MgNccl *g) {
    for (int r = 0; r < g->ndev && !rep->wrong_stream_rank[k]; r++)
        for (int i = g_seen_n - 1; i >= 0; i--)
            if (g_seen[i].comm == g->comm[r]) {
                if (g_seen[i].stream != g->stream[r]) {
                    rep->wrong_stream_rank[k] = r + 1;
                    rep->wrong_stream_default[k] = g_seen[i].stream == 0 || g_seen[i].stream == cudaStreamLegacy ||
                                                   g_seen[i].stream == cudaStreamPerThread;
                }
                break;
            }
    g_seen_n = 0;
}

static int64_t call_nccl_roundtrip(const RunnerCall *c) {
    NcclReport *rep = rc_ptr(c, 0);
    const float *in = rc_ptr(c, 1);
    float *out = rc_ptr(c, 2);
    size_t in_n = rc_u64(c, 3), out_n = rc_u64(c, 4), n = rep->n;
    cudaGetDeviceCount(&rep->visible);
    cudaSetDevice(0);
    rep->avg_err = rep->bcast_err = rep->gather_err = rep->destroy_err = -1;
    memset(rep->wrong_stream_rank, 0, sizeof rep->wrong_stream_rank);
    memset(rep->wrong_stream_default, 0, sizeof rep->wrong_stream_default);
    int s0 = 0, e0 = 0;
    live_streams_events(&s0, &e0);
#if ON_SIM
    int comms0 = simcuda_nccl_live_comms();
#endif
    MgNccl g;
    memset(&g, 0x5A, sizeof g);
    rep->create_err = mg_nccl_create(&g, rep->max_devices);
    note_device(rep);
    rep->ndev = g.ndev;
    if (rep->create_err != ncclSuccess) return 0;
    int nd = g.ndev;
    if (nd < 1 || nd > rep->visible || nd > MG_MAX_DEVICES || in_n < 3 * (size_t)nd * n || out_n < 2 * ((size_t)nd * n * 2 + (size_t)nd * nd * n)) {
        /* the judge checks ndev itself; nothing sensible can run on this communicator */
        if (nd >= 1 && nd <= MG_MAX_DEVICES) rep->destroy_err = mg_nccl_destroy(&g);
        return 0;
    }
    for (int r = 0; r < nd; r++) {
        rep->comm_device[r] = rep->comm_rank[r] = rep->comm_count[r] = -1;
        if (g.comm[r]) {
            ncclCommCuDevice(g.comm[r], &rep->comm_device[r]);
            ncclCommUserRank(g.comm[r], &rep->comm_rank[r]);
            ncclCommCount(g.comm[r], &rep->comm_count[r]);
        }
        rep->stream_ok[r] = g.stream[r] != NULL;
    }
    Bufs b;
    memset(&b, 0, sizeof b);
    size_t bytes = n * sizeof(float);
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < nd && e == cudaSuccess; r++) {
        e = cudaSetDevice(r);
        if (e == cudaSuccess) e = cudaMalloc((void **)&b.grad[r], bytes);
        if (e == cudaSuccess) e = cudaMalloc((void **)&b.bcast[r], bytes);
        if (e == cudaSuccess) e = cudaMalloc((void **)&b.send[r], bytes);
        if (e == cudaSuccess) e = cudaMalloc((void **)&b.recv[r], bytes * nd);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&b.s[r], cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMemcpy(b.grad[r], in + (size_t)r * n, bytes, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemcpy(b.bcast[r], in + (size_t)(nd + r) * n, bytes, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemcpy(b.send[r], in + (size_t)(2 * nd + r) * n, bytes, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemset(b.recv[r], POISON_BYTE, bytes * nd);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
    }
    cudaSetDevice(0);
    rep->setup_err = e;
    if (e == cudaSuccess) {
        size_t sec = (size_t)nd * n, all = 2 * sec + (size_t)nd * sec;
        float *early = out, *late = out + all;
        hold(&g, rep->hold_ms);
        g_seen_n = 0;
        rep->avg_err = mg_allreduce_average(&g, b.grad, n);
        note_streams(rep, 0, &g);
        note_device(rep);
        read_ranks(b.grad, &b, nd, n, early);
        wait_every_device(nd);
        read_ranks(b.grad, &b, nd, n, late);

        hold(&g, rep->hold_ms);
        g_seen_n = 0;
        rep->bcast_err = mg_broadcast(&g, b.bcast, n, rep->root);
        note_streams(rep, 1, &g);
        note_device(rep);
        read_ranks(b.bcast, &b, nd, n, early + sec);
        wait_every_device(nd);
        read_ranks(b.bcast, &b, nd, n, late + sec);

        hold(&g, rep->hold_ms);
        g_seen_n = 0;
        rep->gather_err = mg_allgather(&g, b.send, b.recv, n);
        note_streams(rep, 2, &g);
#if ON_SIM
        /* the simulator's NCCL says which buffer it refused and where it starts: a rank's send buffer
           given as the receive buffer (trial 13, b111) is not a wrong count */
        const char *why = rep->gather_err == ncclInvalidArgument ? strstr(ncclGetLastError(NULL), "recvbuff needs") : NULL;
        for (int r = 0; why && r < nd; r++) {
            char at[64];
            snprintf(at, sizeof at, "from %p,", (void *)b.send[r]);
            if (strstr(why, at)) rep->gather_into_send = 1;
        }
#endif
        note_device(rep);
        read_ranks(b.recv, &b, nd, (size_t)nd * n, early + 2 * sec);
        wait_every_device(nd);
        read_ranks(b.recv, &b, nd, (size_t)nd * n, late + 2 * sec);
    }
    free_bufs(&b, nd);
    rep->destroy_err = mg_nccl_destroy(&g);
    note_device(rep);
    rep->left_after_destroy = !all_zero(&g, sizeof g);
    leaks_since(s0, e0, &rep->streams_left, &rep->events_left);
#if ON_SIM
    rep->comms_left = simcuda_nccl_live_comms() - comms0; /* trial 13, b132: ncclCommDestroy left out, full points */
#else
    rep->comms_left = -1; /* a GPU's NCCL does not say */
#endif
    return 0;
}
#define call_peer_fault_roundtrip call_peer_copy_gpu_then_peer_add_gpu /* the same helper: rep->inject_fault says which */
#endif
#include "calls_table.h"
