/* racecheck.cpp -- the simulator's race check: two threads of one launch that touch the same bytes
 * of shared or global memory, at least one of them writing, neither through an atomic, with nothing
 * that orders them, stop the program with one message naming both threads, the location and both
 * source lines.
 *
 * The simulator runs a thread from one scheduling point to the next without interruption, so a
 * racy `hist[b] += 1` gives the right answer here; the check looks at who touched what instead of
 * at the result. Every load and store of a program built with `simcc --profile` reaches
 * race_record (sim/src/prof/asan_hooks.cpp); each byte of shared and global memory keeps, in a
 * shadow, its last writer and its last two readers: launch, block, barrier interval, warp
 * operations completed, thread and instruction. Two accesses are ordered when they are of one
 * thread, of one block in different barrier intervals, of two lanes of one warp with a warp
 * operation of both in between, or (global memory) of two blocks that both talk to other blocks
 * through global atomics, fences or __nanosleep -- the check cannot see which plain or volatile
 * access such a protocol orders, so it trusts it. Shared memory of different blocks is different
 * memory, except in a launch with clusters: there every block's shared memory has a place of its own
 * in the shadow (its own accesses and those of the blocks of its cluster through map_shared_rank,
 * which reach its saved copy, land on the same bytes), and two blocks of one cluster are ordered by
 * a cluster.sync() between them. A cooperative launch's grid.sync() orders everything before it
 * before everything after it. Everything else that conflicts is a race.
 *
 * Stores are checked once they are done (at the next access, or the launch's end): a store that
 * left every byte as it was (many threads writing one flag) is no race. A store that has no check
 * of its own (`a[i] += x`: AddressSanitizer's check of the load covers the store) shows as bytes
 * that changed between a load and its thread's next access: no other thread runs in between. */
#include "racecheck.h"

#include "internal.h"
#include "profile_code.h" /* source_line_of */
#include "unhooked_note.h"

#include <cinttypes>
#include <unistd.h>
#include <unordered_map>
#include <vector>

extern char __start_simcuda_shared[] __attribute__((weak));
extern char __stop_simcuda_shared[] __attribute__((weak));

