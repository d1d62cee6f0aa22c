/**
 * @file timeline.c
 * @brief Lesson 11's timelines for the demo: recorded by the simulator's model, or measured on a
 *        GPU through CUPTI's activity API, and written as a Chrome trace.
 *
 * On a GPU, CUPTI (the CUDA Toolkit's profiling interface, what Nsight Systems builds on) hands
 * over a record per kernel and per copy with its stream and its start and end on the GPU's clock.
 * libcupti is opened at run time: without it the demo runs and says that it has no timeline.
 */
#define _GNU_SOURCE
#include "backend.h"
#include "trace/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static TimelineOp *g_ops;
static size_t g_n, g_cap;

static __attribute__((unused)) TimelineOp *new_op(void) {
    if (g_n == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 1024;
        TimelineOp *p = realloc(g_ops, cap * sizeof *p);
        if (!p) return NULL;
        g_ops = p;
        g_cap = cap;
    }
    TimelineOp *o = &g_ops[g_n++];
    memset(o, 0, sizeof *o);
    return o;
}

#if ON_SIM
/* ---- the simulator: its model ---- */
#include <simcuda/timeline.h>

int timeline_begin(double kernel_ns_per_thread, double scale) {
    SimTimelineModel m;
    simcuda_timeline_default_model(&m);
    if (kernel_ns_per_thread > 0) m.kernel_ns_per_thread = kernel_ns_per_thread;
    if (scale > 0) m.scale = scale;
    simcuda_timeline_start(&m);
    return 0;
}

size_t timeline_end(TimelineOp *ops, size_t max) {
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *s = calloc(n ? n : 1, sizeof *s);
    if (!s) return 0;
    simcuda_timeline_take(s, n);
    for (size_t i = 0; i < n && i < max; i++) {
        ops[i].kind = s[i].kind;
        ops[i].stream = s[i].stream;
        ops[i].pageable = s[i].pageable;
        ops[i].blocks_host = s[i].blocks_host;
        ops[i].bytes = s[i].bytes;
        ops[i].threads = s[i].threads;
        ops[i].issue_us = s[i].issue_us;
        ops[i].start_us = s[i].start_us;
        ops[i].end_us = s[i].end_us;
        snprintf(ops[i].name, sizeof ops[i].name, "%s", s[i].name);
    }
    free(s);
    return n;
}

const char *timeline_source(void) { return "modelled for an H200 by the CPU simulator (simcuda/timeline.h)"; }

#else
/* ---- a GPU: CUPTI's activity records ---- */
#include <dlfcn.h>
#include <cupti.h>

typedef CUptiResult (*RegisterFn)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult (*KindFn)(CUpti_ActivityKind);
typedef CUptiResult (*FlushFn)(uint32_t);
typedef CUptiResult (*NextFn)(uint8_t *, size_t, CUpti_Activity **);
static struct {
    int loaded;
    RegisterFn reg;
    KindFn enable, disable;
    FlushFn flush;
    NextFn next;
} g_cupti;
static char g_source[300];
static int g_stream_ids[64], g_nstreams;

static int load_cupti(void) {
    if (g_cupti.loaded) return g_cupti.loaded > 0 ? 0 : -1;
    static const char *names[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                                  "/usr/local/cuda/lib64/libcupti.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    g_cupti.loaded = -1;
    if (!lib) return -1;
    g_cupti.reg = (RegisterFn)dlsym(lib, "cuptiActivityRegisterCallbacks");
    g_cupti.enable = (KindFn)dlsym(lib, "cuptiActivityEnable");
    g_cupti.disable = (KindFn)dlsym(lib, "cuptiActivityDisable");
    g_cupti.flush = (FlushFn)dlsym(lib, "cuptiActivityFlushAll");
    g_cupti.next = (NextFn)dlsym(lib, "cuptiActivityGetNextRecord");
    if (!g_cupti.reg || !g_cupti.enable || !g_cupti.disable || !g_cupti.flush || !g_cupti.next) return -1;
    g_cupti.loaded = 1;
    return 0;
}

/* CUPTI's stream ids, numbered 1, 2, ... in the order they first appear. */
static int stream_number(uint32_t id) {
    for (int i = 0; i < g_nstreams; i++)
        if (g_stream_ids[i] == (int)id) return i + 1;
    if (g_nstreams < 64) g_stream_ids[g_nstreams++] = (int)id;
    return g_nstreams;
}

/* "_Z14process_kernelPKfPfmi" -> "process_kernel" */
static void short_name(const char *mangled, char *out, size_t size) {
    if (mangled && !strncmp(mangled, "_Z", 2)) {
        int len = atoi(mangled + 2);
        const char *p = mangled + 2;
        while (*p >= '0' && *p <= '9') p++;
        if (len > 0 && (size_t)len < size && strlen(p) >= (size_t)len) {
            memcpy(out, p, (size_t)len);
            out[len] = '\0';
            return;
        }
    }
    snprintf(out, size, "%s", mangled ? mangled : "kernel");
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *size = 1 << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *r = NULL;
    while (g_cupti.next(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
            TimelineOp *o = new_op();
            if (!o) break;
            o->kind = OP_KERNEL;
            o->stream = stream_number(k->streamId);
            o->threads = (unsigned long long)k->gridX * k->gridY * k->gridZ * k->blockX * k->blockY * k->blockZ;
            o->start_us = k->start / 1000.0;
            o->end_us = k->end / 1000.0;
            short_name(k->name, o->name, sizeof o->name);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
            TimelineOp *o = new_op();
            if (!o) break;
            o->kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? OP_H2D : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? OP_D2H : OP_D2D;
            o->pageable = m->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || m->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
            o->stream = stream_number(m->streamId);
            o->bytes = m->bytes;
            o->start_us = m->start / 1000.0;
            o->end_us = m->end / 1000.0;
            snprintf(o->name, sizeof o->name, "%s", o->kind == OP_H2D ? "copy in" : o->kind == OP_D2H ? "copy out" : "copy");
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
            TimelineOp *o = new_op();
            if (!o) break;
            o->kind = OP_MEMSET;
            o->stream = stream_number(m->streamId);
            o->bytes = m->bytes;
            o->start_us = m->start / 1000.0;
            o->end_us = m->end / 1000.0;
            snprintf(o->name, sizeof o->name, "memset");
        }
    }
    free(buffer);
}

static const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

int timeline_begin(double kernel_ns_per_thread, double scale) {
    (void)kernel_ns_per_thread, (void)scale; /* the GPU runs kernels at their own speed */
    if (load_cupti()) return -1;
    static int registered;
    if (!registered && g_cupti.reg(buffer_requested, buffer_completed) != CUPTI_SUCCESS) return -1;
    registered = 1;
    g_n = 0;
    g_nstreams = 0;
    for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; i++)
        if (g_cupti.enable(kKinds[i]) != CUPTI_SUCCESS) return -1;
    return 0;
}

