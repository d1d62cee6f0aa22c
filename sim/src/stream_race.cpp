/* stream_race.cpp -- the stream race check: two operations that no CUDA ordering links (not the same
 * stream, no event wait, no host wait in between) and that touch the same bytes, one of them
 * writing; and the host changing an async copy's source before the copy ran.
 *
 * What each operation touches: copies and memsets say it at the call. A kernel's writes are found by
 * comparing, before and after it runs, the buffers its pointer arguments point into (only while
 * created streams exist, so a program of one stream pays nothing); what a kernel reads is not known
 * and takes no part (the stream schedules still show such a race as a wrong result). Operations are
 * remembered until everything queued later is ordered after them. */
#include "stream_queue.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile_code.h"

extern char **environ;

namespace simcuda {

void raw_copy(void *dst, const void *src, size_t count); /* memory.cpp: sees device memory */

bool stream_racecheck_on() {
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("SIM_STREAM_RACECHECK");
        on = !(e && *e == '0');
    }
    return on;
}

__attribute__((no_sanitize_address)) uint64_t hash_host_bytes(const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

struct Done {
    unsigned long long seq;
    std::vector<int> keys;
    std::vector<Range> ranges;
    std::string what, stream;
    uintptr_t caller;
};
static std::deque<Done> g_log;
constexpr size_t kMaxLog = 4096;
constexpr size_t kMaxSnapshot = 256u << 20; /* larger buffers are not compared */
constexpr size_t kMaxRanges = 1024;

static bool happened_before(const Done &a, const VClock &b) {
    for (int k : a.keys) {
        auto it = b.find(k);
        if (it != b.end() && it->second >= a.seq) return true;
    }
    return false;
}

void race_prune(const VClock &host, bool queue_empty) {
    /* Once the host has waited for an operation, everything it queues later is ordered after it;
       with nothing else queued, nothing can race with it any more. */
    if (!queue_empty) return;
    std::deque<Done> keep;
    for (Done &d : g_log)
        if (!happened_before(d, host)) keep.push_back(std::move(d));
    g_log.swap(keep);
}

/* ---- source lines of call sites ---- */
std::string caller_line(uintptr_t pc) {
    if (!pc) return "";
    std::string file;
    uintptr_t rel = 0;
    if (!object_file_of(pc - 1, &file, &rel)) return "";
    char addr[32];
    snprintf(addr, sizeof addr, "0x%" PRIxPTR, rel);
    int fd[2];
    if (pipe(fd)) return "";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    const char *argv[] = {"addr2line", "-e", file.c_str(), addr, nullptr};
    pid_t pid;
    int err = posix_spawnp(&pid, "addr2line", &fa, nullptr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    std::string out;
    char buf[512];
    ssize_t n;
    while (!err && (n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, (size_t)n);
    close(fd[0]);
    if (!err) waitpid(pid, nullptr, 0);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    size_t d = out.find(" (discriminator");
    if (d != std::string::npos) out.resize(d);
    if (out.empty() || out[0] == '?') return "";
    return out;
}

/* ---- what an operation touched ---- */
static std::string where(const std::string &what, uintptr_t caller) {
    std::string line = caller_line(caller);
    return line.empty() ? what : what + " at " + line;
}

static std::string describe_bytes(const Range &r) {
    const void *base = nullptr;
    size_t size = 0;
    MemKind k = classify((const void *)r.lo, &base, &size);
    char b[256];
    if (k == MEM_NONE) snprintf(b, sizeof b, "bytes [%p, %p)", (void *)r.lo, (void *)r.hi);
    else
        snprintf(b, sizeof b, "bytes %zu to %zu of a %zu-byte buffer of %s", (size_t)(r.lo - (uintptr_t)base), (size_t)(r.hi - (uintptr_t)base) - 1, size,
                 mem_kind_name(k));
    return b;
}

[[noreturn]] static void report(const Done &a, const Range &ra, const Done &b, const Range &rb) {
    Range both{std::max(ra.lo, rb.lo), std::min(ra.hi, rb.hi), false};
    std::string detail = where(a.what, a.caller) + " in " + a.stream + (ra.write ? " wrote " : " read ") + describe_bytes(both) + ", and " +
                         where(b.what, b.caller) + " in " + b.stream + (rb.write ? " wrote " : " read ") +
                         "them too, with nothing ordering the two: they may run in either order, or at the same time [stream schedule " +
                         stream_schedule_name() + "]";
    /* Two causes fit the same race, and the race alone does not tell them apart: operations meant to
       touch parts of their own (two chunks, two devices' shares) given the same bytes by a wrong offset
       or split, which ordering would only hide; or operations that do share the bytes, unordered. */
    fatal("stream race", detail,
          "if each of the two was meant to touch a part of its own (a chunk, a device's share), the offset or the split that gave "
          "them these bytes is wrong, and ordering the streams would only hide it; if they are meant to share the bytes, order them: "
          "issue both in one stream, or cudaEventRecord(e, first's stream) after the first and cudaStreamWaitEvent(second's stream, "
          "e) before the second, or wait on the host (cudaStreamSynchronize) before issuing the second; or give each stream buffers "
          "of its own");
}

void race_before(RunningOp &op, uint64_t host_src_hash) {
    const OpInfo &info = *op.info;
    if (info.host_src && hash_host_bytes(info.host_src, info.host_src_bytes) != host_src_hash) {
        Range r{(uintptr_t)info.host_src, (uintptr_t)info.host_src + info.host_src_bytes, false};
        fatal("host wrote memory an unfinished copy reads",
              where(info.what, info.caller) + " in " + info.stream + " copies from " + describe_bytes(r) +
                  ", and the host changed those bytes after queueing the copy and before it ran [stream schedule " + stream_schedule_name() + "]",
              "cudaMemcpyAsync returns before the copy is done: wait for the copy (cudaStreamSynchronize, or an event recorded after it) "
              "before writing its source again, or use another buffer for the next piece of work");
    }
    if (info.pointers.empty() || (live_streams().empty() && device_count() == 1)) return;
    for (const void *p : info.pointers) {
        const void *base = nullptr;
        size_t size = 0;
        MemKind k = classify(p, &base, &size);
        if (k == MEM_NONE || !size || size > kMaxSnapshot) continue;
        bool seen = false;
        for (auto &b : op.buffers) seen |= b.first == base;
        if (seen) continue;
        op.buffers.emplace_back(base, size);
        op.snapshots.emplace_back(size);
        raw_copy(op.snapshots.back().data(), base, size);
    }
}

/* The byte ranges where `now` differs from `before`, as writes at `base`. */
static void changed_ranges(const unsigned char *before, const unsigned char *now, size_t n, uintptr_t base, std::vector<Range> *out) {
    size_t i = 0;
    while (i < n) {
        if (before[i] == now[i]) {
            /* skip equal words quickly */
            if (i % 8 == 0 && i + 8 <= n && !memcmp(before + i, now + i, 8)) {
                i += 8;
                continue;
            }
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && before[j] != now[j]) j++;
        /* whole 4-byte words, and pieces less than a word apart joined: a kernel that changed one
           byte of each int wrote the ints */
        uintptr_t lo = (base + i) & ~(uintptr_t)3, hi = std::min((base + j + 3) & ~(uintptr_t)3, base + n);
        if (!out->empty() && out->back().write && lo <= out->back().hi + 4 && lo >= out->back().lo) out->back().hi = std::max(out->back().hi, hi);
        else if (out->size() < kMaxRanges) out->push_back(Range{lo, hi, true});
        else out->back().hi = hi; /* too many pieces: the last one grows */
        i = j;
    }
}

void race_after(RunningOp &op) {
    const OpInfo &info = *op.info;
    Done d{op.seq, op.keys, info.ranges, info.what, info.stream, info.caller};
    for (size_t i = 0; i < op.buffers.size(); i++) {
        std::vector<unsigned char> now(op.buffers[i].second);
        raw_copy(now.data(), op.buffers[i].first, now.size());
        changed_ranges(op.snapshots[i].data(), now.data(), now.size(), (uintptr_t)op.buffers[i].first, &d.ranges);
    }
    if (d.ranges.empty()) return;
    for (const Done &a : g_log) {
        if (happened_before(a, op.vc)) continue;
        for (const Range &ra : a.ranges)
            for (const Range &rb : d.ranges)
                if (ra.lo < rb.hi && rb.lo < ra.hi && (ra.write || rb.write)) report(a, ra, d, rb);
    }
    if (g_log.size() >= kMaxLog) g_log.pop_front();
    g_log.push_back(std::move(d));
}

} // namespace simcuda
