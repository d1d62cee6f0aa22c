/* profile_report.cpp -- the profiler's report: the figures profile.cpp recorded per launch, made into
 * what Nsight Compute would count (a check the compiler merged counted once, basic blocks at the GPU
 * instructions they stand for, short branches as predicated) and printed at exit on stderr with the
 * source lines (addr2line) and branches (objdump) that waste most, or handed to a grader
 * (simcuda_profile_kernel). */
#include "profile.h"
#include "profile_code.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <unistd.h>

namespace simcuda {

/* "file:line" of each instruction, from addr2line (one call per object file, in batches). */
static std::map<uintptr_t, std::string> resolve_lines(const std::vector<uintptr_t> &pcs) {
    std::map<uintptr_t, std::string> out;
    std::map<std::string, std::vector<std::pair<uintptr_t, uintptr_t>>> by_object; /* file -> (pc, address in file) */
    for (uintptr_t pc : pcs) {
        std::string file;
        uintptr_t rel = pc;
        if (!object_file_of(pc, &file, &rel)) file = "/proc/self/exe";
        by_object[file].push_back(std::make_pair(pc, rel));
    }
    for (auto &o : by_object) {
        for (size_t at = 0; at < o.second.size(); at += 400) {
            std::string cmd = "addr2line -e '" + o.first + "'";
            size_t end = std::min(o.second.size(), at + 400);
            for (size_t i = at; i < end; i++) {
                char b[32];
                snprintf(b, sizeof b, " 0x%" PRIxPTR, o.second[i].second);
                cmd += b;
            }
            cmd += " 2>/dev/null";
            FILE *f = popen(cmd.c_str(), "r");
            char line[4096];
            for (size_t i = at; i < end; i++) {
                std::string where;
                if (f && fgets(line, sizeof line, f)) {
                    where = line;
                    while (!where.empty() && (where.back() == '\n' || where.back() == '\r')) where.pop_back();
                    size_t d = where.find(" (discriminator");
                    if (d != std::string::npos) where = where.substr(0, d);
                }
                if (where.empty() || where[0] == '?') {
                    char b[64];
                    snprintf(b, sizeof b, "instruction 0x%" PRIxPTR " (build with -g for its line)", o.second[i].first);
                    where = b;
                }
                out[o.second[i].first] = where;
            }
            if (f) pclose(f);
        }
    }
    return out;
}

/* The conditional jump that ends the basic block starting at `pc` (found with objdump), so a divergent
   branch is shown at the line of its `if`, not at the block's first statement; pc itself if none. */
static uintptr_t branch_of_block(uintptr_t pc) {
    std::string file;
    uintptr_t rel;
    if (!object_file_of(pc, &file, &rel)) return pc;
    uintptr_t base = pc - rel;
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn --start-address=0x%" PRIxPTR " --stop-address=0x%" PRIxPTR " '%s' 2>/dev/null", rel,
             rel + 0x600, file.c_str());
    FILE *f = popen(cmd, "r");
    if (!f) return pc;
    char line[512];
    uintptr_t found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long addr;
        char mnem[32];
        if (sscanf(line, " %lx: %31s", &addr, mnem) != 2) continue;
        if (mnem[0] == 'j' && strcmp(mnem, "jmp") != 0) found = (uintptr_t)addr + base;
        else if (!strncmp(mnem, "ret", 3)) break;
    }
    pclose(f);
    return found ? found : pc;
}

static const char *kind_name(int space, int store) {
    return space == SP_GLOBAL ? (store ? "global store" : "global load") : (store ? "shared store" : "shared load");
}

