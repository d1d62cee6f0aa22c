/* parallel.cpp -- parallel launches: the blocks of one launch on several cores, where that cannot
 * change what the program sees.
 *
 * The simulator is single-threaded by design (the scheduler's state, the threads' built-in
 * variables and every __shared__ variable are process globals), so the parallel mode uses
 * processes: at a launch that qualifies (parallel_workers_for), the parent forks one worker per
 * core; each worker takes the next block in the schedule's order from a counter in a shared page
 * and runs it with the ordinary scheduler (scheduler_launch.cpp), until none is left. Device and
 * pinned memory are MAP_SHARED mappings (memory.cpp), so the workers' writes are the program's;
 * everything else a worker changes is its own and disappears with it. Each worker sends back, in a
 * file of its own: its printf calls (with their block's place in the order), the first error it
 * hit (fatal's message, or a device-side assert's lines) and its counters. The parent prints the
 * printf output in block order within the FIFO's budget, and reports the error of the earliest
 * block, as the single-core run would have: so output, errors and results are the same.
 *
 * Workers share no other state, so the mode is only used where a launch needs nothing else: see
 * parallel_workers_for, and sim/README.md "Parallel launches". */
#include "scheduler.h"
#include "racecheck.h"

#include <cerrno>
#include <stdio_ext.h>
#include <map>
#include <sched.h>
#include <csignal>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
int *simcuda_atomic_locks = nullptr;
int *simcuda_atomic_held = nullptr;
}