static int by_start(const void *a, const void *b) {
    double x = ((const TimelineOp *)a)->start_us, y = ((const TimelineOp *)b)->start_us;
    return (x > y) - (x < y);
}

size_t timeline_end(TimelineOp *ops, size_t max) {
    if (g_cupti.loaded <= 0) return 0;
    cudaDeviceSynchronize();
    g_cupti.flush(1); /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
    for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; i++) g_cupti.disable(kKinds[i]);
    qsort(g_ops, g_n, sizeof *g_ops, by_start);
    double t0 = g_n ? g_ops[0].start_us : 0;
    for (size_t i = 0; i < g_n && i < max; i++) {
        ops[i] = g_ops[i];
        ops[i].start_us -= t0;
        ops[i].end_us -= t0;
        ops[i].issue_us = ops[i].start_us;
    }
    return g_n;
}

const char *timeline_source(void) {
    struct cudaDeviceProp p;
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) snprintf(p.name, sizeof p.name, "a GPU");
    snprintf(g_source, sizeof g_source, "measured on %s (CUPTI activity records)", p.name);
    return g_source;
}
#endif

/* ---- both: the Chrome trace and a summary ---- */

static const char *kind_name(int k) {
    static const char *names[] = {"kernel", "copy in (host to device)", "copy out (device to host)", "device copy", "memset", "host function",
                                  "event", "stream wait", "host waits", "host call"};
    return k >= 0 && k < OP_KINDS ? names[k] : "?";
}

/* Track of an operation: 0 the host, 1 + stream number for streams (the legacy default stream is 1). */
static int track_of(const TimelineOp *o) { return o->stream == -2 ? 0 : o->stream == -1 ? 1000 : 1 + o->stream; }

int timeline_write_json(const char *path, const TimelineOp *ops, size_t n, const char *title) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"title\": \"");
    for (const char *c = title; *c; c++) fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    fprintf(f, "\"},\n\"traceEvents\": [\n");
    fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"timeline\"}}");
    int named[1002] = {0};
    for (size_t i = 0; i < n; i++) {
        const TimelineOp *o = &ops[i];
        if (o->kind == OP_API || o->kind == OP_EVENT || o->kind == OP_WAIT_EVENT) continue;
        int t = track_of(o);
        if (t <= 1001 && !named[t]) {
            named[t] = 1;
            char label[64];
            if (t == 0) snprintf(label, sizeof label, "host");
            else if (t == 1000) snprintf(label, sizeof label, "stream: per-thread default");
            else if (t == 1) snprintf(label, sizeof label, "stream 0 (legacy default)");
            else snprintf(label, sizeof label, "stream %d", t - 1);
            fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": \"%s\"}}", t, label);
            fprintf(f, ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"sort_index\": %d}}", t, t);
        }
        fprintf(f,
                ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, "
                "\"args\": {\"bytes\": %llu, \"threads\": %llu, \"pageable\": %d, \"host waited\": %d}}",
                o->name, kind_name(o->kind), t, o->start_us, o->end_us - o->start_us, o->bytes, o->threads, o->pageable, o->blocks_host);
    }
    fprintf(f, "\n]}\n");
    return fclose(f) ? -1 : 0;
}

void timeline_summary(const TimelineOp *ops, size_t n, char *buf, size_t size) {
    double first = 0, last = 0, busy[3] = {0, 0, 0};
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const TimelineOp *o = &ops[i];
        if (o->kind != OP_KERNEL && o->kind != OP_H2D && o->kind != OP_D2H) continue;
        if (!any || o->start_us < first) first = o->start_us;
        if (!any || o->end_us > last) last = o->end_us;
        any = 1;
        busy[o->kind == OP_H2D ? 0 : o->kind == OP_KERNEL ? 1 : 2] += o->end_us - o->start_us;
    }
    snprintf(buf, size, "span %.0f us; busy: copies in %.0f us, kernels %.0f us, copies out %.0f us", last - first, busy[0], busy[1], busy[2]);
}