/* One line a student can act on. */
static std::string explain(const LineStat &s, const dim3 &block) {
    char b[512];
    double req = (double)(s.requests ? s.requests : 1);
    const char *verb = s.store ? "write" : "read";
    if (s.space == SP_GLOBAL) {
        double per = (double)s.units / req, ratio = s.ideal ? (double)s.units / (double)s.ideal : 1.0;
        if (ratio < 1.05 && s.stride_known && s.stride == 0) {
            snprintf(b, sizeof b, "%.1f sectors per request, the minimum: the lanes %s one address (a broadcast)", per, verb);
            return b;
        }
        if (ratio < 1.05) {
            snprintf(b, sizeof b, "%.1f sectors per request, the minimum: coalesced", per);
            return b;
        }
        int n = snprintf(b, sizeof b, "%.1f sectors per request, %.1fx the minimum: ", per, ratio);
        double lanes = (double)s.lanes / req;
        if (lanes < 31.5 && s.stride_known && (unsigned long)labs(s.stride) == s.size)
            snprintf(b + n, sizeof b - n, "only %.1f of 32 lanes take part (a branch leaves the others idle), so the sectors carry bytes no lane asked for", lanes);
        else if (s.stride_known && s.stride == 0)
            snprintf(b + n, sizeof b - n, "lanes %s the same address in groups, and the groups lie in different sectors", verb);
        else if (s.stride_known && (unsigned long)labs(s.stride) > s.size)
            snprintf(b + n, sizeof b - n, "neighbouring threads %s addresses %ld bytes apart; let threadIdx.x index consecutive elements", verb,
                     s.stride);
        else if (s.stride_known && (unsigned long)labs(s.stride) == s.size)
            snprintf(b + n, sizeof b - n, "consecutive addresses, but not aligned to 32 bytes (start each warp's range on a multiple of 32 bytes)");
        else
            snprintf(b + n, sizeof b - n, "the lanes %s scattered addresses", verb);
        n = (int)strlen(b);
        if (block.x < 32 && block.y > 1)
            snprintf(b + n, sizeof b - n, " (blockDim.x is %u, so each warp spans %u rows of the block: make blockDim.x 32 or more)", block.x,
                     (32 + block.x - 1) / block.x);
        return b;
    }
    double per = (double)s.units / req;
    if (s.units == 0) {
        snprintf(b, sizeof b, "no bank conflicts");
        return b;
    }
    int n = snprintf(b, sizeof b, "%.1f bank conflicts per request (up to %u-way): ", per, s.max_ways);
    if (s.stride_known && s.stride != 0 && labs(s.stride) % 128 == 0)
        snprintf(b + n, sizeof b - n, "neighbouring threads %s words %ld bytes apart, all in one bank; pad the row by one element (e.g. [32][33]) or swap the indices",
                 verb, s.stride);
    else if (s.stride_known && s.stride != 0)
        snprintf(b + n, sizeof b - n, "neighbouring threads %s words %ld bytes apart, so several fall in one bank (32 banks of 4 bytes); make the stride an odd number of words",
                 verb, s.stride);
    else
        snprintf(b + n, sizeof b - n, "several lanes %s different words of one bank (32 banks of 4 bytes)", verb);
    return b;
}

/* A branch the GPU's compiler turns into predicated instructions instead: a region of blocks after
   a split that is short (at most this many GPU instructions in all, nvcc predicated 5 to 8 in the
   lessons, and branched around sinf's 30; docs/results/profiler.md), calls nothing and reconverges
   at one block (or ends the thread). Its lanes do not split: the warp steps through the region with
   the lanes whose condition is false switched off, which Nsight Compute counts as active threads
   and not as a divergent branch. */
constexpr double kPredicatedRegionLimit = 16;
constexpr size_t kPredicatedRegionBlocks = 8;

/* A launch's figures as reported: an access whose check the compiler merged into another's (`a[i]
   += x`: one check, a load and a store) is counted with that check's requests, and each basic
   block by the GPU instructions it stands for (its CPU instructions less the instrumentation, a
   maths call at what it costs on an H200), so that threads per instruction is Nsight Compute's. */
struct Figures {
    Counters c;
    std::map<std::pair<uintptr_t, int>, LineStat> lines;
    double warp_inst = 0, thread_inst = 0;
    unsigned long long branches = 0, divergent = 0;
    std::vector<uintptr_t> divergent_blocks, predicated_blocks; /* blocks after which lanes split: branches, predicated */
};

/* The launch's blocks as a graph (the ways lanes were seen to go; node 0: the thread ended) and, for
   each block, the blocks every path from it to the end passes through (its post-dominators). */
