/* stream_queue.h -- the work queue behind streams: each queued operation with the operations CUDA
 * orders it after, the stream schedules that decide when unordered work runs, and the happens-before
 * clocks the stream race check (stream_race.cpp) reads.
 *
 * CUDA orders an operation after: the previous one in its stream; for the legacy default stream,
 * the last one of every blocking stream of its device (and a blocking stream's operation after the
 * legacy stream's last); an event it waits for (cudaStreamWaitEvent); and whatever the host had
 * waited for before it issued the call. Nothing else: work in two streams without such a link may
 * run in either order, or interleaved. The queue keeps exactly those links (`deps`) and lets the
 * schedule choose among the rest. */
#ifndef SIMCUDA_STREAM_QUEUE_H
#define SIMCUDA_STREAM_QUEUE_H

#include "internal.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace simcuda {

/* A vector clock: for each stream key, the newest operation (by issue number) known to have
   happened before. Operation A happened before B when B's clock holds A's issue number (or a later
   one) for one of A's streams. */
typedef std::map<int, unsigned long long> VClock;
void vc_join(VClock &into, const VClock &from);

/* One byte range an operation reads or writes. */
struct Range {
    uintptr_t lo, hi;
    bool write;
};

} // namespace simcuda

struct CUstream_st {
    unsigned flags;
    unsigned long long last_seq; /* its newest operation (0: none yet) */
    int id;                      /* the modelled timeline's stream number: 0 for a default stream, then 1, 2, ... */
    int device;                  /* the device current when it was created */
    bool is_default;             /* a device's legacy default stream */
    simcuda::VClock vc;          /* the clock of its newest operation */
};
struct CUevent_st {
    unsigned flags;
    bool recorded;
    bool done;
    unsigned long long record_seq;
    double t_ms;
    int device;
    simcuda::VClock vc; /* the clock of its last record */
};

namespace simcuda {

/* What an operation is, for the race check's messages. */
struct OpInfo {
    std::string what;       /* "kernel 'k' (launched at a.cu:12)", "cudaMemcpyAsync host to device, 4096 bytes" */
    uintptr_t caller = 0;   /* the program's call site (a return address), when `what` has no line */
    std::string stream;     /* its stream's name (queue_op fills it in) */
    std::vector<Range> ranges;          /* what it touches, when known at the call (copies, memsets) */
    std::vector<const void *> pointers; /* a kernel's pointer arguments: what it writes is found by comparing */
    const void *host_src = nullptr;     /* an async copy's host-side source (pinned, mapped, managed) ... */
    size_t host_src_bytes = 0;          /* ... and its length: the host must not change it before the copy runs */
    bool host_function = false;         /* cudaLaunchHostFunc, cudaStreamAddCallback: it may write host memory in stream order */
};

/* The stream's key in the clocks: created streams by id, device d's default stream as -(d + 1). */
int stream_key(const CUstream_st *s);
/* "stream 2", "the legacy default stream", "device 1's legacy default stream". */
std::string stream_name(const CUstream_st *s);

/* Queues `run` on stream s (and on each of `more`, for an operation of several streams), after
   `extra_deps` too (with their clocks in `extra_vc`); `also` adds devices it belongs to (whose
   waits finish it). Returns its issue number. In a host function it is refused (returns 0). */
unsigned long long queue_op(CUstream_st *s, OpInfo info, std::function<void()> run, unsigned also = 0,
                            const std::vector<CUstream_st *> &more = {}, unsigned long long extra_dep = 0, const VClock *extra_vc = nullptr);
/* The host waits for operation `seq`: it and what it is ordered after run (and whatever else the
   schedule lets run); the host then knows it done (its clock joins the host's). */
void finish_op(unsigned long long seq, bool learn = true);
/* The host waits for every operation of the devices in `mask` (~0u: all). */
void finish_devices(unsigned mask);
bool op_pending(unsigned long long seq);
/* The host has learnt that everything in `vc` happened (a successful query). */
void host_learns(const VClock &vc);
/* The created streams whose work may be pending (streams.cpp), for the legacy stream's rule; and
   each device's legacy default stream, told once by streams.cpp. */
const std::vector<CUstream_st *> &live_streams();
void note_default_stream(int device, CUstream_st *s);
/* True while a host function (cudaLaunchHostFunc, cudaStreamAddCallback) runs: CUDA calls are not
   allowed there. */
bool in_host_function();
void set_in_host_function(bool on);
/* Runs every queued operation at once, in issue order (Thrust's host backend reads results at
   once). */
void set_eager(bool on);

/* Stream schedules: when unordered work runs. */
enum StreamScheduleMode {
    SS_ISSUE,   /* a wait runs everything of its devices issued up to what it waits for (the old model) */
    SS_FORWARD, /* only what the wait is ordered after, in issue order; the rest stays queued (late) */
    SS_REVERSE, /* the same, the newest ready operation first */
    SS_EAGER,   /* every operation as soon as it is issued (early) */
    SS_RANDOM,  /* ready operations in random order, some early, some late, interleaved */
};
/* SIM_STREAM_SCHEDULE, else the thread schedule's counterpart (forward, reverse, random:N). */
StreamScheduleMode stream_schedule(unsigned long long *seed = nullptr);
std::string stream_schedule_name();

/* check_kernel_pointer (memory.cpp) tells each pointer argument of the launch being made. */
void note_kernel_pointer(const void *p);

/* ---- the stream race check (stream_race.cpp) ---- */
/* Whether it runs (SIM_STREAM_RACECHECK=0 turns it off). */
bool stream_racecheck_on();
/* Called around each operation's run: `before` snapshots what a kernel's pointers reach (when other
   streams exist) and checks an async copy's host source; `after` finds what it wrote and compares
   its ranges with every earlier operation it is not ordered with. */
struct RunningOp {
    unsigned long long seq;
    std::vector<int> keys;
    VClock vc;
    const OpInfo *info;
    std::vector<std::vector<unsigned char>> snapshots;
    std::vector<std::pair<const void *, size_t>> buffers;
};
void race_before(RunningOp &op, uint64_t host_src_hash);
void race_after(RunningOp &op);
uint64_t hash_host_bytes(const void *p, size_t n);
/* Forgets finished operations that everything queued later is ordered after. */
void race_prune(const VClock &host, bool queue_empty);
/* The program's source line of a return address, or "". */
std::string caller_line(uintptr_t pc);

} // namespace simcuda
#endif