namespace simcuda {

int g_par_worker = -1;
unsigned long long async_copies_issued();        /* async_copy.cpp */
void async_copies_add(unsigned long long n);

int parallel_workers() {
#if defined(__SANITIZE_ADDRESS__)
    return 1; /* AddressSanitizer's shadow and reports are per process: one core */
#else
    static int workers = 0;
    if (!workers) {
        const char *e = getenv("SIM_WORKERS");
        if (!e || !*e) e = getenv("SIMCUDA_WORKERS");
        if (e && *e) {
            workers = atoi(e);
        } else {
            cpu_set_t set;
            CPU_ZERO(&set);
            workers = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        }
        if (workers < 1) workers = 1;
        if (workers > 64) workers = 64;
    }
    return workers;
#endif
}

/* ---- what decides it ---- */

/* Translation units whose device code may do what a worker cannot share (simcc registers them: a
   __device__ variable, polling between blocks); the first reason, for SIM_VERBOSE. */
static const char *g_serial_reason = nullptr;
/* Launch sites whose blocks waited for each other in a parallel launch: later launches from there
   run on one core. */
static std::map<std::pair<std::string, int>, bool> g_polling_sites;

int register_serial_unit(const char *reason) {
    if (!g_serial_reason) g_serial_reason = reason;
    return 0;
}

static bool single_threaded() {
    /* fork() copies only the calling thread: with other host threads (which may hold a lock), no */
    struct stat st;
    return stat("/proc/self/task", &st) == 0 && st.st_nlink == 3;
}

static bool alarm_handled() {
    struct sigaction sa;
    if (sigaction(SIGALRM, nullptr, &sa) != 0) return true;
    return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/* A program that catches or ignores SIGCHLD might reap the workers before the launch waits for them. */
static bool children_handled() {
    struct sigaction sa;
    if (sigaction(SIGCHLD, nullptr, &sa) != 0) return true;
    return sa.sa_handler != SIG_DFL || (sa.sa_flags & SA_NOCLDWAIT);
}

/* Why a launch runs on one core (null: it need not); SIM_WORKERS_VERBOSE=1 prints it per launch. */
static const char *serial_because(const LaunchRecord &L, unsigned long long nblocks, unsigned threads, int w) {
    if (w < 2) return "one worker (SIM_WORKERS=1, one core, or AddressSanitizer)";
    /* Too small to pay for the forks: a launch costs about 0.4 ms more on two cores (forks, exits, the
       workers' first touch of each page of device memory), and 2^18 threads that do nearly nothing
       (c[i] = i) take as long on two cores as on one (1.7 ms); threads that meet barriers cost far more. */
    if (nblocks < 2 * (unsigned long long)w || nblocks * threads < (1ull << 18)) return "a small launch (fewer than 2^18 threads)";
    if (g_serial_reason) return g_serial_reason; /* simcc: __device__ variables, polling, the device heap */
    if (L.cfg.cooperative || L.cluster.x * L.cluster.y * L.cluster.z > 1) return "a cooperative or clustered launch";
    if (g_profiling || g_racecheck) return "the profiler or the race check";
    if (device_count() > 1) return "several devices";
    if (!kernel_memory_shared()) return "managed memory, a __device__ symbol or registered host memory exists";
    if (g_polling_sites.count(std::make_pair(std::string(L.cfg.site.file), L.cfg.site.line))) return "its blocks waited for each other before";
    if (alarm_handled()) return "a SIGALRM handler (a time limit)";
    if (children_handled()) return "the program catches or ignores SIGCHLD";
    if (!single_threaded()) return "the program has several threads";
    return nullptr;
}

int parallel_workers_for(const LaunchRecord &L, unsigned long long nblocks, unsigned threads) {
    int w = parallel_workers();
    const char *why = serial_because(L, nblocks, threads, w);
    static const char *verbose = getenv("SIM_WORKERS_VERBOSE");
    if (verbose && *verbose == '1')
        fprintf(stderr, "simcuda: launch of '%s' at %s:%d: %s\n", L.cfg.site.kernel, L.cfg.site.file, L.cfg.site.line,
                why ? (std::string("one core: ") + why).c_str() : fmt("%d workers", w).c_str());
    return why ? 0 : w;
}

/* ---- the shared page and the workers' reports ---- */

struct ParControl {
    unsigned long long next;     /* the next block (its place in the schedule's order) to hand out */
    unsigned long long stop;     /* no block at or after this place starts (an error happened there) */
    unsigned long long finished; /* blocks finished, every worker */
    int polled;                  /* a block gave way to wait for another */
    int pad[15];
    int locks[64 * 16];          /* the atomics' locks (atomics.h), one per cache line */
};

static ParControl *g_ctl = nullptr;
static int g_report_fd = -1;
static std::string g_out; /* the worker's records, written to g_report_fd in pieces */

enum RecordKind : unsigned char { R_PRINTF = 'P', R_FATAL = 'F', R_ASSERT = 'A', R_COUNTS = 'C' };
struct RecordHead {
    unsigned char kind;
    unsigned long long seq;
    unsigned long long value; /* printf: its FIFO cost; counts: async copies issued */
    unsigned len, len2;       /* text, and a second text (fatal's hint) */
};

static void write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return;
        }
        p += k;
        n -= (size_t)k;
    }
}

static void flush_records() {
    write_all(g_report_fd, g_out.data(), g_out.size());
    g_out.clear();
}

static void add_record(unsigned char kind, unsigned long long seq, unsigned long long value, const std::string &a, const std::string &b = "") {
    RecordHead h{kind, seq, value, (unsigned)a.size(), (unsigned)b.size()};
    g_out.append((const char *)&h, sizeof h);
    g_out += a;
    g_out += b;
    if (g_out.size() > (1u << 20)) flush_records();
}

static unsigned long long running_seq() { return g_bp ? g_bp->seq : 0; }

int par_worker_printf(const char *f, va_list ap) {
    char buf[1024];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(buf, sizeof buf, f, ap);
    std::string text;
    if (n >= 0 && (size_t)n < sizeof buf) {
        text.assign(buf, (size_t)n);
    } else if (n > 0) {
        text.resize((size_t)n + 1);
        vsnprintf(&text[0], (size_t)n + 1, f, aq);
        text.resize((size_t)n);
    }
    va_end(aq);
    add_record(R_PRINTF, running_seq(), printf_cost(f), text);
    return n;
}

