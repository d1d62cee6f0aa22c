/* streams.cpp -- streams, events, the work queue, kernel launches and the copy/memset calls.
 *
 * Kernels, async copies, memsets, host functions and event records are not run when called: they
 * join one queue in issue order, each tagged with its stream, and run when the program waits
 * (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a blocking cudaMemcpy, a
 * query). Running in issue order keeps every stream's order and every event dependency, and a
 * program that reads results without waiting sees stale data, as it would on a GPU. */
#include "internal.h"
#include "simcuda/timeline.h"

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <vector>

struct CUstream_st {
    unsigned flags;
    unsigned long long last_seq;
    int id;     /* the modelled timeline's stream number: 0 for the default stream, then 1, 2, ... */
    int device; /* the device current when it was created */
};
struct CUevent_st {
    unsigned flags;
    bool recorded;
    bool done;
    unsigned long long record_seq;
    double t_ms;
    int device;
};

namespace simcuda {

cudaError_t check_copy(const char *fn, void *dst, const void *src, size_t count, cudaMemcpyKind kind);
void raw_copy(void *dst, const void *src, size_t count);
void raw_set(void *dst, int value, size_t count);

/* One queued operation. `devices` has a bit for each device it belongs to: its stream's, and any
   other device whose memory it touches or whose work it waits for (peer copies, cross-device event
   waits, NCCL's collectives). */
struct Op {
    unsigned long long seq;
    unsigned devices;
    std::function<void()> run;
};

static std::deque<Op> g_queue;
static unsigned long long g_next_seq = 1;
/* each device's legacy default stream; made at compile time (constant initialisation), so that
   a global constructor of the program that calls CUDA finds them ready */
struct DefaultStreams {
    CUstream_st s[kMaxDevices];
};
static constexpr DefaultStreams make_default_streams() {
    DefaultStreams d{};
    for (int i = 0; i < kMaxDevices; i++) d.s[i] = CUstream_st{0, 0, 0, i};
    return d;
}
static DefaultStreams g_defaults = make_default_streams();
static CUstream_st *const g_default_streams = g_defaults.s;
static int g_next_stream_id = 1;
static std::set<CUstream_st *> g_streams;
static std::set<CUevent_st *> g_events;

static bool is_default(const CUstream_st *s) { return s >= g_default_streams && s < g_default_streams + kMaxDevices; }
static CUstream_st *resolve(cudaStream_t s) {
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return &g_default_streams[current_device()];
    if (is_default(s)) return s; /* default_stream(d) */
    return g_streams.count(s) ? s : nullptr;
}

/* Eager mode (programs that include Thrust, whose host backend reads results at once): every
   operation runs as soon as it is queued. */
static bool g_eager = false;
static bool g_running_eager = false;
static void run_all();

static unsigned long long enqueue(CUstream_st *s, std::function<void()> fn, unsigned also = 0) {
    unsigned long long seq = g_next_seq++;
    g_queue.push_back(Op{seq, device_bit(s->device) | also, std::move(fn)});
    s->last_seq = seq;
    if (g_eager && !g_running_eager) {
        g_running_eager = true;
        run_all();
        g_running_eager = false;
    }
    return seq;
}

static void run_front() {
    Op op = std::move(g_queue.front());
    g_queue.pop_front();
    op.run(); /* may wait itself (cudaFreeAsync's free), so the queue is re-read afterwards */
}

/* Runs queued work up to and including operation `seq`, of the devices in `mask`; returns whether
   anything ran. Another device's work stays queued unless an operation of these devices involves
   that device too, which then runs after everything queued before it: so a program that never
   waits for a device sees that device's results missing, as on a GPU. */
static bool run_until(unsigned long long seq, unsigned mask = ~0u) {
    bool ran = false;
    if (mask == ~0u || device_count() == 1) {
        while (!g_queue.empty() && g_queue.front().seq <= seq) run_front(), ran = true;
        return ran;
    }
    for (size_t i = 0; i < g_queue.size() && g_queue[i].seq <= seq;) {
        unsigned d = g_queue[i].devices;
        if (!(d & mask)) {
            i++;
            continue;
        }
        if (d & ~mask) { /* it involves other devices: everything queued before it first */
            for (size_t k = 0; k <= i; k++) run_front();
        } else {
            Op op = std::move(g_queue[i]);
            g_queue.erase(g_queue.begin() + (long)i);
            op.run();
        }
        ran = true;
        i = 0;
    }
    return ran;
}

static void run_all() { run_until(~0ull); }

/* ---- the modelled timeline (timeline.cpp): which model stream a handle is ---- */
struct TlStream {
    int id;
    bool blocking;
};
static TlStream tl_stream(cudaStream_t raw, const CUstream_st *s) {
    if (raw == cudaStreamPerThread) return {-1, true};
    if (is_default(s)) return {0, true};
    return {s->id, !(s->flags & cudaStreamNonBlocking)};
}
static bool device_side(const void *p) {
    MemKind k = classify(p);
    return k == MEM_DEVICE || k == MEM_MANAGED || k == MEM_SYMBOL;
}
/* Records a copy: its direction from where the pointers live, pageable when the host side is
   ordinary memory. Returns the timeline's token. */
static long long tl_copy(cudaStream_t raw, const CUstream_st *s, void *dst, const void *src, size_t count, const char *name) {
    if (!g_timeline_on) return 0;
    bool dd = device_side(dst), sd = device_side(src);
    int kind = dd && sd ? SIM_TL_D2D : dd ? SIM_TL_H2D : sd ? SIM_TL_D2H : SIM_TL_D2D;
    const void *host = kind == SIM_TL_H2D ? src : kind == SIM_TL_D2H ? dst : nullptr;
    bool pageable = host && classify(host) == MEM_NONE;
    TlStream t = tl_stream(raw, s);
    return tl_device(kind, t.id, t.blocking, count, 0, pageable, host, name);
}

static double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

/* ---- launches ---- */
static std::string dims(dim3 d) {
    char b[64];
    snprintf(b, sizeof b, "(%u,%u,%u)", d.x, d.y, d.z);
    return b;
}

static const char *bad_config(const LaunchConfig &c, const void *func) {
    static char why[256];
    const dim3 &b = c.block, &g = c.grid;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (!b.x || !b.y || !b.z) snprintf(why, sizeof why, "blockDim %s has a zero dimension", dims(b).c_str());
    else if (!g.x || !g.y || !g.z) snprintf(why, sizeof why, "gridDim %s has a zero dimension", dims(g).c_str());
    else if (threads > 1024) snprintf(why, sizeof why, "blockDim %s is %llu threads per block; the limit is 1024", dims(b).c_str(), threads);
    else if (b.x > 1024 || b.y > 1024 || b.z > 64) snprintf(why, sizeof why, "blockDim %s exceeds the per-dimension limits (1024, 1024, 64)", dims(b).c_str());
    else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
        snprintf(why, sizeof why, "gridDim %s exceeds the limits (2147483647, 65535, 65535)", dims(g).c_str());
    else if (c.dynamic_smem > kDefaultSharedPerBlock &&
             (c.dynamic_smem > kMaxSharedPerBlockOptin || (size_t)func_max_dynamic_smem(func) < c.dynamic_smem))
        snprintf(why, sizeof why,
                 "%zu bytes of dynamic shared memory; above 48 KiB a kernel must opt in with "
                 "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most 227 KiB)",
                 c.dynamic_smem);
    else return nullptr;
    return why;
}

/* No default hook: weak, so it is null unless a harness (the grader's runner) defines it. */
extern "C" void simcuda_on_launch(const char *kernel, unsigned long long blocks, unsigned long long threads_per_block) __attribute__((weak));

void launch(const LaunchConfig &c, const void *func, KernelBody *body) {
    CUstream_st *s = resolve(c.stream);
    cudaError_t err = cudaSuccess;
    std::string why;
    if (!s) {
        err = cudaErrorInvalidResourceHandle;
        why = "its stream is not a live stream";
    } else if (const char *w = bad_config(c, func)) {
        err = cudaErrorInvalidValue;
        why = w;
    } else if (int lb = func_launch_bounds(func)) {
        unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
        if (threads > (unsigned long long)lb) {
            err = cudaErrorInvalidValue; /* what an H200 says when a block exceeds the kernel's __launch_bounds__ */
            why = "blockDim " + dims(c.block) + " is " + std::to_string(threads) + " threads, more than the kernel's __launch_bounds__(" +
                  std::to_string(lb) + ")";
        }
    }
    if (err) {
        /* The kernel does not run; CUDA reports it through cudaGetLastError(). We say so too, because a
           program that never checks would otherwise just see missing results. */
        char b[600];
        snprintf(b, sizeof b, "note: launch of '%s' at %s:%d did not run: %s (cudaGetLastError() returns %s)", c.site.kernel, c.site.file,
                 c.site.line, why.c_str(), cudaGetErrorName(err));
        warn(b);
        set_last_error(err);
        delete body;
        return;
    }
    if (simcuda_on_launch)
        simcuda_on_launch(c.site.kernel, (unsigned long long)c.grid.x * c.grid.y * c.grid.z, (unsigned long long)c.block.x * c.block.y * c.block.z);
    if (g_timeline_on) {
        TlStream t = tl_stream(c.stream, s);
        tl_device(SIM_TL_KERNEL, t.id, t.blocking, 0, (unsigned long long)c.grid.x * c.grid.y * c.grid.z * c.block.x * c.block.y * c.block.z,
                  false, nullptr, c.site.kernel);
    }
    /* The kernel runs on its stream's device, also when another device is current: what an H200
       with CUDA 13 does (the CUDA Programming Guide says such a launch fails; it did not). */
    LaunchRecord *rec = new LaunchRecord{c, body, s->device};
    enqueue(s, [rec] {
        run_kernel(*rec);
        delete rec->body;
        delete rec;
    });
}

void wait_devices(unsigned mask) { run_until(~0ull, mask); }

cudaStream_t default_stream(int device) { return &g_default_streams[device]; }

int stream_device(cudaStream_t s) {
    CUstream_st *st = resolve(s);
    return st ? st->device : -1;
}

bool enqueue_on(const std::vector<cudaStream_t> &streams, std::function<void()> fn) {
    std::vector<CUstream_st *> all;
    unsigned devices = 0;
    for (cudaStream_t h : streams) {
        CUstream_st *s = resolve(h);
        if (!s) return false;
        all.push_back(s);
        devices |= device_bit(s->device);
    }
    if (all.empty()) return false;
    unsigned long long seq = enqueue(all[0], std::move(fn), devices);
    for (CUstream_st *s : all) s->last_seq = seq;
    return true;
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

cudaError_t cudaDeviceSynchronize(void) {
    tl_host_wait_all("cudaDeviceSynchronize");
    run_until(~0ull, device_bit(current_device())); /* this device's work only */
    return cudaSuccess;
}

/* ---- copies and memsets ---- */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
    if (!count) return cudaSuccess;
    if (cudaError_t e = check_copy("cudaMemcpy", dst, src, count, kind)) return record(e);
    tl_host_wait_token(tl_copy(nullptr, resolve(nullptr), dst, src, count, "cudaMemcpy"), "cudaMemcpy");
    /* a blocking copy on the legacy stream waits for all earlier work of its device (and of the
       devices whose memory it copies) */
    run_until(~0ull, device_bit(current_device()) | owner_mask(dst, src));
    raw_copy(dst, src, count);
    return cudaSuccess;
}

static bool pageable(const void *p) { return classify(p) == MEM_NONE; }

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!count) return cudaSuccess;
    if (cudaError_t e = check_copy("cudaMemcpyAsync", dst, src, count, kind)) return record(e);
    long long tok = tl_copy(stream, s, dst, src, count, "cudaMemcpyAsync");
    /* with pageable memory a GPU copies through a staging buffer, and the call returns when done */
    if ((pageable(dst) && device_side(src)) || (pageable(src) && device_side(dst))) tl_host_wait_token(tok, "cudaMemcpyAsync (pageable)");
    if (pageable(dst)) {
        /* Into pageable memory the copy is synchronous on a GPU: wait for the stream, then copy. */
        run_until(s->last_seq, device_bit(s->device) | owner_mask(src));
        raw_copy(dst, src, count);
        return cudaSuccess;
    }
    if (pageable(src)) {
        /* From pageable memory the data is staged at call time, so later host writes are not seen. */
        std::shared_ptr<std::vector<unsigned char>> staged(new std::vector<unsigned char>((const unsigned char *)src, (const unsigned char *)src + count));
        enqueue(s, [dst, staged] { raw_copy(dst, staged->data(), staged->size()); }, owner_mask(dst));
        return cudaSuccess;
    }
    enqueue(s, [dst, src, count] { raw_copy(dst, src, count); }, owner_mask(dst, src));
    return cudaSuccess;
}

