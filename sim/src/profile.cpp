/* profile.cpp -- counts what a GPU's memory system counts: global load/store requests and 32-byte
 * sectors, shared-memory requests and bank conflicts, per kernel launch and per source line.
 *
 * Active only in programs built with `simcc --profile` (their memory accesses each call
 * __asan_load4 and friends; sim/src/prof/asan_hooks.cpp records them here) and run with
 * SIM_PROFILE=1. Every access of device (global) or shared memory by a simulated thread is logged
 * with the instruction's address and the number of synchronisation points (barriers, warp
 * operations) the thread has passed. At the end of a block, the k-th execution of one instruction
 * by the lanes of a warp between the same two synchronisation points forms one warp-level request,
 * as on the hardware; its lanes' addresses give the sectors (distinct 32-byte segments of the
 * allocation) or the bank conflicts (32 banks of 4 bytes: the most distinct words one bank must
 * deliver, minus the fewest passes the request needs). At exit the figures are printed on stderr;
 * source lines come from one addr2line call per object.
 *
 * This file records (the hooks, the log, the per-block accounting); profile_report.cpp turns the
 * figures into the report. */
#include "profile.h"
#include "profile_code.h"
#include "unhooked_note.h"

#include <algorithm>
#include <unistd.h>

extern char __start_simcuda_shared[] __attribute__((weak));
extern char __stop_simcuda_shared[] __attribute__((weak));