namespace simcuda {

bool g_racecheck = false;
static bool g_hooks_linked = false;
unsigned long long atomic_in_progress(); /* profile.cpp */

namespace {

/* One access as the shadow keeps it; launch 0 is "none". */
struct Acc {
    uint32_t launch, block, barriers, warp_ops, cluster_syncs;
    uint16_t tid, site;
};
/* One byte of memory: its last writer and two of its readers since. */
struct Cell {
    Acc w, r1, r2;
};

constexpr unsigned kPageBits = 12;
constexpr size_t kPageBytes = size_t(1) << kPageBits;
/* Shadow pages (72 bytes per byte) before a launch stops being checked: 72 MiB of shadow, 1 MiB of
   memory touched, far more than the small cases the check is meant for. */
constexpr size_t kMaxPages = 256;
/* A store bigger than this is taken as changing every byte (its old bytes are not kept). */
constexpr size_t kPendingBytes = 64;
/* A load whose bytes its thread has not changed yet stays pending through this many more accesses
   of the thread: in `hist[b] += mine[i]` the compiler may load mine[i] between the load of hist[b]
   and its store, which has no check of its own (trial 8b, a112). */
constexpr unsigned kLoadStaysFor = 4;
/* An atomic's body hides at most this many accesses (as in profile.cpp). */
constexpr unsigned kAtomicHidesAtMost = 16;

enum Space { SPACE_GLOBAL, SPACE_SHARED };

/* An access whose effect is seen at the next one: a store (what it changed), or a load, whose bytes
   changed by then only if the same thread stored them without a check of their own. */
struct Pending {
    uintptr_t addr; /* where the bytes are */
    uintptr_t key;  /* where their shadow is: addr, or a block's shared memory in a launch with clusters */
    size_t size;
    Acc acc;
    Space space;
    bool load;
    unsigned char age; /* a load: accesses of its own thread since, while its bytes stayed as they were */
    unsigned char old[kPendingBytes];
};

uint32_t g_launch = 0;             /* the running launch's serial */
bool g_launch_checked = false;      /* false when this launch is too large to check */
const LaunchRecord *g_record = nullptr;
std::vector<unsigned char> g_talks; /* per block: it used global atomics, fences or sleeps */
std::unordered_map<uintptr_t, Cell *> g_pages;
uintptr_t g_last_page = ~uintptr_t(0);
Cell *g_last_cells = nullptr;
std::vector<uintptr_t> g_site_pc{0};      /* site -> instruction (site 0: unknown) */
std::vector<unsigned char> g_site_rmw{0}; /* site -> its load was seen to be followed by a store (x += v) */
std::unordered_map<uintptr_t, uint16_t> g_sites;
std::vector<Pending> g_pending;
unsigned long long g_atomic_seen = 0; /* the atomic whose body the last accesses were */
unsigned g_atomic_hidden = 0;
bool g_noted_same_value = false, g_noted_too_big = false;
/* the allocation last found, and the gap between allocations last found (reset at every launch:
   memory may be freed between launches) */
uintptr_t g_alloc_lo = 0, g_alloc_hi = 0, g_gap_lo = 0, g_gap_hi = 0;

/* The site number of the check at pc (its return address less one, as the profiler takes it). */
uint16_t site_of(uintptr_t pc) {
    auto it = g_sites.find(pc);
    if (it != g_sites.end()) return it->second;
    if (g_site_pc.size() >= 65535) return 0;
    g_site_pc.push_back(pc);
    g_site_rmw.push_back(0);
    uint16_t site = (uint16_t)(g_site_pc.size() - 1);
    g_sites.emplace(pc, site);
    return site;
}

Cell *cell(uintptr_t addr) {
    uintptr_t page = addr >> kPageBits;
    if (page != g_last_page) {
        Cell *&p = g_pages[page];
        if (!p) {
            if (g_pages.size() > kMaxPages) {
                g_pages.erase(page);
                return nullptr;
            }
            p = (Cell *)calloc(kPageBytes, sizeof(Cell));
            if (!p) return nullptr;
        }
        g_last_page = page;
        g_last_cells = p;
    }
    return g_last_cells + (addr & (kPageBytes - 1));
}

void drop_shadow() {
    for (auto &p : g_pages) free(p.second);
    g_pages.clear();
    g_last_page = ~uintptr_t(0);
    g_last_cells = nullptr;
}

__attribute__((no_sanitize_address)) void raw_copy(unsigned char *dst, uintptr_t src, size_t n) {
    const volatile unsigned char *s = (const volatile unsigned char *)src;
    for (size_t i = 0; i < n; i++) dst[i] = s[i];
}

/* A launch with clusters keeps each block's shared memory at a place of its own in the shadow, from
   kClusterShared on: block b's byte o is kClusterShared + b * g_cluster_stride + o. */
constexpr uintptr_t kClusterShared = uintptr_t(0xC) << 44;
uintptr_t g_cluster_stride = 0; /* 0: the launch has no clusters */

/* The cluster of block b (its linear index) in the running launch. */
unsigned long long cluster_of(uint32_t b) {
    dim3 g = g_record->cfg.grid, c = g_record->cluster;
    unsigned long long x = b % g.x, y = b / g.x % g.y, z = b / g.x / g.y;
    return x / c.x + (unsigned long long)(g.x / c.x) * (y / c.y + (unsigned long long)(g.y / c.y) * (z / c.z));
}

/* Whether prev (an earlier access) and cur may happen at the same time on a GPU. */
bool concurrent(const Acc &prev, const Acc &cur, Space space) {
    if (prev.launch != cur.launch) return false;
    if (prev.block != cur.block) {
        /* each block has shared memory of its own, reached by other blocks only in a cluster
           (distributed shared memory), where cluster.sync() orders them */
        if (space == SPACE_SHARED)
            return g_cluster_stride && prev.cluster_syncs == cur.cluster_syncs && cluster_of(prev.block) == cluster_of(cur.block);
        /* cluster.sync() orders the blocks of a cluster in global memory too */
        if (g_cluster_stride && prev.cluster_syncs != cur.cluster_syncs && cluster_of(prev.block) == cluster_of(cur.block)) return false;
        return !(g_talks[prev.block] && g_talks[cur.block]);
    }
    if (prev.tid == cur.tid || prev.barriers != cur.barriers) return false;
    if (prev.tid / 32 != cur.tid / 32) return true;
    return !race_warp_ordered(prev.tid, prev.warp_ops, cur.tid);
}

/* A slot that holds nothing this access must still be compared with. */
bool reusable(const Acc &slot, const Acc &cur) {
    return slot.launch != cur.launch || (slot.block == cur.block && (slot.tid == cur.tid || slot.barriers != cur.barriers));
}

/* ---- the report ---- */

std::string line_of(uint16_t site) {
    uintptr_t pc = site < g_site_pc.size() ? g_site_pc[site] : 0;
    std::string where = pc ? source_line_of(pc) : "";
    return where.empty() ? "an instruction without line information (build with -g)" : where;
}

/* "`s_hist`, a 1024-byte __shared__ variable of kernel": the static shared variable holding addr
   (from the program's symbol table), its name, and addr's offset in it. */
std::string shared_variable(uintptr_t addr, size_t *offset, std::string *var_name) {
    std::string file;
    uintptr_t rel = addr;
    *offset = addr - (uintptr_t)__start_simcuda_shared;
    if (!object_file_of(addr, &file, &rel)) return "a __shared__ variable";
    std::string cmd = "nm -S -C --defined-only '" + file + "' 2>/dev/null";
    std::string found = "a __shared__ variable";
    if (FILE *f = popen(cmd.c_str(), "r")) {
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            unsigned long start, size;
            char type;
            int used = 0;
            if (sscanf(line, "%lx %lx %c %n", &start, &size, &type, &used) != 3 || !used) continue;
            if (rel < start || rel >= start + size) continue;
            std::string name = line + used;
            while (!name.empty() && name.back() == '\n') name.pop_back();
            size_t colons = name.rfind("::");
            std::string var = colons == std::string::npos ? name : name.substr(colons + 2);
            std::string fn = colons == std::string::npos ? "" : name.substr(0, colons);
            size_t paren = fn.find('(');
            if (paren != std::string::npos) fn = fn.substr(0, paren);
            found = "`" + var + "`, a " + std::to_string(size) + "-byte __shared__ variable" + (fn.empty() ? "" : " of " + fn);
            *var_name = var;
            *offset = rel - start;
            break;
        }
        pclose(f);
    }
    return found;
}

/* "`s_hist[17]` (4 bytes at byte 68 of `s_hist`, a 1024-byte __shared__ variable of kernel)", or
   the allocation for global memory. The element is a guess from the access's size. */
std::string location(uintptr_t addr, Space space, size_t size) {
    std::string name, what, owner;
    size_t offset = 0;
    if (space == SPACE_SHARED && g_cluster_stride && addr >= kClusterShared) {
        /* a block's shared memory in a launch with clusters: the variable is named from the running
           block's own copy at the same offset */
        unsigned long long b = (addr - kClusterShared) / g_cluster_stride;
        unsigned long long gx = gridDim.x, gy = gridDim.y;
        char ob[96];
        snprintf(ob, sizeof ob, ", in the shared memory of block (%llu,%llu,%llu)", b % gx, b / gx % gy, b / gx / gy);
        owner = ob;
        addr = race_shared_address((size_t)((addr - kClusterShared) % g_cluster_stride));
    }
    if (space == SPACE_SHARED && addr >= (uintptr_t)dynamic_shared_arena && addr < (uintptr_t)dynamic_shared_arena + kMaxSharedPerBlockOptin) {
        offset = addr - (uintptr_t)dynamic_shared_arena;
        what = "extern __shared__ memory";
    } else if (space == SPACE_SHARED) {
        what = shared_variable(addr, &offset, &name);
    } else {
        const void *base = nullptr;
        size_t bytes = 0;
        MemKind k = classify((const void *)addr, &base, &bytes);
        offset = addr - (uintptr_t)base;
        what = "a " + std::to_string(bytes) + "-byte allocation of " + mem_kind_name(k);
    }
    char b[160];
    if (!name.empty() && size > 1 && offset % size == 0) snprintf(b, sizeof b, "`%s[%zu]` (%zu bytes at byte %zu of ", name.c_str(), offset / size, size, offset);
    else snprintf(b, sizeof b, "%zu bytes at byte %zu (", size, offset);
    return b + what + owner + ")";
}

std::string who(const Acc &a) {
    unsigned long long gx = gridDim.x, gy = gridDim.y;
    unsigned long long bx = a.block % gx, by = a.block / gx % gy, bz = a.block / gx / gy;
    unsigned tx = a.tid % blockDim.x, ty = a.tid / blockDim.x % blockDim.y, tz = a.tid / blockDim.x / blockDim.y;
    char b[128];
    snprintf(b, sizeof b, "block (%llu,%llu,%llu), thread (%u,%u,%u)", bx, by, bz, tx, ty, tz);
    return b;
}

[[noreturn]] void report(const Acc &prev, bool prev_store, const Acc &cur, bool cur_store, uintptr_t addr, Space space, size_t size) {
    g_racecheck = false; /* the report's own work (popen) must not come back here */
    std::string first = who(prev), second = who(cur), prev_line = line_of(prev.site), cur_line = line_of(cur.site);
    std::string loc = location(addr, space, size);
    bool blocks = prev.block != cur.block, warp = !blocks && prev.tid / 32 == cur.tid / 32;
    bool cluster = blocks && space == SPACE_SHARED; /* distributed shared memory */
    std::string detail = std::string(space == SPACE_SHARED ? "shared" : "global") + " memory " + loc + ": " + first + " " +
                         (prev_store ? "wrote" : "read") + " it at " + prev_line + ", then " + second + " " + (cur_store ? "wrote" : "read") +
                         " it at " + cur_line + ", with ";
    if (cluster) detail += "the two in different blocks of one cluster (distributed shared memory) and no cluster.sync() between them";
    else if (blocks) detail += "the two in different blocks, which run in any order and at the same time";
    else if (warp) detail += "no __syncwarp(), warp operation or __syncthreads() between them (two lanes of one warp; a wmma call only "
                             "waits for the lanes, it does not order their memory accesses)";
    else detail += "no __syncthreads() between them";
    detail += ", and neither access atomic (the simulator's race check)";
    /* a read-modify-write (x += v) that two threads ran at once, or a write and another access */
    bool rmw = prev_line == cur_line || g_site_rmw[prev.site] || g_site_rmw[cur.site];
    std::string hint;
    if (rmw)
        hint = "several threads update one location with a plain read-modify-write (x += v, x++), which loses updates when two "
               "meet: make it atomic, atomicAdd(&x, v) (an atomicCAS loop for an update that has no atomic of its own)";
    else
        hint = std::string("when one thread writes what another reads or writes, order them: ") +
               (cluster  ? "across blocks of a cluster, cluster.sync() between them (or atomics)"
                : blocks ? (g_record && g_record->cfg.cooperative ? "across blocks of a cooperative launch, grid.sync() between them (or atomics, "
                                                                  "or a fence and a flag)"
                                                                : "across blocks only atomics (or a fence and a flag) can")
                       : warp ? "__syncwarp() between them (the lanes of a warp do not run in lockstep), or __syncthreads()"
                              : "__syncthreads() between them") +
               "; when several threads update one location, make the update atomic: atomicAdd(&x, v), not x += v";
    if (blocks) hint += std::string("; __syncthreads() orders only the threads of one block") + (cluster ? ", cluster.sync() those of a cluster" : "");
    fatal("data race", detail, hint.c_str());
}

/* The bytes of a store, now that it is done: those it changed are written; a store that changed
   nothing is no race even where it meets another access (many threads writing the same flag). For
   a load, the bytes that changed since were stored by its thread: `a[i] += x` is checked once, as
   a load, and its store is not (AddressSanitizer's check of the load covers it). */
void apply_store(const Pending &p) {
    unsigned char now[kPendingBytes];
    bool kept = p.size <= kPendingBytes;
    if (p.load && !kept) return;
    if (kept) raw_copy(now, p.addr, p.size);
    for (size_t i = 0; i < p.size; i++) {
        if (p.load && now[i] == p.old[i]) continue;
        Cell *c = cell(p.key + i);
        if (!c) return;
        if (p.load) g_site_rmw[p.acc.site] = 1;
        bool conflict = concurrent(c->w, p.acc, p.space) || concurrent(c->r1, p.acc, p.space) || concurrent(c->r2, p.acc, p.space);
        if (kept && now[i] == p.old[i]) {
            if (conflict && !g_noted_same_value) {
                g_noted_same_value = true;
                warn("note: race check: threads wrote the value a location already held while another thread used it (a flag set "
                     "by many threads): not reported as a race");
            }
            continue;
        }
        if (concurrent(c->w, p.acc, p.space)) report(c->w, true, p.acc, true, p.key, p.space, p.size);
        if (concurrent(c->r1, p.acc, p.space)) report(c->r1, false, p.acc, true, p.key, p.space, p.size);
        if (concurrent(c->r2, p.acc, p.space)) report(c->r2, false, p.acc, true, p.key, p.space, p.size);
        c->w = p.acc;
        c->r1.launch = c->r2.launch = 0;
    }
}

/* The stores made since the last access. One of another block into its own shared memory is dropped:
   shared memory may have been saved and restored, or poisoned for a new block, since. (One into the
   saved copy of a block of its cluster is kept: that copy stays put.) */
void settle(uint32_t block, bool any_block, unsigned tid = ~0u) {
    size_t kept = 0;
    for (Pending &p : g_pending) {
        if (!any_block && p.load && p.acc.block == block && p.acc.tid == tid && p.age < kLoadStaysFor && p.size <= kPendingBytes) {
            unsigned char now[kPendingBytes];
            raw_copy(now, p.addr, p.size);
            if (!memcmp(now, p.old, p.size)) { /* its store may still come */
                p.age++;
                g_pending[kept++] = p;
                continue;
            }
        }
        if (any_block ? p.space == SPACE_GLOBAL || p.key != p.addr : p.acc.block == block || p.key != p.addr) apply_store(p);
    }
    g_pending.resize(kept);
}

void check_load(uintptr_t key, size_t size, const Acc &cur, Space space) {
    for (size_t i = 0; i < size; i++) {
        Cell *c = cell(key + i);
        if (!c) return;
        if (concurrent(c->w, cur, space)) report(c->w, true, cur, false, key, space, size);
        if (reusable(c->r1, cur)) c->r1 = cur;
        else c->r2 = cur; /* the most recent of the others */
    }
}

void add_pending(uintptr_t addr, uintptr_t key, size_t size, const Acc &cur, Space space, bool load) {
    if (load && size > kPendingBytes) return;
    Pending p;
    p.load = load;
    p.age = 0;
    p.addr = addr;
    p.key = key;
    p.size = size;
    p.acc = cur;
    p.space = space;
    if (size <= kPendingBytes) raw_copy(p.old, addr, size);
    g_pending.push_back(p);
}

/* Shared, global, or neither (a local variable, a kernel argument, host memory); *key: where its
   shadow is (addr itself, but for shared memory in a launch with clusters). */
bool space_of(uintptr_t addr, Space *space, uintptr_t *key) {
    *key = addr;
    if (g_cluster_stride) {
        unsigned long long b;
        size_t off;
        bool remote;
        uintptr_t &lo = g_alloc_lo, &hi = g_alloc_hi;
        if (!(addr >= lo && addr < hi) && race_cluster_shared(addr, &b, &off, &remote)) {
            *space = SPACE_SHARED;
            *key = kClusterShared + (uintptr_t)b * g_cluster_stride + off;
            return true;
        }
    }
    if (__start_simcuda_shared && addr >= (uintptr_t)__start_simcuda_shared && addr < (uintptr_t)__stop_simcuda_shared) {
        *space = SPACE_SHARED;
        return true;
    }
    if (addr >= (uintptr_t)dynamic_shared_arena && addr < (uintptr_t)dynamic_shared_arena + kMaxSharedPerBlockOptin) {
        *space = SPACE_SHARED;
        return true;
    }
    uintptr_t &lo = g_alloc_lo, &hi = g_alloc_hi, &gap_lo = g_gap_lo, &gap_hi = g_gap_hi;
    if (addr >= lo && addr < hi) {
        *space = SPACE_GLOBAL;
        return true;
    }
    if (addr >= gap_lo && addr < gap_hi) return false;
    if (outside_allocations((const void *)addr, &gap_lo, &gap_hi)) return false;
    const void *base = nullptr;
    size_t bytes = 0;
    if (classify((const void *)addr, &base, &bytes) == MEM_NONE) return false;
    lo = (uintptr_t)base;
    hi = lo + bytes;
    *space = SPACE_GLOBAL;
    return true;
}

} // namespace