static cudaError_t copy_2d(const char *fn, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                           cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    if (!width || !height) return cudaSuccess;
    size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    if (cudaError_t e = check_copy(fn, dst, src, 0, kind)) return record(e);
    /* extents: the last row must fit too */
    if (cudaError_t e = check_copy(fn, (char *)dst + dspan - 1, (const char *)src + sspan - 1, 1, kind)) return record(e);
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    auto body = [=] {
        for (size_t r = 0; r < height; r++) raw_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    };
    long long tok = tl_copy(stream, s, dst, src, width * height, fn);
    if (!async || (pageable(dst) && device_side(src)) || (pageable(src) && device_side(dst))) tl_host_wait_token(tok, fn);
    if (async) enqueue(s, body, owner_mask(dst, src));
    else {
        run_until(~0ull, device_bit(current_device()) | owner_mask(dst, src));
        body();
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
    return copy_2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind, nullptr, false);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
    return copy_2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, true);
}

static cudaError_t memset_checked(const char *fn, void *p, int value, size_t count, cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!count) return cudaSuccess;
    const void *base = nullptr;
    size_t size = 0;
    MemKind k = classify(p, &base, &size);
    if (k == MEM_NONE) {
        char b[256];
        snprintf(b, sizeof b, "%s: %p is ordinary host memory, not device memory; returns cudaErrorInvalidValue", fn, p);
        warn(b);
        return record(cudaErrorInvalidValue);
    }
    if ((const char *)p + count > (const char *)base + size) {
        char b[256];
        snprintf(b, sizeof b, "%s: %zu bytes from %p run past the end of its %zu-byte allocation; returns cudaErrorInvalidValue", fn, count, p, size);
        warn(b);
        return record(cudaErrorInvalidValue);
    }
    if (g_timeline_on) {
        TlStream t = tl_stream(stream, s);
        tl_device(SIM_TL_MEMSET, t.id, t.blocking, count, 0, false, nullptr, fn);
    }
    enqueue(s, [p, value, count] { raw_set(p, value, count); }, owner_mask(p));
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t count) { return memset_checked("cudaMemset", p, value, count, nullptr); }