namespace simcuda {

bool g_profiling = false;
bool g_hooks_linked = false;
bool g_harness = false;

static std::vector<Access> g_log;
std::vector<LaunchStat> g_launches;
static LaunchStat *g_cur_launch = nullptr;
/* the allocations last found, most recent first: a kernel usually reads and writes a few arrays in
   turn (reset at every launch) */
constexpr int kRecentAllocs = 4;
static uintptr_t g_last_base[kRecentAllocs], g_last_end[kRecentAllocs];
/* the gaps between allocations that the last other accesses fell in (locals on a thread's stack, the
   kernel's arguments), most recent first */
static uintptr_t g_gap_lo[2], g_gap_hi[2];

/* Called by the hooks' constructor (only programs built with --profile have them). */
extern "C" void simcuda_profile_hooks_linked() {
    g_hooks_linked = true;
    const char *e = getenv("SIM_PROFILE");
    g_profiling = e && *e && strcmp(e, "0") != 0;
}

static int g_atomic_depth = 0; /* inside an atomic function: its load and store are not separate requests */
/* What one atomic hides: its body is a load, a store or four, a branch or two. A program can call
   simcuda_profile_atomic itself (the atomics in the header do), and one that wraps other code in
   it would hide that code's accesses and branches from the grader: past this many, the rest of a
   region is counted as usual. */
constexpr unsigned kAtomicHidesAtMost = 16;
static unsigned g_atomic_hidden = 0; /* accesses and blocks the current atomic has hidden */

static bool atomic_hides() { return g_atomic_depth > 0 && g_atomic_hidden++ < kAtomicHidesAtMost; }

/* The running block made a global atomic (whose store the atomic hides from the log): it stored. */
static bool g_block_atomic_stored = false;

static bool in_shared_memory(uintptr_t addr) {
    return (__start_simcuda_shared && addr >= (uintptr_t)__start_simcuda_shared && addr < (uintptr_t)__stop_simcuda_shared) ||
           (addr >= (uintptr_t)dynamic_shared_arena && addr < (uintptr_t)dynamic_shared_arena + kMaxSharedPerBlockOptin);
}

/* For the race check (racecheck.cpp), which hides an atomic's body the same way: the number of the
   atomic whose body runs now (they are counted from 1), or 0 outside atomics. */
static unsigned long long g_atomic_serial = 0;
unsigned long long atomic_in_progress() { return g_atomic_depth > 0 ? g_atomic_serial : 0; }

void profile_block_entered(const void *ret) {
    unsigned seg;
    if (atomic_hides() || !g_cur_launch) return;
    int tid = profile_current_thread(&seg);
    if (tid < 0) return;
    Access a;
    a.pc = (uintptr_t)ret - 1;
    a.addr = 0;
    a.base = 0;
    a.tid = (unsigned)tid;
    a.seg = seg;
    a.k = 0;
    a.size = 0;
    a.store = 0;
    a.space = SP_BLOCK;
    g_log.push_back(a);
}

/* Called by every atomic function of a profiled program (sim/include/simcuda/atomics.h), at its start
   (begin = 1) and end. */
extern "C" void simcuda_profile_atomic(const void *address, unsigned size, int begin) {
    (void)size;
    if (!begin) {
        if (g_atomic_depth > 0) g_atomic_depth--; /* an end without its begin hides nothing */
        return;
    }
    if (!g_atomic_depth) g_atomic_hidden = 0, g_atomic_serial++;
    if (g_atomic_depth++ || !g_profiling || !g_cur_launch) return;
    unsigned seg;
    if (profile_current_thread(&seg) < 0) return;
    g_cur_launch->c.atomics++;
    if (!in_shared_memory((uintptr_t)address)) g_block_atomic_stored = true;
    unsigned long long n = ++g_cur_launch->atomic_addresses[(uintptr_t)address];
    if (n > g_cur_launch->c.atomic_busiest) g_cur_launch->c.atomic_busiest = n;
}

void profile_record(const void *ret, uintptr_t addr, size_t size, bool store) {
    unsigned seg;
    if (atomic_hides()) return;
    int tid = profile_current_thread(&seg);
    if (tid < 0 || !g_cur_launch) return;
    Access a;
    if (__start_simcuda_shared && addr >= (uintptr_t)__start_simcuda_shared && addr < (uintptr_t)__stop_simcuda_shared) {
        a.space = SP_SHARED;
        a.base = (uintptr_t)__start_simcuda_shared;
    } else if (addr >= (uintptr_t)dynamic_shared_arena && addr < (uintptr_t)dynamic_shared_arena + kMaxSharedPerBlockOptin) {
        a.space = SP_SHARED;
        a.base = (uintptr_t)dynamic_shared_arena;
    } else {
        int r = 0;
        while (r < kRecentAllocs && !(addr >= g_last_base[r] && addr < g_last_end[r])) r++;
        if (r < kRecentAllocs) {
            a.space = SP_GLOBAL;
            a.base = g_last_base[r];
        } else if ((addr >= g_gap_lo[0] && addr < g_gap_hi[0]) || (addr >= g_gap_lo[1] && addr < g_gap_hi[1])) {
            return; /* between allocations, as a recent such access was */
        } else if (outside_allocations((const void *)addr, &g_gap_lo[1], &g_gap_hi[1])) {
            std::swap(g_gap_lo[0], g_gap_lo[1]);
            std::swap(g_gap_hi[0], g_gap_hi[1]);
            return;
        } else {
            const void *base = nullptr;
            size_t bytes = 0;
            MemKind k = classify((const void *)addr, &base, &bytes);
            if (k == MEM_NONE) return; /* a local variable, a kernel argument, host data */
            a.space = SP_GLOBAL;
            a.base = (uintptr_t)base;
            for (int q = kRecentAllocs - 1; q > 0; q--) g_last_base[q] = g_last_base[q - 1], g_last_end[q] = g_last_end[q - 1];
            g_last_base[0] = (uintptr_t)base;
            g_last_end[0] = g_last_base[0] + bytes;
        }
    }
    a.pc = (uintptr_t)ret - 1; /* inside the call instruction, for addr2line */
    a.addr = addr;
    a.tid = (unsigned)tid;
    a.seg = seg;
    a.k = 0;
    a.size = (unsigned short)(size > 65535 ? 65535 : size);
    a.store = store;
    g_log.push_back(a);
}

void profile_mma() {
    unsigned seg;
    if (!g_profiling || !g_cur_launch || profile_current_thread(&seg) < 0) return;
    g_cur_launch->c.mma++;
}

void profile_launch_begin(const LaunchRecord &L) {
    static bool registered = false;
    if (!registered) {
        registered = true;
        atexit(profile_report);
    }
    const LaunchConfig &c = L.cfg;
    g_atomic_depth = 0; /* no atomic spans launches */
    g_block_atomic_stored = false;
    const char *kernel = c.site.kernel ? c.site.kernel : "?", *file = c.site.file ? c.site.file : "?";
    for (auto &s : g_launches)
        if (s.kernel == kernel && s.file == file && s.line == c.site.line && s.grid.x == c.grid.x && s.grid.y == c.grid.y &&
            s.grid.z == c.grid.z && s.block.x == c.block.x && s.block.y == c.block.y && s.block.z == c.block.z) {
            g_cur_launch = &s;
            s.launches++;
            return;
        }
    g_launches.emplace_back();
    LaunchStat &s = g_launches.back();
    s.kernel = kernel;
    s.file = file;
    s.line = c.site.line;
    s.grid = c.grid;
    s.block = c.block;
    s.launches = 1;
    g_cur_launch = &s;
}

void profile_launch_end() {
    if (g_cur_launch) g_cur_launch->atomic_addresses.clear(); /* contention is per launch */
    g_cur_launch = nullptr;
    for (int r = 0; r < kRecentAllocs; r++) g_last_base[r] = g_last_end[r] = 0; /* allocations may be freed between launches */
    g_gap_lo[0] = g_gap_hi[0] = g_gap_lo[1] = g_gap_hi[1] = 0;
}

/* One warp-level request: accesses [b, e) of g_log, the lanes of one warp at one instruction. */
static void account_block(const Access *b, const Access *e) {
    BlockStat &bs = g_cur_launch->blocks[b->pc];
    bs.execs++;
    bs.lanes += (unsigned long long)(e - b);
    bool split = false;
    for (const Access *p = b; p < e; p++) {
        if (p->addr != b->addr) split = true;
        if (std::find(bs.next.begin(), bs.next.end(), p->addr) == bs.next.end() && bs.next.size() < 8) bs.next.push_back(p->addr);
    }
    if (split) bs.divergent++;
}

static void account(const Access *b, const Access *e) {
    if (b->space == SP_BLOCK) {
        account_block(b, e);
        return;
    }
    LaunchStat &L = *g_cur_launch;
    int sp = b->space, st = b->store;
    LineStat &ls = L.lines[std::make_pair(b->pc, sp * 2 + st)];
    ls.space = (unsigned char)sp;
    ls.store = (unsigned char)st;
    ls.size = b->size;
    ls.requests++;
    L.c.req[sp][st]++;
    ls.lanes += (unsigned long long)(e - b);
    /* the stride from one lane to the next (between the first two lanes taking part), once */
    if (!ls.stride_known && e - b >= 2 && b[1].tid != b->tid) {
        long d = (long)(b[1].addr - b->addr), n = (long)(b[1].tid - b->tid);
        if (d % n == 0) {
            ls.stride = d / n;
            ls.stride_known = true;
        }
    }
    static std::vector<uintptr_t> units;
    static std::vector<std::pair<uintptr_t, uintptr_t>> spans;
    units.clear();
    spans.clear();
    if (sp == SP_GLOBAL) {
        for (const Access *p = b; p < e; p++) {
            uintptr_t off = p->addr - p->base, last = off + (p->size ? p->size : 1) - 1;
            for (uintptr_t s = off >> 5; s <= last >> 5; s++) units.push_back(p->base + (s << 5));
            spans.push_back(std::make_pair(p->addr, p->addr + (p->size ? p->size : 1)));
        }
        std::sort(units.begin(), units.end());
        unsigned long long sectors = (unsigned long long)(std::unique(units.begin(), units.end()) - units.begin());
        /* the fewest sectors that could hold the bytes asked for */
        std::sort(spans.begin(), spans.end());
        unsigned long long bytes = 0;
        uintptr_t lo = 0, hi = 0;
        for (size_t i = 0; i < spans.size(); i++) {
            if (i == 0 || spans[i].first > hi) {
                bytes += hi - lo;
                lo = spans[i].first;
                hi = spans[i].second;
            } else if (spans[i].second > hi) {
                hi = spans[i].second;
            }
        }
        bytes += hi - lo;
        unsigned long long ideal = (bytes + 31) / 32;
        L.c.units[sp][st] += sectors;
        L.c.ideal[sp][st] += ideal;
        ls.units += sectors;
        ls.ideal += ideal;
    } else {
        for (const Access *p = b; p < e; p++) {
            uintptr_t off = p->addr - p->base, last = off + (p->size ? p->size : 1) - 1;
            for (uintptr_t w = off >> 2; w <= last >> 2; w++) units.push_back(w);
        }
        std::sort(units.begin(), units.end());
        size_t words = (size_t)(std::unique(units.begin(), units.end()) - units.begin());
        unsigned per_bank[32] = {0};
        unsigned most = 0;
        for (size_t i = 0; i < words; i++) most = std::max(most, ++per_bank[units[i] & 31]);
        /* several lanes reading one word is a broadcast; a request of more than 32 words needs
           several passes anyway: only passes beyond that minimum are conflicts */
        unsigned passes = (unsigned)((words + 31) / 32);
        unsigned conflicts = most > passes ? most - passes : 0;
        L.c.units[sp][st] += conflicts;
        L.c.ideal[sp][st] += passes;
        ls.units += conflicts;
        ls.ideal += passes;
        ls.max_ways = std::max(ls.max_ways, most);
    }
}

/* What profile_block_end works with, kept from block to block: no allocation per block or per
   instruction, which the runtime's own AddressSanitizer makes expensive. */
static struct {
    std::vector<Access> by_thread; /* the block's accesses, each thread's in program order */
    std::vector<size_t> start;     /* thread t's accesses are by_thread[start[t] .. start[t + 1]) */
    std::vector<uint32_t> id_of;   /* by_thread[i]'s instruction (with its kind of access) as a small number */
    /* an open-addressing table from instruction and kind to that number */
    std::vector<uint64_t> slot_key;
    std::vector<uint32_t> slot_id, used, count, touched;
} g_block;

/* Each thread's accesses in program order: a stable scatter of the log by thread. */
static void sort_by_thread(unsigned threads) {
    auto &start = g_block.start;
    start.assign(threads + 1, 0);
    for (const Access &x : g_log) start[x.tid + 1]++;
    for (unsigned t = 0; t < threads; t++) start[t + 1] += start[t];
    g_block.by_thread.resize(g_log.size());
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (const Access &x : g_log) g_block.by_thread[at[x.tid]++] = x;
}

/* Gives each instruction (with its kind of access) a small number, in id_of; returns how many. */
static uint32_t number_instructions() {
    auto &by_thread = g_block.by_thread;
    auto &slot_key = g_block.slot_key;
    auto &slot_id = g_block.slot_id;
    auto &used = g_block.used;
    if (slot_key.empty()) slot_key.assign(1024, 0), slot_id.assign(1024, 0);
    uint32_t n_ids = 0;
    g_block.id_of.resize(by_thread.size());
    for (size_t i = 0; i < by_thread.size(); i++) {
        const Access &x = by_thread[i];
        uint64_t key = ((uint64_t)x.pc * 8 + (unsigned)x.space * 2 + x.store) | 1; /* never 0: 0 marks a free slot */
        if ((size_t)(n_ids + 1) * 2 > slot_key.size()) { /* keep it at most half full */
            std::vector<uint64_t> old_key;
            std::vector<uint32_t> old_id;
            old_key.swap(slot_key);
            old_id.swap(slot_id);
            slot_key.assign(old_key.size() * 2, 0);
            slot_id.assign(old_key.size() * 2, 0);
            used.clear();
            for (size_t k = 0; k < old_key.size(); k++) {
                if (!old_key[k]) continue;
                size_t h = (size_t)(old_key[k] * 0x9E3779B97F4A7C15ull >> 20) & (slot_key.size() - 1);
                while (slot_key[h]) h = (h + 1) & (slot_key.size() - 1);
                slot_key[h] = old_key[k], slot_id[h] = old_id[k];
                used.push_back((uint32_t)h);
            }
        }
        size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & (slot_key.size() - 1);
        while (slot_key[h] && slot_key[h] != key) h = (h + 1) & (slot_key.size() - 1);
        if (!slot_key[h]) {
            slot_key[h] = key, slot_id[h] = n_ids++;
            used.push_back((uint32_t)h);
        }
        g_block.id_of[i] = slot_id[h];
    }
    for (uint32_t h : used) slot_key[h] = 0;
    used.clear();
    return n_ids;
}

/* Sets each access's k: the how-many-th execution of its instruction by its thread since the
   thread's last synchronisation point; and each basic block's addr to where the lane went next. */
static void count_executions(unsigned threads, uint32_t n_ids) {
    auto &by_thread = g_block.by_thread;
    auto &start = g_block.start;
    auto &count = g_block.count;
    auto &touched = g_block.touched;
    count.assign(n_ids, 0);
    for (unsigned t = 0; t < threads; t++) {
        Access *prev_block = nullptr;
        unsigned seg = start[t] < start[t + 1] ? by_thread[start[t]].seg : 0;
        for (size_t i = start[t]; i < start[t + 1]; i++) {
            Access &x = by_thread[i];
            if (x.space == SP_BLOCK) {
                if (prev_block) prev_block->addr = x.pc; /* where this lane went after its previous block */
                prev_block = &x;
            }
            if (x.seg != seg) { /* a synchronisation point: the counts start again */
                for (uint32_t id : touched) count[id] = 0;
                touched.clear();
                seg = x.seg;
            }
            uint32_t id = g_block.id_of[i];
            if (count[id] == 0) touched.push_back(id);
            x.k = count[id]++;
        }
        for (uint32_t id : touched) count[id] = 0;
        touched.clear();
    }
}

/* Did every lane of the warp from thread `first` make the same accesses in the same order (no lane
   branched away)? Then the j-th access of each lane makes the j-th request, lanes in order. */
static bool lanes_in_step(unsigned first, unsigned lanes, size_t len) {
    auto &by_thread = g_block.by_thread;
    auto &start = g_block.start;
    for (unsigned l = 1; l < lanes; l++)
        if (start[first + l + 1] - start[first + l] != len) return false;
    for (size_t j = 0; j < len; j++) {
        const Access &a0 = by_thread[start[first] + j];
        uint32_t id0 = g_block.id_of[start[first] + j];
        for (unsigned l = 1; l < lanes; l++) {
            size_t i = start[first + l] + j;
            if (!(by_thread[i].seg == a0.seg && g_block.id_of[i] == id0 && by_thread[i].k == a0.k)) return false;
        }
    }
    return true;
}

/* One warp at a time: its lanes' accesses gathered into requests (the same instruction's same
   execution in the same segment), each accounted. */
static void account_warps(unsigned threads) {
    auto &by_thread = g_block.by_thread;
    auto &start = g_block.start;
    /* sorted by a packed key (segment, instruction, execution, lane): sorting 40-byte records took
       most of a profiled run */
    struct Key {
        uint64_t hi, lo; /* hi: segment and instruction number; lo: execution and thread */
        size_t at;
    };
    static std::vector<Key> keys;
    static std::vector<Access> request;
    for (unsigned w = 0; w * 32 < threads; w++) {
        size_t lo = start[w * 32], hi = start[std::min(threads, w * 32 + 32)];
        unsigned first = w * 32, lanes = std::min(threads, first + 32) - first;
        size_t len = start[first + 1] - start[first];
        if (lanes_in_step(first, lanes, len)) { /* the common case, without sorting */
            for (size_t j = 0; j < len; j++) {
                request.clear();
                for (unsigned l = 0; l < lanes; l++) request.push_back(by_thread[start[first + l] + j]);
                account(request.data(), request.data() + request.size());
            }
            continue;
        }
        keys.clear();
        for (size_t i = lo; i < hi; i++)
            keys.push_back(Key{(uint64_t)by_thread[i].seg << 32 | g_block.id_of[i], (uint64_t)by_thread[i].k << 32 | by_thread[i].tid, i});
        std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; });
        for (size_t i = 0; i < keys.size();) {
            size_t j = i + 1;
            while (j < keys.size() && keys[j].hi == keys[i].hi && keys[j].lo >> 32 == keys[i].lo >> 32) j++;
            request.clear();
            for (size_t m = i; m < j; m++) request.push_back(by_thread[keys[m].at]);
            account(request.data(), request.data() + request.size());
            i = j;
        }
    }
}