void race_record(const void *ret, uintptr_t addr, size_t size, bool store) {
    RaceThread t;
    if (!g_launch_checked || !race_current_thread(&t)) return;
    /* (an atomic's body changes its word itself: a load before it is not kept for a store) */
    if (!g_pending.empty()) settle((uint32_t)t.block, false, atomic_in_progress() ? ~0u : t.tid);
    if (unsigned long long a = atomic_in_progress()) { /* the body of an atomic: not a plain access */
        if (a != g_atomic_seen) g_atomic_seen = a, g_atomic_hidden = 0;
        if (g_atomic_hidden++ < kAtomicHidesAtMost) return;
    }
    Space space;
    uintptr_t key;
    if (!space_of(addr, &space, &key)) return;
    Acc cur{g_launch, (uint32_t)t.block, t.barriers, t.warp_ops, t.cluster_syncs, (uint16_t)t.tid, site_of((uintptr_t)ret - 1)};
    if (!store) check_load(key, size, cur, space);
    add_pending(addr, key, size, cur, space, !store);
}

void race_sim_writes() {
    RaceThread t;
    if (!g_launch_checked || g_pending.empty() || !race_current_thread(&t)) return;
    settle((uint32_t)t.block, false);
}

void race_poll(int kind, const void *address) {
    RaceThread t;
    if (!g_launch_checked || !race_current_thread(&t)) return;
    Space space;
    uintptr_t key;
    /* (an atomic on another block's shared memory of the cluster is a shared one too: it does not
       talk to other clusters through global memory) */
    bool shared_atomic = kind == 0 && space_of((uintptr_t)address, &space, &key) && space == SPACE_SHARED;
    if (!shared_atomic) g_talks[t.block] = 1;
}