static cudaError_t memset_2d(const char *fn, void *p, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
    if (width > pitch) return record(cudaErrorInvalidValue);
    if (!width || !height) return cudaSuccess;
    /* the whole span must lie in one allocation: check its first and last byte */
    if (cudaError_t e = memset_checked(fn, p, value, 0, stream)) return e;
    const void *base = nullptr;
    size_t size = 0;
    if (classify(p, &base, &size) == MEM_NONE || (const char *)p + pitch * (height - 1) + width > (const char *)base + size) {
        char b[256];
        snprintf(b, sizeof b, "%s: %zu rows of %zu bytes, pitch %zu, from %p run past the end of its allocation; returns cudaErrorInvalidValue", fn, height,
                 width, pitch, p);
        warn(b);
        return record(cudaErrorInvalidValue);
    }
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (g_timeline_on) {
        TlStream t = tl_stream(stream, s);
        tl_device(SIM_TL_MEMSET, t.id, t.blocking, width * height, 0, false, nullptr, fn);
    }
    enqueue(s, [=] {
        for (size_t r = 0; r < height; r++) raw_set((char *)p + r * pitch, value, width);
    });
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height) {
    return memset_2d("cudaMemset2D", p, pitch, value, width, height, nullptr);
}
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
    return memset_2d("cudaMemset2DAsync", p, pitch, value, width, height, s);
}

