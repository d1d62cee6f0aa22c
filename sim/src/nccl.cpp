/* nccl.cpp -- NCCL's single-process API over the simulated devices.
 *
 * A communicator is one rank of a clique (the ranks that will talk to each other). Each rank's call
 * is checked at once (buffers on the rank's device, a live stream of that device) and then waits
 * until every rank of the clique has made its call: at ncclGroupEnd, or at once outside a group.
 * The matched calls become one operation queued on every rank's stream (streams.cpp), so it runs
 * after each stream's earlier work and before its later work, and waiting on any rank's stream or
 * device waits for it, as with NCCL's kernels. The data moves through host buffers: sends are read
 * whole before anything is written, which also makes in-place calls right. */
#include "internal.h"
#include "nccl.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <unistd.h>

namespace simcuda {
void raw_copy(void *dst, const void *src, size_t count); /* memory.cpp */
namespace {

enum Kind { ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, SEND, RECV };
const char *kind_name(Kind k) {
    static const char *n[] = {"ncclAllReduce", "ncclReduce", "ncclBroadcast", "ncclAllGather", "ncclReduceScatter", "ncclSend", "ncclRecv"};
    return n[k];
}

struct Call {
    Kind kind;
    const void *send;
    void *recv;
    size_t count; /* elements, as the call gives them */
    ncclDataType_t type;
    ncclRedOp_t op;
    int root; /* root, or the peer of a send/receive */
    cudaStream_t stream;
};

struct Clique;
} // namespace
} // namespace simcuda

struct ncclComm {
    simcuda::Clique *clique;
    int rank;
    int device;
    bool live;
    std::string last_error;
};