struct BlockGraph {
    std::vector<uintptr_t> node;                   /* node 0 is the end */
    std::map<uintptr_t, size_t> index;
    std::vector<std::vector<size_t>> succ;
    std::vector<std::vector<bool>> pdom;           /* pdom[n][m]: m post-dominates n */
    explicit BlockGraph(const LaunchStat &L) {
        node.push_back(0);
        index[0] = 0;
        for (auto &b : L.blocks) {
            index[b.first] = node.size();
            node.push_back(b.first);
        }
        size_t n = node.size();
        succ.assign(n, {});
        for (auto &b : L.blocks)
            for (uintptr_t x : b.second.next) {
                auto it = index.find(x);
                if (it != index.end()) succ[index[b.first]].push_back(it->second);
            }
        pdom.assign(n, std::vector<bool>(n, true));
        pdom[0].assign(n, false);
        pdom[0][0] = true;
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t v = 1; v < n; v++) {
                std::vector<bool> meet(n, !succ[v].empty());
                for (size_t s : succ[v])
                    for (size_t m = 0; m < n; m++) meet[m] = meet[m] && pdom[s][m];
                meet[v] = true;
                if (meet != pdom[v]) {
                    pdom[v] = meet;
                    changed = true;
                }
            }
        }
    }
    /* the nearest block all of v's paths pass through (its immediate post-dominator) */
    size_t join(size_t v) const {
        size_t best = 0, most = 0;
        for (size_t m = 0; m < node.size(); m++) {
            if (m == v || !pdom[v][m]) continue;
            size_t k = (size_t)std::count(pdom[m].begin(), pdom[m].end(), true); /* the nearest has the most post-dominators */
            if (k > most) most = k, best = m;
        }
        return best;
    }
};

/* Whether the split after block `head` is predicated on a GPU: either a short exit (lanes leaving
   the kernel, `if (i >= n) return;`, is one predicated EXIT), or the blocks up to where its paths
   meet again are short and call nothing. `region` gets those blocks (for the exit, none). */
static bool predicated_split(const LaunchStat &L, const BlockGraph &g, uintptr_t head, std::vector<uintptr_t> *region) {
    region->clear();
    const BlockStat &h = L.blocks.at(head);
    for (uintptr_t x : h.next) {
        if (x == 0) return true;
        const BlockCode *code = block_code(x); /* (where a thread goes after it is the launch's own code) */
        if (code && code->returns && !code->calls && code->gpu_instructions <= kPredicatedRegionLimit) return true;
    }
    size_t v = g.index.at(head), j = g.join(v);
    if (j == 0) return false; /* the paths meet only at the end */
    std::vector<size_t> todo(g.succ[v].begin(), g.succ[v].end());
    std::vector<bool> seen(g.node.size(), false);
    double size = 0;
    while (!todo.empty()) {
        size_t x = todo.back();
        todo.pop_back();
        if (x == j || seen[x]) continue;
        if (x == v || x == 0) return false; /* a loop, or an exit inside */
        seen[x] = true;
        const BlockCode *code = block_code(g.node[x]);
        if (!code || code->calls) return false;
        size += code->gpu_instructions;
        region->push_back(g.node[x]);
        if (size > kPredicatedRegionLimit || region->size() > kPredicatedRegionBlocks) return false;
        for (size_t s : g.succ[x]) todo.push_back(s);
    }
    return true;
}

static Figures figures(const LaunchStat &L) {
    Figures f;
    f.c = L.c;
    f.lines = L.lines;
    for (auto &l : L.lines) {
        const LineStat &s = l.second;
        for (const CoveredAccess &a : covered_accesses(l.first.first)) {
            int sp = s.space, st = a.store ? 1 : 0;
            auto key = std::make_pair(a.pc, sp * 2 + st);
            auto found = f.lines.find(key);
            if (found == f.lines.end()) {
                LineStat &t = f.lines[key];
                t = s;
                t.store = (unsigned char)st;
            } else {
                LineStat &t = found->second;
                t.requests += s.requests;
                t.units += s.units;
                t.ideal += s.ideal;
                t.lanes += s.lanes;
                t.max_ways = std::max(t.max_ways, s.max_ways);
            }
            f.c.req[sp][st] += s.requests;
            f.c.units[sp][st] += s.units;
            f.c.ideal[sp][st] += s.ideal;
        }
    }
    /* branches, and the blocks a predicated region runs with all of its head's lanes */
    std::map<uintptr_t, std::pair<unsigned long long, unsigned long long>> runs; /* block -> (warp executions, lanes) */
    for (auto &b : L.blocks) runs[b.first] = std::make_pair(b.second.execs, b.second.lanes);
    std::vector<uintptr_t> region;
    BlockGraph graph(L);
    for (auto &b : L.blocks) {
        if (b.second.next.size() < 2) continue;
        if (predicated_split(L, graph, b.first, &region)) {
            if (b.second.divergent) f.predicated_blocks.push_back(b.first);
            for (uintptr_t x : region) { /* run by the warp with all of the head's lanes */
                runs[x].first = std::max(runs[x].first, b.second.execs);
                runs[x].second = std::max(runs[x].second, b.second.lanes);
            }
            continue;
        }
        f.branches += b.second.execs;
        f.divergent += b.second.divergent;
        if (b.second.divergent) f.divergent_blocks.push_back(b.first);
    }
    for (auto &r : runs) {
        const BlockCode *code = block_code(r.first);
        double w = code ? code->gpu_instructions : 1; /* its code could not be read: count the block */
        f.warp_inst += w * (double)r.second.first;
        f.thread_inst += w * (double)r.second.second;
    }
    return f;
}