/* Whether the block stored to global memory at all (its log holds its accesses; an empty log, nothing):
   a block that stores nothing did no work, as when the grid is larger than the work (08.4). */
static void count_block(const dim3 &idx) {
    LaunchStat &L = *g_cur_launch;
    bool stored = g_block_atomic_stored;
    for (size_t i = 0; i < g_log.size() && !stored; i++) stored = g_log[i].space == SP_GLOBAL && g_log[i].store;
    L.thread_blocks++;
    if (!stored) {
        L.thread_blocks_storing_nothing++;
        return;
    }
    L.storing_block_end[0] = std::max(L.storing_block_end[0], idx.x + 1);
    L.storing_block_end[1] = std::max(L.storing_block_end[1], idx.y + 1);
    L.storing_block_end[2] = std::max(L.storing_block_end[2], idx.z + 1);
}

void profile_block_end(unsigned threads, const dim3 &idx) {
    if (g_cur_launch) count_block(idx);
    if (g_cur_launch && !g_log.empty()) {
        sort_by_thread(threads);
        count_executions(threads, number_instructions());
        account_warps(threads);
    }
    g_log.clear();
    g_block_atomic_stored = false;
}

} // namespace simcuda

using namespace simcuda;

extern "C" int simcuda_profile_control(int on) {
    if (!g_hooks_linked) return 0;
    cudaDeviceSynchronize(); /* launches already queued belong to the period before */
    g_harness = true;
    if (on) {
        g_launches.clear();
        g_cur_launch = nullptr;
    }
    g_profiling = on != 0;
    return 1;
}

/* SIM_PROFILE=1 on a program built without --profile: say why nothing is printed. */
static simcuda::UnhookedNote g_profile_note{
    "SIM_PROFILE", &simcuda::g_hooks_linked,
    "simcuda: SIM_PROFILE=1, but this program was built without profiling: rebuild it with `tools/simcc --profile` (or SIMCC_PROFILE=1)"};