/* Every simulated device shares one address space, so a peer copy is an ordinary device copy
   (which waits for, and is waited for by, both devices). */
static cudaError_t check_peer_devices(int a, int b) {
    int n = device_count();
    return (a < 0 || a >= n || b < 0 || b >= n) ? record(cudaErrorInvalidDevice) : cudaSuccess;
}
cudaError_t cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t count) {
    if (cudaError_t e = check_peer_devices(dd, sd)) return e;
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t count, cudaStream_t s) {
    if (cudaError_t e = check_peer_devices(dd, sd)) return e;
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, s);
}
cudaError_t cudaMemsetAsync(void *p, int value, size_t count, cudaStream_t s) { return memset_checked("cudaMemsetAsync", p, value, count, s); }

cudaError_t cudaMemPrefetchAsync(const void *p, size_t, struct cudaMemLocation, unsigned int, cudaStream_t stream) {
    if (!resolve(stream)) return record(cudaErrorInvalidResourceHandle);
    return classify(p) == MEM_MANAGED ? cudaSuccess : cudaErrorInvalidValue;
}

/* ---- streams ---- */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *ps, unsigned int flags) {
    if (!ps) return record(cudaErrorInvalidValue);
    CUstream_st *s = new CUstream_st{flags, 0, g_next_stream_id++, current_device()};
    g_streams.insert(s);
    *ps = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *ps) { return cudaStreamCreateWithFlags(ps, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *ps, unsigned int flags, int) { return cudaStreamCreateWithFlags(ps, flags); }
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority) {
    if (!priority || !resolve(s)) return record(!priority ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    *priority = 0;
    return cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags) {
    CUstream_st *st = resolve(s);
    if (!flags || !st) return record(!flags ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    *flags = st->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!g_streams.count(s)) return record(cudaErrorInvalidResourceHandle);
    /* Work already queued still runs; the handle is gone. */
    g_streams.erase(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (g_timeline_on) tl_host_wait_stream(tl_stream(stream, s).id, "cudaStreamSynchronize");
    run_until(s->last_seq, device_bit(s->device));
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    /* Pending work is "still running" this time, and done by the next query. */
    tl_api("cudaStreamQuery");
    return run_until(s->last_seq, device_bit(s->device)) ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t e, unsigned int) {
    CUstream_st *s = resolve(stream);
    if (!s || !g_events.count(e)) return record(cudaErrorInvalidResourceHandle);
    if (g_timeline_on) {
        TlStream t = tl_stream(stream, s);
        tl_wait_event(t.id, t.blocking, e);
    }
    /* The queue runs in issue order, so the record already comes first; on another device, a marker
       ties the two devices' work together at this point. */
    if (e->device != s->device) enqueue(s, [] {}, device_bit(e->device));
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *data) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!fn) return record(cudaErrorInvalidValue);
    TlStream t = tl_stream(stream, s);
    long long tok = tl_device(SIM_TL_HOST_FN, t.id, t.blocking, 0, 0, false, nullptr, "cudaLaunchHostFunc");
    enqueue(s, [fn, data, tok] {
        double t0 = now_ms();
        fn(data);
        tl_host_fn_ran(tok, now_ms() - t0);
    });
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t cb, void *data, unsigned int flags) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!cb || flags != 0) return record(cudaErrorInvalidValue);
    TlStream t = tl_stream(stream, s);
    long long tok = tl_device(SIM_TL_HOST_FN, t.id, t.blocking, 0, 0, false, nullptr, "cudaStreamAddCallback");
    enqueue(s, [cb, stream, data, tok] {
        double t0 = now_ms();
        cb(stream, cudaSuccess, data);
        tl_host_fn_ran(tok, now_ms() - t0);
    });
    return cudaSuccess;
}