static std::map<uintptr_t, uintptr_t> g_branch_pc; /* a divergent block's first instruction -> its branch */

void profile_report() {
    if (g_launches.empty() || g_harness) return;
    std::vector<uintptr_t> pcs;
    std::vector<Figures> figs;
    for (auto &L : g_launches) figs.push_back(figures(L));
    for (auto &f : figs)
        for (auto &l : f.lines) pcs.push_back(l.first.first);
    for (auto &f : figs)
        for (auto list : {&f.divergent_blocks, &f.predicated_blocks})
            for (uintptr_t b : *list) pcs.push_back(g_branch_pc[b] = branch_of_block(b));
    std::map<uintptr_t, std::string> where = resolve_lines(pcs);
    char dir[4096];
    std::string cwd = getcwd(dir, sizeof dir) ? std::string(dir) + "/" : std::string();
    fflush(stdout);
    FILE *o = stderr;
    fprintf(o, "\nsimcuda profile (what the memory system does per warp-level request; Nsight Compute's counters)\n");
    for (size_t li = 0; li < g_launches.size(); li++) {
        const LaunchStat &L = g_launches[li];
        const Figures &F = figs[li];
        fprintf(o, "== %s<<<(%u,%u,%u), (%u,%u,%u)>>> launched at %s:%d", L.kernel.c_str(), L.grid.x, L.grid.y, L.grid.z, L.block.x, L.block.y,
                L.block.z, L.file.c_str(), L.line);
        if (L.launches > 1) fprintf(o, " (%u launches, totals)", L.launches);
        fprintf(o, "\n");
        for (int st = 0; st < 2; st++) {
            unsigned long long r = F.c.req[SP_GLOBAL][st], s = F.c.units[SP_GLOBAL][st], i = F.c.ideal[SP_GLOBAL][st];
            fprintf(o, "   global %-6s: %llu requests, %llu sectors, %.1f sectors/request (minimum %.1f)\n", st ? "stores" : "loads", r, s,
                    r ? (double)s / r : 0.0, r ? (double)i / r : 0.0);
        }
        for (int st = 0; st < 2; st++) {
            unsigned long long r = F.c.req[SP_SHARED][st], s = F.c.units[SP_SHARED][st];
            fprintf(o, "   shared %-6s: %llu requests, %llu bank conflicts, %.1f conflicts/request\n", st ? "stores" : "loads", r, s,
                    r ? (double)s / r : 0.0);
        }
        if (F.warp_inst > 0)
            fprintf(o, "   divergence   : %.1f active threads per executed instruction (32 = none), %llu of %llu warp-level branches split the warp\n",
                    F.thread_inst / F.warp_inst, F.divergent, F.branches);
        if (L.c.mma) fprintf(o, "   tensor cores : %llu wmma::mma_sync by a warp (tensor-core instructions)\n", L.c.mma);
        if (L.c.atomics)
            fprintf(o, "   atomics      : %llu, at most %llu on one address in one launch%s\n", L.c.atomics, L.c.atomic_busiest,
                    L.c.atomic_busiest * 4 > L.c.atomics && L.c.atomics > 64 ? " (contended: the memory system does them one after another)" : "");
        /* per source line: instructions of one line and kind merged, ranked by waste */
        struct Row {
            std::string where;
            LineStat s;
            unsigned long long waste;
        };
        std::vector<Row> rows;
        for (auto &l : F.lines) {
            std::string w = where[l.first.first];
            /* instructions of one line and kind with the same lane-to-lane stride are one row (two loads
               on one line, say a broadcast and a coalesced one, stay apart) */
            const LineStat &n = l.second;
            auto it = std::find_if(rows.begin(), rows.end(), [&](const Row &r) {
                return r.where == w && r.s.space == n.space && r.s.store == n.store && r.s.stride_known == n.stride_known && r.s.stride == n.stride;
            });
            if (it == rows.end()) {
                rows.push_back(Row{w, l.second, 0});
                continue;
            }
            LineStat &a = it->s;
            a.requests += l.second.requests;
            a.units += l.second.units;
            a.ideal += l.second.ideal;
            a.max_ways = std::max(a.max_ways, l.second.max_ways);
            a.lanes += l.second.lanes;
            if (!a.stride_known) {
                a.stride = l.second.stride;
                a.stride_known = l.second.stride_known;
            }
        }
        for (auto &r : rows) r.waste = r.s.space == SP_GLOBAL ? (r.s.units > r.s.ideal ? r.s.units - r.s.ideal : 0) : r.s.units;
        std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.waste > b.waste; });
        if (!rows.empty()) fprintf(o, "   by source line, most waste first:\n");
        size_t shown = 0;
        for (auto &r : rows) {
            if (shown++ == 12) {
                fprintf(o, "     ... %zu more lines\n", rows.size() - 12);
                break;
            }
            std::string w = r.where;
            if (!cwd.empty() && w.compare(0, cwd.size(), cwd) == 0) w = w.substr(cwd.size());
            fprintf(o, "     %s: %s, %llu requests: %s\n", w.c_str(), kind_name(r.s.space, r.s.store), r.s.requests, explain(r.s, L.block).c_str());
        }
        /* the branches that split warps, and the short ones a GPU predicates, by source line */
        for (int predicated = 0; predicated < 2; predicated++) {
            std::map<std::string, std::pair<unsigned long long, unsigned long long>> split; /* line -> (divergent, executions) */
            for (uintptr_t b : predicated ? F.predicated_blocks : F.divergent_blocks) {
                const BlockStat &bs = L.blocks.at(b);
                auto &x = split[where[g_branch_pc[b]]];
                x.first += bs.divergent;
                x.second += bs.execs;
            }
            if (!split.empty())
                fprintf(o, predicated ? "   predicated, not divergent (short enough for the GPU to run with the other lanes switched off):\n"
                                      : "   divergent branches (the lanes of a warp went different ways after this line):\n");
            for (auto &x : split) {
                std::string w = x.first;
                if (!cwd.empty() && w.compare(0, cwd.size(), cwd) == 0) w = w.substr(cwd.size());
                if (predicated)
                    fprintf(o, "     %s: the lanes disagreed in %llu of %llu executions; every lane steps through it, only some do work\n", w.c_str(),
                            x.second.first, x.second.second);
                else
                    fprintf(o, "     %s: split the warp in %llu of %llu executions; the warp runs each side in turn with the other lanes idle: make the condition the same for the 32 lanes of a warp\n",
                            w.c_str(), x.second.first, x.second.second);
            }
        }
    }
    fflush(o);
}

} // namespace simcuda