/* A grid barrier orders everything before it before everything after it, as a launch boundary does:
   the accesses after it count as another launch's (their serial is new), after the stores still
   pending (all of the last block that ran) are checked. */
void race_grid_sync() {
    if (!g_launch_checked) return;
    if (!g_pending.empty()) settle(g_pending.front().acc.block, false);
    g_launch++;
}

void race_launch_begin(const LaunchRecord &launch, unsigned long long blocks) {
    g_record = &launch;
    g_pending.clear();
    g_launch_checked = blocks <= (1ull << 24);
    if (!g_launch_checked && !g_noted_too_big) {
        g_noted_too_big = true;
        warn("note: race check: a launch of more than 16777216 blocks is not checked");
    }
    if (g_pages.size() >= kMaxPages) drop_shadow(); /* what earlier launches touched is stale anyway */
    g_launch++;
    g_alloc_lo = g_alloc_hi = g_gap_lo = g_gap_hi = 0;
    g_talks.assign(g_launch_checked ? blocks : 0, 0);
    dim3 c = launch.cluster;
    size_t shared = static_shared_bytes() + launch.cfg.dynamic_smem;
    g_cluster_stride = c.x * c.y * c.z > 1 ? (shared + kPageBytes) & ~(kPageBytes - 1) : 0;
}

void race_launch_end() {
    if (g_launch_checked) settle(0, true);
    g_launch_checked = false;
    g_record = nullptr;
    g_cluster_stride = 0;
}

} // namespace simcuda

using namespace simcuda;

/* Called by the hooks' constructor: only programs built with --profile can be checked. */
extern "C" void simcuda_racecheck_hooks_linked() {
    g_hooks_linked = true;
    const char *e = getenv("SIM_RACECHECK");
    g_racecheck = e && *e && strcmp(e, "0") != 0;
}

extern "C" int simcuda_racecheck(int on) {
    if (!g_hooks_linked) return 0;
    cudaDeviceSynchronize(); /* launches already queued run as they were asked for */
    g_racecheck = on != 0;
    return 1;
}

/* SIM_RACECHECK=1 on a program built without --profile: say why nothing is checked. */
static simcuda::UnhookedNote g_racecheck_note{
    "SIM_RACECHECK", &g_hooks_linked,
    "simcuda: SIM_RACECHECK=1, but this program was built without profiling, so the race check saw nothing: rebuild it with "
    "`tools/simcc --profile` (or SIMCC_PROFILE=1)"};