/* ---- events ---- */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *pe, unsigned int flags) {
    if (!pe) return record(cudaErrorInvalidValue);
    CUevent_st *e = new CUevent_st{flags, false, false, 0, 0.0, current_device()};
    g_events.insert(e);
    *pe = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *pe) { return cudaEventCreateWithFlags(pe, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!g_events.erase(e)) return record(cudaErrorInvalidResourceHandle);
    return cudaSuccess; /* the struct is leaked on purpose: a queued record may still write it */
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s || !g_events.count(e)) return record(cudaErrorInvalidResourceHandle);
    if (s->device != e->device) return record(cudaErrorInvalidResourceHandle); /* CUDA: event and stream of different devices */
    e->recorded = true;
    e->done = false;
    if (g_timeline_on) {
        TlStream t = tl_stream(stream, s);
        tl_event_record(e, t.id, t.blocking);
    }
    e->record_seq = enqueue(s, [e] {
        e->t_ms = now_ms();
        e->done = true;
    });
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    if (!g_events.count(e)) return record(cudaErrorInvalidResourceHandle);
    tl_host_wait_event(e, "cudaEventSynchronize");
    if (e->recorded) run_until(e->record_seq, device_bit(e->device));
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
    if (!g_events.count(e)) return record(cudaErrorInvalidResourceHandle);
    if (!e->recorded) return cudaSuccess;
    tl_api("cudaEventQuery");
    return run_until(e->record_seq, device_bit(e->device)) ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    if (!ms) return record(cudaErrorInvalidValue);
    if (!g_events.count(a) || !g_events.count(b)) return record(cudaErrorInvalidResourceHandle);
    if ((a->flags | b->flags) & cudaEventDisableTiming) return record(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded || a->device != b->device) return record(cudaErrorInvalidResourceHandle);
    if (!a->done || !b->done) return cudaErrorNotReady;
    tl_api("cudaEventElapsedTime");
    /* while a timeline is recorded, events tell the modelled time (simcuda/timeline.h) */
    if (tl_elapsed(a, b, ms)) return cudaSuccess;
    *ms = (float)(b->t_ms - a->t_ms);
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
    run_all();
    return cudaSuccess;
}

} // extern "C"

extern "C" cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t stream, unsigned int) { return cudaEventRecord(e, stream); }

extern "C" void simcuda_set_eager(int eager) { g_eager = eager != 0; }

extern "C" void simcuda_live_streams_events(int *streams, int *events) {
    if (streams) *streams = (int)g_streams.size();
    if (events) *events = (int)g_events.size();
}

/* Stream-ordered allocation: the memory exists at once (it may be used by work queued after this
   call); the free happens in stream order. */
extern "C" cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t stream) {
    if (!resolve(stream)) return record(cudaErrorInvalidResourceHandle);
    return cudaMalloc(p, size);
}
extern "C" cudaError_t cudaFreeAsync(void *p, cudaStream_t stream) {
    CUstream_st *s = resolve(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (p && classify(p) != MEM_DEVICE) return record(cudaErrorInvalidValue);
    enqueue(s, [p] { cudaFree(p); });
    return cudaSuccess;
}