using namespace simcuda;

extern "C" int simcuda_profile_kernel(const char *kernel, struct simcuda_kernel_profile *out) {
    memset(out, 0, sizeof *out);
    if (!g_hooks_linked) return 0;
    int found = 0;
    for (auto &L : g_launches) {
        if (!strstr(L.kernel.c_str(), kernel)) continue;
        found = 1;
        Figures F = figures(L);
        out->launches += L.launches;
        out->global_load_requests += F.c.req[SP_GLOBAL][0];
        out->global_load_sectors += F.c.units[SP_GLOBAL][0];
        out->global_store_requests += F.c.req[SP_GLOBAL][1];
        out->global_store_sectors += F.c.units[SP_GLOBAL][1];
        out->shared_load_requests += F.c.req[SP_SHARED][0];
        out->shared_load_conflicts += F.c.units[SP_SHARED][0];
        out->shared_store_requests += F.c.req[SP_SHARED][1];
        out->shared_store_conflicts += F.c.units[SP_SHARED][1];
        out->warp_instructions += (unsigned long long)llround(F.warp_inst);
        out->thread_instructions += (unsigned long long)llround(F.thread_inst);
        out->branches += F.branches;
        out->divergent_branches += F.divergent;
        out->atomics += L.c.atomics;
        out->tensor_instructions += L.c.mma;
        out->blocks += L.thread_blocks;
        out->blocks_storing_nothing += L.thread_blocks_storing_nothing;
        for (int d = 0; d < 3; d++) out->storing_block_end[d] = std::max(out->storing_block_end[d], (unsigned long long)L.storing_block_end[d]);
        out->grid[0] = std::max(out->grid[0], (unsigned long long)L.grid.x);
        out->grid[1] = std::max(out->grid[1], (unsigned long long)L.grid.y);
        out->grid[2] = std::max(out->grid[2], (unsigned long long)L.grid.z);
        out->atomics_on_busiest_address = std::max(out->atomics_on_busiest_address, (unsigned long long)L.c.atomic_busiest);
    }
    return found ? 1 : -1;
}