namespace simcuda {
namespace {

struct Clique {
    int nranks;
    std::string id;
    std::vector<ncclComm *> ranks;                           /* by rank; null until the rank joins */
    std::vector<std::deque<Call>> collectives;               /* per rank, in call order */
    std::map<std::pair<int, int>, std::deque<Call>> sends, recvs; /* (from, to) */
    int joined = 0;
    std::string refused; /* why a call of the open group was refused (the loop over the ranks stops there) */
};

std::vector<std::unique_ptr<Clique>> g_cliques;
std::set<ncclComm *> g_comms;
int g_group_depth = 0;
std::set<Clique *> g_touched; /* cliques with calls waiting for the group's end */
std::string g_last_error;

size_t type_size(ncclDataType_t t) {
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

ncclResult_t invalid(ncclComm *c, ncclResult_t r, const std::string &why) {
    std::string line = "NCCL (simulated): " + why + "; returns " + ncclGetErrorString(r);
    warn(line);
    g_last_error = line;
    if (c) c->last_error = line;
    if (c && g_group_depth > 0 && c->clique->refused.empty()) c->clique->refused = why;
    return r;
}

/* A rank's buffer: device or managed memory of the rank's device, with room for `bytes`. */
ncclResult_t check_buffer(ncclComm *c, const char *fn, const char *role, const void *p, size_t bytes) {
    if (!bytes) return ncclSuccess;
    const void *base = nullptr;
    size_t size = 0;
    MemKind k = classify(p, &base, &size);
    char b[400];
    if (k != MEM_DEVICE && k != MEM_MANAGED) {
        snprintf(b, sizeof b, "%s: %s %p is %s, not device memory (cudaMalloc on the rank's device)", fn, role, p, mem_kind_name(k));
        return invalid(c, ncclInvalidArgument, b);
    }
    if (k == MEM_DEVICE && alloc_device(p) != c->device) {
        snprintf(b, sizeof b, "%s: %s was allocated on device %d, but rank %d's communicator is on device %d (call cudaSetDevice(%d) before its cudaMalloc)", fn,
                 role, alloc_device(p), c->rank, c->device, c->device);
        return invalid(c, ncclInvalidArgument, b);
    }
    if ((const char *)p + bytes > (const char *)base + size) {
        snprintf(b, sizeof b, "%s: %s needs %zu bytes from %p, past the end of its %zu-byte allocation", fn, role, bytes, p, size);
        return invalid(c, ncclInvalidArgument, b);
    }
    return ncclSuccess;
}

/* ---- the arithmetic: host copies of every rank's send buffer, combined in rank order ---- */
template <class T>
void combine(T *acc, const T *x, size_t n, ncclRedOp_t op) {
    for (size_t i = 0; i < n; i++) switch (op) {
        case ncclSum: case ncclAvg: acc[i] = acc[i] + x[i]; break;
        case ncclProd: acc[i] = acc[i] * x[i]; break;
        case ncclMax: acc[i] = x[i] > acc[i] ? x[i] : acc[i]; break;
        case ncclMin: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
        default: break;
        }
}

/* Calls f with a null pointer of the C type of t (the types the simulator computes with). */
template <class F>
void with_type(ncclDataType_t t, F f) {
    switch (t) {
    case ncclInt8: f((int8_t *)nullptr); break;
    case ncclUint8: f((uint8_t *)nullptr); break;
    case ncclInt32: f((int32_t *)nullptr); break;
    case ncclUint32: f((uint32_t *)nullptr); break;
    case ncclInt64: f((int64_t *)nullptr); break;
    case ncclUint64: f((uint64_t *)nullptr); break;
    case ncclFloat32: f((float *)nullptr); break;
    case ncclFloat64: f((double *)nullptr); break;
    default: break;
    }
}

void reduce_into(std::vector<unsigned char> &acc, const std::vector<unsigned char> &x, ncclDataType_t t, ncclRedOp_t op) {
    with_type(t, [&](auto *type) {
        using T = std::remove_pointer_t<decltype(type)>;
        combine((T *)acc.data(), (const T *)x.data(), acc.size() / sizeof(T), op);
    });
}
void finish_average(std::vector<unsigned char> &acc, ncclDataType_t t, int nranks) {
    with_type(t, [&](auto *type) {
        using T = std::remove_pointer_t<decltype(type)>;
        T *v = (T *)acc.data();
        for (size_t i = 0; i < acc.size() / sizeof(T); i++) v[i] = (T)(v[i] / (T)nranks);
    });
}

std::vector<unsigned char> read(const void *p, size_t bytes) {
    std::vector<unsigned char> v(bytes);
    if (bytes) raw_copy(v.data(), p, bytes);
    return v;
}

/* The reduction of every rank's `bytes` bytes from offset `off` of its send buffer. */
std::vector<unsigned char> reduction(const std::vector<Call> &calls, size_t off, size_t bytes) {
    const Call &c0 = calls[0];
    std::vector<unsigned char> acc = read((const char *)c0.send + off, bytes);
    for (size_t r = 1; r < calls.size(); r++) reduce_into(acc, read((const char *)calls[r].send + off, bytes), c0.type, c0.op);
    if (c0.op == ncclAvg) finish_average(acc, c0.type, (int)calls.size());
    return acc;
}

void run_collective(const std::vector<Call> &calls) {
    const Call &c0 = calls[0];
    size_t es = type_size(c0.type), n = calls.size();
    switch (c0.kind) {
    case ALL_REDUCE: {
        std::vector<unsigned char> sum = reduction(calls, 0, c0.count * es);
        for (const Call &c : calls) raw_copy(c.recv, sum.data(), sum.size());
        break;
    }
    case REDUCE: {
        std::vector<unsigned char> sum = reduction(calls, 0, c0.count * es);
        raw_copy(calls[c0.root].recv, sum.data(), sum.size());
        break;
    }
    case BROADCAST: {
        std::vector<unsigned char> v = read(calls[c0.root].send, c0.count * es);
        for (const Call &c : calls) raw_copy(c.recv, v.data(), v.size());
        break;
    }
    case ALL_GATHER: {
        std::vector<unsigned char> all;
        for (const Call &c : calls) {
            std::vector<unsigned char> v = read(c.send, c0.count * es);
            all.insert(all.end(), v.begin(), v.end());
        }
        for (const Call &c : calls) raw_copy(c.recv, all.data(), all.size());
        break;
    }
    case REDUCE_SCATTER: {
        std::vector<std::vector<unsigned char>> parts;
        for (size_t r = 0; r < n; r++) parts.push_back(reduction(calls, r * c0.count * es, c0.count * es));
        for (size_t r = 0; r < n; r++) raw_copy(calls[r].recv, parts[r].data(), parts[r].size());
        break;
    }
    default: break;
    }
}

/* Every rank's call of one collective must agree, as NCCL requires (it would compute garbage or
   hang otherwise). */
void check_agree(Clique &q, const std::vector<Call> &calls) {
    const Call &a = calls[0];
    for (size_t r = 1; r < calls.size(); r++) {
        const Call &b = calls[r];
        const char *what = b.kind != a.kind ? "the operation" : b.count != a.count ? "the count" : b.type != a.type ? "the data type"
                         : (a.kind != BROADCAST && a.kind != ALL_GATHER && b.op != a.op) ? "the reduction"
                         : ((a.kind == REDUCE || a.kind == BROADCAST) && b.root != a.root) ? "the root" : nullptr;
        if (!what) continue;
        char d[400];
        snprintf(d, sizeof d, "rank 0 called %s (count %zu) and rank %zu called %s (count %zu) as the same collective of a %d-rank communicator: "
                              "they differ in %s", kind_name(a.kind), a.count, r, kind_name(b.kind), b.count, q.nranks, what);
        fatal("NCCL ranks disagree", d, "every rank makes the same collective calls in the same order, with the same count, type, operation and root");
    }
}

/* Queues every collective and send/receive pair whose ranks have all called. */
void match(Clique &q) {
    for (;;) {
        bool all = true;
        for (auto &d : q.collectives) all = all && !d.empty();
        if (!all) break;
        std::vector<Call> calls;
        std::vector<cudaStream_t> streams;
        for (auto &d : q.collectives) {
            calls.push_back(d.front());
            streams.push_back(d.front().stream);
            d.pop_front();
        }
        check_agree(q, calls);
        enqueue_on(streams, [calls] { run_collective(calls); });
    }
    for (auto &s : q.sends) {
        auto &r = q.recvs[s.first];
        while (!s.second.empty() && !r.empty()) {
            Call snd = s.second.front(), rcv = r.front();
            s.second.pop_front();
            r.pop_front();
            if (snd.count * type_size(snd.type) != rcv.count * type_size(rcv.type)) {
                char d[300];
                snprintf(d, sizeof d, "rank %d sends %zu bytes to rank %d, which receives %zu bytes", s.first.first, snd.count * type_size(snd.type),
                         s.first.second, rcv.count * type_size(rcv.type));
                fatal("NCCL send and receive disagree", d, "a ncclSend and its ncclRecv give the same count and data type");
            }
            enqueue_on({snd.stream, rcv.stream}, [snd, rcv] {
                std::vector<unsigned char> v = read(snd.send, snd.count * type_size(snd.type));
                raw_copy(rcv.recv, v.data(), v.size());
            });
        }
    }
}

/* What NCCL would wait for forever. */
void check_nothing_left(Clique &q) {
    for (int r = 0; r < q.nranks; r++)
        if (!q.collectives[r].empty()) {
            int waiting = 0;
            for (auto &d : q.collectives) waiting += !d.empty();
            char d[900];
            snprintf(d, sizeof d, "%s was called for %d of the %d ranks of a communicator; NCCL waits until every rank has made the call, so this "
                                  "program would hang on GPUs", kind_name(q.collectives[r].front().kind), waiting, q.nranks);
            /* a rank's call refused in the group (its buffer or stream of another device) is why
               the others are missing, not the loop: say it (trial 13, b133, b144) */
            if (!q.refused.empty())
                snprintf(d + strlen(d), sizeof d - strlen(d), "; a call of this group was refused (returned ncclInvalidArgument): %s", q.refused.c_str());
            fatal("NCCL collective missing ranks", d,
                  q.refused.empty() ? "call it for every rank (each rank's communicator and stream) between ncclGroupStart() and ncclGroupEnd()"
                                    : "fix the refused call: the loop over the ranks stopped at its error");
        }
    for (auto &s : q.sends)
        if (!s.second.empty()) {
            char d[200];
            snprintf(d, sizeof d, "rank %d sends to rank %d, which never calls ncclRecv from it; the program would hang on GPUs", s.first.first, s.first.second);
            fatal("NCCL send without a receive", d, "pair every ncclSend with a ncclRecv on the peer, in the same group");
        }
    for (auto &s : q.recvs)
        if (!s.second.empty()) {
            char d[200];
            snprintf(d, sizeof d, "rank %d receives from rank %d, which never calls ncclSend to it; the program would hang on GPUs", s.first.second, s.first.first);
            fatal("NCCL receive without a send", d, "pair every ncclRecv with a ncclSend on the peer, in the same group");
        }
}

void flush(Clique &q) {
    match(q);
    check_nothing_left(q);
    q.refused.clear();
}

ncclResult_t submit(ncclComm *c, const Call &given) {
    if (!c || !g_comms.count(c) || !c->live) return invalid(nullptr, ncclInvalidArgument, std::string(kind_name(given.kind)) + ": not a live communicator");
    Clique &q = *c->clique;
    if (q.joined < q.nranks) return invalid(c, ncclInvalidUsage, std::string(kind_name(given.kind)) + ": the communicator's other ranks have not joined yet");
    Call call = given;
    if (call.type < 0 || call.type >= ncclNumTypes) return invalid(c, ncclInvalidArgument, std::string(kind_name(call.kind)) + ": unknown data type");
    if (call.type == ncclFloat16 || call.type == ncclBfloat16)
        return invalid(c, ncclInvalidArgument, std::string(kind_name(call.kind)) + ": the simulator's NCCL does not do half or bfloat16 arithmetic");
    if (call.kind != BROADCAST && call.kind != ALL_GATHER && call.kind != SEND && call.kind != RECV && (call.op < 0 || call.op >= ncclNumOps))
        return invalid(c, ncclInvalidArgument, std::string(kind_name(call.kind)) + ": unknown reduction");
    if ((call.kind == REDUCE || call.kind == BROADCAST || call.kind == SEND || call.kind == RECV) && (call.root < 0 || call.root >= q.nranks))
        return invalid(c, ncclInvalidArgument, std::string(kind_name(call.kind)) + ": root or peer " + std::to_string(call.root) + " is not a rank");
    /* NCCL makes the rank's device current before it queues its work, so stream 0 is that device's */
    if (!call.stream || call.stream == cudaStreamLegacy || call.stream == cudaStreamPerThread) call.stream = default_stream(c->device);
    int sd = stream_device(call.stream);
    if (sd < 0) return invalid(c, ncclInvalidArgument, std::string(kind_name(call.kind)) + ": the stream is not a live stream");
    if (sd != c->device) {
        char b[300];
        snprintf(b, sizeof b, "%s: the stream belongs to device %d, but rank %d's communicator is on device %d (create each rank's stream with its device current)",
                 kind_name(call.kind), sd, c->rank, c->device);
        return invalid(c, ncclInvalidArgument, b);
    }
    size_t es = type_size(call.type), n = (size_t)q.nranks;
    size_t send_bytes = call.count * es * (call.kind == REDUCE_SCATTER ? n : 1), recv_bytes = call.count * es * (call.kind == ALL_GATHER ? n : 1);
    bool reads = call.kind != RECV && !(call.kind == BROADCAST && call.root != c->rank);
    bool writes = call.kind != SEND && !(call.kind == REDUCE && call.root != c->rank);
    if (reads)
        if (ncclResult_t r = check_buffer(c, kind_name(call.kind), "sendbuff", call.send, send_bytes)) return r;
    if (writes)
        if (ncclResult_t r = check_buffer(c, kind_name(call.kind), "recvbuff", call.recv, recv_bytes)) return r;
    if (call.kind == SEND) q.sends[std::make_pair(c->rank, call.root)].push_back(call);
    else if (call.kind == RECV) q.recvs[std::make_pair(call.root, c->rank)].push_back(call);
    else q.collectives[c->rank].push_back(call);
    if (g_group_depth > 0) {
        g_touched.insert(&q);
        return ncclSuccess;
    }
    if (q.nranks > 1) {
        char d[300];
        snprintf(d, sizeof d, "%s for rank %d of %d outside ncclGroupStart()/ncclGroupEnd(): NCCL blocks in this call until the other ranks make "
                              "theirs, and this thread drives them too, so the program would hang on GPUs", kind_name(call.kind), c->rank, q.nranks);
        fatal("NCCL call from one thread for several ranks without a group", d,
              "put the loop over the ranks' calls between ncclGroupStart() and ncclGroupEnd()");
    }
    flush(q);
    return ncclSuccess;
}

Clique *new_clique(int nranks, const std::string &id) {
    g_cliques.emplace_back(new Clique);
    Clique *q = g_cliques.back().get();
    q->nranks = nranks;
    q->id = id;
    q->ranks.assign(nranks, nullptr);
    q->collectives.resize(nranks);
    return q;
}

ncclComm *join(Clique *q, int rank, int device) {
    ncclComm *c = new ncclComm{q, rank, device, true, ""};
    q->ranks[rank] = c;
    q->joined++;
    g_comms.insert(c);
    return c;
}

} // namespace
} // namespace simcuda

using namespace simcuda;

extern "C" {

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

const char *ncclGetLastError(ncclComm_t comm) { return comm && g_comms.count(comm) ? comm->last_error.c_str() : g_last_error.c_str(); }

ncclResult_t ncclGetVersion(int *version) {
    if (!version) return invalid(nullptr, ncclInvalidArgument, "ncclGetVersion: version is NULL");
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    if (!id) return invalid(nullptr, ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    static unsigned long long next = 1;
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "simcuda-nccl-%d-%llu", (int)getpid(), next++);
    return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist) {
    if (!comms) return invalid(nullptr, ncclInvalidArgument, "ncclCommInitAll: comms is NULL");
    if (ndev < 1) return invalid(nullptr, ncclInvalidArgument, "ncclCommInitAll: ndev " + std::to_string(ndev) + " is not a number of devices");
    std::set<int> seen;
    for (int i = 0; i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if (d < 0 || d >= device_count())
            return invalid(nullptr, ncclInvalidArgument, "ncclCommInitAll: device " + std::to_string(d) + " does not exist (" + std::to_string(device_count()) +
                                                             " simulated; SIM_DEVICES sets how many)");
        if (!seen.insert(d).second)
            return invalid(nullptr, ncclInvalidUsage, "ncclCommInitAll: device " + std::to_string(d) + " is listed twice (one rank per device)");
    }
    Clique *q = new_clique(ndev, "");
    for (int i = 0; i < ndev; i++) comms[i] = join(q, i, devlist ? devlist[i] : i);
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    if (!comm) return invalid(nullptr, ncclInvalidArgument, "ncclCommInitRank: comm is NULL");
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return invalid(nullptr, ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " of " + std::to_string(nranks));
    std::string key(id.internal, strnlen(id.internal, sizeof id.internal));
    if (key.rfind("simcuda-nccl-", 0) != 0)
        return invalid(nullptr, ncclInvalidArgument, "ncclCommInitRank: the id did not come from ncclGetUniqueId in this process (the simulator runs one process)");
    Clique *q = nullptr;
    for (auto &c : g_cliques)
        if (c->id == key) q = c.get();
    if (!q) q = new_clique(nranks, key);
    if (q->nranks != nranks) return invalid(nullptr, ncclInvalidArgument, "ncclCommInitRank: ranks of one id disagree on nranks");
    if (q->ranks[rank]) return invalid(nullptr, ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) + " joined twice");
    for (ncclComm *c : q->ranks)
        if (c && c->device == current_device())
            return invalid(nullptr, ncclInvalidUsage, "ncclCommInitRank: two ranks on device " + std::to_string(current_device()) + " (call cudaSetDevice first)");
    *comm = join(q, rank, current_device());
    if (g_group_depth == 0 && q->joined < q->nranks) {
        char d[300];
        snprintf(d, sizeof d, "ncclCommInitRank for rank %d of %d outside ncclGroupStart()/ncclGroupEnd(): it waits until every rank has joined, and in one "
                              "process the other ranks' calls come from this thread after it, so the program would hang on GPUs", rank, nranks);
        fatal("NCCL communicator initialised rank by rank without a group", d,
              "in one process use ncclCommInitAll, or put the loop of ncclCommInitRank calls between ncclGroupStart() and ncclGroupEnd()");
    }
    return ncclSuccess;
}

static ncclResult_t end_comm(ncclComm_t comm, const char *fn) {
    if (!comm || !g_comms.count(comm) || !comm->live) return invalid(nullptr, ncclInvalidArgument, std::string(fn) + ": not a live communicator");
    comm->live = false; /* queued operations keep their copies of what they need */
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { return end_comm(comm, "ncclCommDestroy"); }
int simcuda_nccl_live_comms(void) {
    int k = 0;
    for (ncclComm *c : g_comms) k += c->live;
    return k;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) { return end_comm(comm, "ncclCommAbort"); }
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
    if (!comm || !g_comms.count(comm) || !comm->live) return invalid(nullptr, ncclInvalidArgument, "ncclCommFinalize: not a live communicator");
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *err) {
    if (!comm || !err || !g_comms.count(comm)) return invalid(nullptr, ncclInvalidArgument, "ncclCommGetAsyncError: bad argument");
    *err = ncclSuccess;
    return ncclSuccess;
}

static ncclResult_t query(const ncclComm_t comm, int *out, int value, const char *fn) {
    if (!comm || !out || !g_comms.count(comm)) return invalid(nullptr, ncclInvalidArgument, std::string(fn) + ": bad argument");
    *out = value;
    return ncclSuccess;
}
ncclResult_t ncclCommCount(const ncclComm_t c, int *n) { return query(c, n, c && g_comms.count(c) ? c->clique->nranks : 0, "ncclCommCount"); }
ncclResult_t ncclCommCuDevice(const ncclComm_t c, int *d) { return query(c, d, c && g_comms.count(c) ? c->device : 0, "ncclCommCuDevice"); }
ncclResult_t ncclCommUserRank(const ncclComm_t c, int *r) { return query(c, r, c && g_comms.count(c) ? c->rank : 0, "ncclCommUserRank"); }

ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{ALL_REDUCE, s, r, n, t, op, 0, st});
}
ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{REDUCE, s, r, n, t, op, root, st});
}
ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{BROADCAST, s, r, n, t, ncclSum, root, st});
}
ncclResult_t ncclBcast(void *b, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) { return ncclBroadcast(b, b, n, t, root, c, st); }
ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{ALL_GATHER, s, r, n, t, ncclSum, 0, st});
}
ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{REDUCE_SCATTER, s, r, n, t, op, 0, st});
}
ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{SEND, s, nullptr, n, t, ncclSum, peer, st});
}
ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
    return submit(c, Call{RECV, nullptr, r, n, t, ncclSum, peer, st});
}

ncclResult_t ncclGroupStart(void) {
    g_group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
    if (g_group_depth == 0) return invalid(nullptr, ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    if (--g_group_depth > 0) return ncclSuccess;
    std::set<Clique *> touched;
    touched.swap(g_touched);
    for (Clique *q : touched) flush(*q);
    for (auto &c : g_cliques)
        if (c->joined < c->nranks && c->joined > 0) {
            char d[200];
            snprintf(d, sizeof d, "only %d of the %d ranks of a communicator joined (ncclCommInitRank) in this group; the program would hang on GPUs", c->joined,
                     c->nranks);
            fatal("NCCL communicator missing ranks", d, "call ncclCommInitRank for every rank, each with its device current, inside the group");
        }
    return ncclSuccess;
}

} // extern "C"