static void stop_at(unsigned long long seq) {
    unsigned long long s = __atomic_load_n(&g_ctl->stop, __ATOMIC_RELAXED);
    while (seq < s && !__atomic_compare_exchange_n(&g_ctl->stop, &s, seq, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    }
}

void par_worker_fatal(const std::string &message, const char *hint) {
    if (simcuda_atomic_held) __atomic_store_n(simcuda_atomic_held, 0, __ATOMIC_RELEASE); /* a fault inside an atomic */
    unsigned long long seq = running_seq();
    stop_at(seq);
    add_record(R_FATAL, seq, hint ? 1 : 0, message, hint ? hint : "");
    flush_records();
    _exit(3);
}

void par_worker_assert(const std::string &text) {
    unsigned long long seq = running_seq();
    stop_at(seq);
    add_record(R_ASSERT, seq, 0, text);
}

/* Worker side of the launch loop (scheduler_launch.cpp). */
unsigned long long par_take_block(unsigned long long nblocks) {
    unsigned long long seq = __atomic_fetch_add(&g_ctl->next, 1, __ATOMIC_RELAXED);
    if (seq >= __atomic_load_n(&g_ctl->stop, __ATOMIC_ACQUIRE)) return nblocks;
    return seq < nblocks ? seq : nblocks;
}
void par_block_finished() { __atomic_fetch_add(&g_ctl->finished, 1, __ATOMIC_RELAXED); }
void par_block_suspended() { __atomic_store_n(&g_ctl->polled, 1, __ATOMIC_RELAXED); }

/* A worker whose resident blocks wait for each other may be waiting for a block of another worker:
   it is a deadlock only when no worker finishes a block for about two seconds. */
bool par_others_progressed() {
    static unsigned long long seen = ~0ull;
    static unsigned quiet = 0;
    unsigned long long now = __atomic_load_n(&g_ctl->finished, __ATOMIC_RELAXED);
    if (now != seen) {
        seen = now;
        quiet = 0;
        return true;
    }
    if (++quiet > 2000) return false;
    usleep(1000);
    return true;
}

/* ---- the parent ---- */

struct ParLaunch {
    int workers = 0;
    std::vector<pid_t> pids;
    std::vector<int> fds;
};
static ParLaunch g_launch_par;

/* Forks the workers. Returns -1 in the parent (the workers run the launch; par_finish collects), the
   worker's number in a worker, or -2 when nothing was forked (the launch runs here, on one core). */
int par_start(int workers, unsigned long long nblocks) {
    void *page = mmap(nullptr, sizeof(ParControl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return -2;
    g_ctl = (ParControl *)page;
    g_ctl->stop = nblocks;
    ParLaunch &P = g_launch_par;
    P = ParLaunch();
    /* (stdout is not flushed here, so that its output keeps its place among stderr's as on one core;
       each worker drops its copy of the buffer instead) */
    fflush(stderr);
    for (int w = 0; w < workers; w++) {
        int fd = memfd_create("simcuda-worker", MFD_CLOEXEC);
        if (fd < 0) break;
        pid_t pid = fork();
        if (pid < 0) {
            close(fd);
            break;
        }
        if (pid == 0) {
            __fpurge(stdout); /* the parent's unwritten output is the parent's to write */
            for (int other : P.fds) close(other);
            g_par_worker = w;
            g_report_fd = fd;
            g_out.clear();
            simcuda_atomic_locks = g_ctl->locks;
            async_copies_issued(); /* (reading resets it) this worker counts its own */
            return w;
        }
        P.pids.push_back(pid);
        P.fds.push_back(fd);
    }
    P.workers = (int)P.pids.size();
    if (!P.workers) {
        munmap(g_ctl, sizeof(ParControl));
        g_ctl = nullptr;
        return -2;
    }
    return -1;
}

/* In a worker, after its last block: the rest of its report, then it ends. */
void par_worker_finish() {
    add_record(R_COUNTS, 0, async_copies_issued(), "");
    flush_records();
    _exit(0);
}

struct Record {
    RecordHead h;
    std::string a, b;
};

static std::vector<Record> read_records(int fd) {
    std::vector<Record> out;
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0) return out;
    std::string all((size_t)size, '\0');
    size_t got = 0;
    while (got < (size_t)size) {
        ssize_t k = pread(fd, &all[got], (size_t)size - got, (off_t)got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    size_t at = 0;
    while (at + sizeof(RecordHead) <= got) {
        Record r;
        memcpy(&r.h, &all[at], sizeof r.h);
        at += sizeof r.h;
        if (at + r.h.len + r.h.len2 > got) break;
        r.a.assign(all, at, r.h.len);
        at += r.h.len;
        r.b.assign(all, at, r.h.len2);
        at += r.h.len2;
        out.push_back(std::move(r));
    }
    return out;
}

/* Waits for the workers and does what the single-core run would have done with what they found: the
   printf output of the blocks up to the first error (in the schedule's block order, within the FIFO's
   budget), then that error. */
static unsigned long long g_parallel_launches = 0;

void par_finish(const LaunchRecord &L) {
    ParLaunch &P = g_launch_par;
    g_parallel_launches++;
    std::string died;
    for (size_t w = 0; w < P.pids.size(); w++) {
        int status = 0;
        while (waitpid(P.pids[w], &status, 0) < 0 && errno == EINTR) {
        }
        bool ok = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
        if (!ok && died.empty())
            died = WIFSIGNALED(status) ? fmt("worker %zu was killed by signal %d", w, WTERMSIG(status))
                                       : fmt("worker %zu exited with status %d", w, WEXITSTATUS(status));
    }
    std::vector<std::pair<unsigned long long, size_t>> order; /* printf records: (block place, index) */
    std::vector<Record> records;
    const Record *first_error = nullptr;
    for (int fd : P.fds) {
        std::vector<Record> rs = read_records(fd);
        close(fd);
        for (Record &r : rs) records.push_back(std::move(r));
    }
    unsigned long long issued = 0;
    for (size_t i = 0; i < records.size(); i++) {
        const Record &r = records[i];
        if (r.h.kind == R_PRINTF) order.push_back(std::make_pair(r.h.seq, i));
        else if (r.h.kind == R_COUNTS) issued += r.h.value;
        else if ((r.h.kind == R_FATAL || r.h.kind == R_ASSERT) && (!first_error || r.h.seq < first_error->h.seq)) first_error = &records[i];
    }
    async_copies_add(issued);
    if (__atomic_load_n(&g_ctl->polled, __ATOMIC_RELAXED)) g_polling_sites[std::make_pair(std::string(L.cfg.site.file), L.cfg.site.line)] = true;
    munmap(g_ctl, sizeof(ParControl));
    g_ctl = nullptr;
    /* stable: a block's records stay in the order its threads printed them */
    std::stable_sort(order.begin(), order.end(), [](const std::pair<unsigned long long, size_t> &x, const std::pair<unsigned long long, size_t> &y) {
        return x.first < y.first;
    });
    for (auto &o : order) {
        if (first_error && o.first > first_error->h.seq) break;
        const Record &r = records[o.second];
        if (printf_admit_cost(r.h.value)) fwrite(r.a.data(), 1, r.a.size(), stdout);
    }
    if (first_error && first_error->h.kind == R_FATAL) fatal_report(first_error->a, first_error->h.value ? first_error->b.c_str() : nullptr);
    if (first_error) {
        fflush(stdout);
        fputs(first_error->a.c_str(), stderr);
        fflush(stderr);
        set_sticky_error(cudaErrorAssert);
    } else if (!died.empty()) {
        fatal("parallel launch failed", died + " without a report (SIM_WORKERS=1 runs the launch on one core)");
    }
}

} // namespace simcuda

extern "C" unsigned long long simcuda_parallel_launches(void) { return simcuda::g_parallel_launches; }
