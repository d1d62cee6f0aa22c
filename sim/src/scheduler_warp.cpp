/* scheduler_warp.cpp -- warp-level operations of the simulated threads: shuffles, votes, __syncwarp,
 * __match_any_sync, the warp-collective calls of wmma (warp_collective), coalesced_threads() and
 * __activemask(). A lane waits in its operation until every lane its mask names has arrived at the
 * same one; the last to arrive computes every lane's result, and all resume in the schedule's order. */
#include "scheduler.h"
#include "racecheck.h"

#include <algorithm>

namespace simcuda {

const char *warp_op_name(int op) {
    switch (op) {
    case W_SYNC: return "__syncwarp";
    case W_SHFL: return "__shfl_sync";
    case W_SHFL_UP: return "__shfl_up_sync";
    case W_SHFL_DOWN: return "__shfl_down_sync";
    case W_SHFL_XOR: return "__shfl_xor_sync";
    case W_BALLOT: return "__ballot_sync";
    case W_ANY: return "__any_sync";
    case W_ALL: return "__all_sync";
    case W_MATCH_ANY: return "__match_any_sync";
    case W_COLLECTIVE: return "a warp-collective operation";
    default: return "a warp operation";
    }
}

static bool same_name(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* coalesced_threads(): the lanes of a warp that reach the same call together. A lane waits there
   until every other live lane of its warp is blocked too (at a barrier, a warp operation, another
   coalesced_threads() or exited); then the lanes at each call site form one group. The groups are
   decided when no thread of the block can run (run_next), which keeps barriers and warp operations
   free of any extra test. */
static void resolve_coalesced(unsigned w) {
    Block &B = *g_bp;
    unsigned base = w * 32;
    for (unsigned l = 0; l < 32 && base + l < B.n; l++) {
        unsigned char s = B.th[base + l].state;
        if (s == T_NOT_STARTED || s == T_RUNNING || s == T_READY) return;
    }
    unsigned pending = B.warp_coal[w];
    B.warp_coal[w] = 0;
    B.coal_lanes -= (unsigned)__builtin_popcount(pending);
    while (pending) {
        const SimThread &first = B.th[base + (unsigned)__builtin_ctz(pending)];
        unsigned group = 0;
        for (unsigned m = pending; m; m &= m - 1) {
            const SimThread &u = B.th[base + (unsigned)__builtin_ctz(m)];
            if (same_site(u, first)) group |= 1u << __builtin_ctz(m);
        }
        pending &= ~group;
        for (unsigned m = group; m; m &= m - 1) {
            SimThread &u = B.th[base + (unsigned)__builtin_ctz(m)];
            u.wres = group;
            make_ready(u);
        }
    }
}

/* Called when no thread of the block can run: every warp with lanes in coalesced_threads() is now
   blocked as a whole, so its groups are decided. True if some thread became ready. */
bool resolve_all_coalesced() {
    Block &B = *g_bp;
    for (unsigned w = 0; w < B.warp_coal.size(); w++)
        if (B.warp_coal[w]) resolve_coalesced(w);
    return B.ready_head < B.ready.size();
}

unsigned coalesced_mask(const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("coalesced_threads() outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    unsigned w = t.tid / 32;
    t.state = T_WAIT_COAL;
    t.file = file;
    t.line = line;
    B.warp_coal[w] |= 1u << (t.tid & 31);
    B.coal_lanes++;
    resolve_coalesced(w);
    wait_here();
    return (unsigned)t.wres;
}

unsigned lane_id() { return g_cur ? (g_cur->tid & 31) : 0; }

/* A wmma call's .sync waits for the warp's lanes but does not order their memory accesses: on a
   GPU a lane may store its part of a fragment while another lane still reads the scratch tile it
   overwrites (a missing __syncwarp()). The forward schedule writes every lane's part once all have
   met; the others write each lane's part as it arrives, so such a read sees the new value. */
bool wmma_store_on_arrival() { return g_in_kernel && g_bp && g_bp->mode != SCHED_FORWARD; }

/* Lanes that have not exited, plus lanes that exited after meeting this lane at its latest warp
   operation (they were converged with it then). A GPU reports only the lanes of the current branch;
   the simulator cannot see branches, so inside divergent code it reports more. */
unsigned active_mask() {
    if (!g_in_kernel || !g_cur) return 0;
    Block &B = *g_bp;
    const SimThread &t = *g_cur;
    unsigned base = t.tid & ~31u, m = 0;
    for (unsigned l = 0; l < 32 && base + l < B.n; l++) {
        const SimThread &u = B.th[base + l];
        if (u.state != T_DONE || (t.wgen > 0 && u.wgen >= t.wgen)) m |= 1u << l;
    }
    return m;
}

/* Lane i's result; `votes` is the ballot of the lanes in the mask, computed once per operation. */
static uint64_t warp_result(const SimThread *lanes, unsigned mask, unsigned votes, unsigned i) {
    const SimThread &t = lanes[i];
    int w = t.wwidth;
    if (w < 1 || w > 32 || (w & (w - 1))) w = 32; /* undefined in CUDA; behave as a full warp */
    unsigned seg_lo = i & ~(unsigned)(w - 1), seg_hi = seg_lo + (unsigned)w - 1;
    long src = i;
    switch (t.wop) {
    case W_SHFL: src = seg_lo + ((unsigned)t.warg & (unsigned)(w - 1)); break;
    case W_SHFL_UP: src = (long)i - t.warg; if (src < (long)seg_lo) src = i; break;
    case W_SHFL_DOWN: src = (long)i + t.warg; if (src > (long)seg_hi) src = i; break;
    case W_SHFL_XOR: src = (long)(i ^ (unsigned)t.warg); if (src > (long)seg_hi || src < 0) src = i; break;
    case W_BALLOT: return votes;
    case W_ANY: return votes != 0;
    case W_ALL: return votes == mask;
    case W_MATCH_ANY: {
        unsigned bits = 0;
        for (unsigned l = 0; l < 32; l++)
            if ((mask >> l & 1) && lanes[l].wval == t.wval) bits |= 1u << l;
        return bits;
    }
    default: return 0;
    }
    /* Reading a lane outside the mask is undefined in CUDA; we return the caller's own value. */
    if (!(mask >> src & 1)) return t.wval;
    return lanes[src].wval;
}

/* The k-th lane of a warp in schedule order; `salt` varies the random order between operations. */
static inline unsigned order_lane(ScheduleMode mode, unsigned k, unsigned salt) {
    if (mode == SCHED_REVERSE) return 31 - k;
    if (mode == SCHED_RANDOM) return (k * (salt | 1) + (salt >> 8)) & 31; /* odd stride: a permutation */
    return k;
}

/* Lanes of a warp that all wait in warp operations, at least one of them in a collective (wmma), when
   the operations cannot complete: no lane of the warp is left to arrive, so this is a deadlock, and
   the usual cause is a collective that only some lanes call (inside an `if` on the lane). Reported as
   warp divergence, naming the two places. */
static void collective_divergence(const SimThread *lanes, unsigned exist, const SimThread &t) {
    unsigned here = 0, other = 0;
    const SimThread *elsewhere = nullptr;
    for (unsigned m = exist; m; m &= m - 1) {
        const SimThread &u = lanes[__builtin_ctz(m)];
        if (u.wop == t.wop && same_name(u.wname, t.wname) && same_site(u, t)) here |= 1u << __builtin_ctz(m);
        else {
            other |= 1u << __builtin_ctz(m);
            if (!elsewhere) elsewhere = &u;
        }
    }
    if (!elsewhere) return; /* all at the same call: not this case */
    const SimThread &c = t, &o = *elsewhere;
    unsigned cl = here, ol = other;
    fatal("warp divergence",
          fmt("%s at %s:%d is reached by lanes 0x%08x of the warp only, while lanes 0x%08x (%s among them) wait in %s at %s:%d: a warp-wide "
              "operation must be called by all 32 lanes of the warp together, at the same call",
              waits_in(c), c.file, c.line, cl, ol, thread_name(o).c_str(), waits_in(o), o.file, o.line),
          "call every wmma function (load_matrix_sync, mma_sync, store_matrix_sync) from code that all 32 lanes of the warp run: a "
          "condition around it must have the same value in the whole warp (one that depends on the warp's index, not on the lane's)");
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line) {
    return warp_op_impl(op, mask, value, arg, width, file, line, nullptr, nullptr);
}

void warp_collective(const char *name, void *lane_data, CollectiveFn complete, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("warp operation outside a kernel", fmt("%s called from host code at %s:%d", name, file, line));
    unsigned base = g_cur->tid & ~31u, n = g_bp->n - base;
    /* A wmma call is one operation of a whole warp: with fewer than 32 threads in the warp (a block
       whose size is not a multiple of 32) the tile has no owner for some of its elements. Said here,
       by name, rather than as the null lane data mma_complete would read (trial 11, a088: a launch
       with TILES_PER_BLOCK threads per block, not TILES_PER_BLOCK * 32). */
    if (n < 32)
        fatal("wmma in a partial warp",
              fmt("%s at %s:%d is called by warp %u of a block of %u threads, which has only %u lane%s: a wmma operation needs all 32 lanes "
                  "of a warp, so every warp must be whole",
                  name, file, line, base / 32, g_bp->n, n, n == 1 ? "" : "s"),
              "launch a multiple of 32 threads per block (blockDim.x * blockDim.y * blockDim.z): one warp (32 threads) per tile, so a "
              "block of T tiles needs T * 32 threads, not T");
    warp_op_impl(W_COLLECTIVE, n >= 32 ? 0xffffffffu : (1u << n) - 1, (uint64_t)(uintptr_t)lane_data, 0, 32, file, line, name, complete);
}

uint64_t warp_op_impl(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line, const char *name, CollectiveFn on_complete) {
    if (!g_in_kernel || !g_cur) fatal("warp operation outside a kernel", fmt("%s called from host code at %s:%d", warp_op_name(op), file, line));
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    SIMCUDA_MAYBE_PREEMPT(B, t);
    t.wname = name;
    const char *opname = name ? name : warp_op_name(op);
    unsigned lane = t.tid & 31, base = t.tid - lane;
    SimThread *lanes = &B.th[base];
    if (!(mask >> lane & 1))
        fatal("bad warp mask", fmt("%s at %s:%d: the calling lane %u is not in mask 0x%08x", opname, file, line, lane, mask),
              "the mask must include the calling lane; __activemask() or __ballot_sync() give a correct one");
    unsigned w = t.tid / 32;
    unsigned exist = B.n - base >= 32 ? 0xffffffffu : (1u << (B.n - base)) - 1;
    if (mask & ~exist) {
        unsigned l = (unsigned)__builtin_ctz(mask & ~exist);
        fatal("bad warp mask",
              fmt("%s at %s:%d: mask 0x%08x names lane %u, but the block has only %u threads, so that lane does not exist",
                  opname, file, line, mask, l, B.n),
              "use a block size that is a multiple of 32, or build the mask from the lanes that exist");
    }
    if (mask & B.warp_done[w]) {
        unsigned l = (unsigned)__builtin_ctz(mask & B.warp_done[w]);
        fatal("warp divergence",
              fmt("%s at %s:%d: mask 0x%08x names lane %u (%s), which has already exited", opname, file, line, mask, l,
                  thread_name(lanes[l]).c_str()),
              name ? "all 32 lanes of a warp must call each wmma function together: do not return before it in some lanes only; skip "
                     "whole warps (a condition on the warp's index, not on the lane)"
                   : "every lane named in the mask must execute the same warp operation; do not return early before it");
    }
    t.state = T_WAIT_WARP;
    if (mask == exist) t.seg++; /* a warp operation of some lanes only does not reconverge the warp */
    t.wop = op;
    t.wmask = mask;
    t.wval = value;
    t.warg = arg;
    t.wwidth = width;
    t.file = file;
    t.line = line;
    B.warp_waiting[w] |= 1u << lane;
    bool complete = (B.warp_waiting[w] & mask) == mask;
    /* A lane waiting in another warp operation (other mask or kind) has simply not arrived here
       yet; if it never can, the block deadlocks and that is reported instead. */
    bool collective = op == W_COLLECTIVE;
    for (unsigned m = mask; complete && m; m &= m - 1) {
        const SimThread &u = lanes[__builtin_ctz(m)];
        if (u.wmask != mask || u.wop != op || (collective && (!same_name(u.wname, name) || !same_site(u, t)))) complete = false;
    }
    if (!complete) {
        /* Every lane of the warp waits in a warp operation and this one cannot complete: with a
           collective among them, that is a collective some lanes skipped. */
        unsigned live = exist & ~B.warp_done[w];
        if ((B.warp_waiting[w] & live) == live) {
            const SimThread *coll = collective ? &t : nullptr;
            for (unsigned m = live; !coll && m; m &= m - 1)
                if (lanes[__builtin_ctz(m)].wop == W_COLLECTIVE) coll = &lanes[__builtin_ctz(m)];
            if (coll) collective_divergence(lanes, live, *coll);
        }
        wait_here();
        return t.wres;
    }
    B.warp_waiting[w] &= ~mask;
    unsigned gen = ++B.warp_gen[t.tid / 32];
    /* For the race check a warp operation orders the memory accesses of the lanes it names, but
       wmma's calls do not: their .sync only waits for every lane to arrive (the PTX ISA), while
       __syncwarp() also orders memory (the Programming Guide). A lane's read of a scratch tile and
       another lane's store_matrix_sync over it need a __syncwarp() between them on a GPU. */
    if (__builtin_expect(g_racecheck, 0)) B.warp_masks[w * kWarpHistory + gen % kWarpHistory] = collective ? 0u : mask;
    unsigned votes = 0;
    for (unsigned m = mask; m; m &= m - 1)
        if (lanes[__builtin_ctz(m)].wval) votes |= 1u << __builtin_ctz(m);
    if (collective && complete) {
        void *data[32] = {nullptr};
        for (unsigned m = mask; m; m &= m - 1) data[__builtin_ctz(m)] = (void *)(uintptr_t)lanes[__builtin_ctz(m)].wval;
        on_complete(data, mask);
    }
    for (unsigned l = 0; l < 32; l++)
        if (mask >> l & 1) {
            lanes[l].wres = warp_result(lanes, mask, votes, l);
            lanes[l].wgen = gen;
        }
    /* Every lane, this one too, resumes in schedule order, so "forward" stays lane 0 first. */
    unsigned salt = B.mode == SCHED_RANDOM ? (unsigned)next_random() : 0;
    size_t queued = B.ready.size();
    for (unsigned k = 0; k < 32; k++) {
        unsigned l = order_lane(B.mode, k, salt);
        if (mask >> l & 1) make_ready(lanes[l]);
    }
    /* The random schedule lets a warp that completes a collective (wmma) run ahead of the block's
       other warps half of the time: warps that meet only in collectives otherwise keep in step, and
       a missing __syncthreads() between them would never show. */
    if (collective && B.mode == SCHED_RANDOM && (salt & 0x100) && queued > B.ready_head)
        std::rotate(B.ready.begin() + (long)B.ready_head, B.ready.begin() + (long)queued, B.ready.end());
    wait_here();
    return t.wres;
}

} // namespace simcuda
