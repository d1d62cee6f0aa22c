/* cluster.cpp -- thread block clusters at launch time: __cluster_dims__ (registered by simcc),
 * cudaLaunchKernelEx's cluster attribute, and the checks CUDA makes (compute capability 9.0: at most
 * 8 blocks per cluster, 16 where the kernel allows a non-portable size; the grid a multiple of the
 * cluster). Running the blocks of a cluster together is the scheduler's (scheduler_launch.cpp, scheduler_cluster.cpp). */
#include "internal.h"
#include "simcuda/async.h"

#include <map>

namespace simcuda {

static std::map<const void *, dim3> &compiled_dims() {
    static std::map<const void *, dim3> m;
    return m;
}
static std::map<const void *, int> g_nonportable;
static dim3 g_next(0, 0, 0);
static unsigned g_largest = 0;

int register_cluster_dims(const void *func, unsigned x, unsigned y, unsigned z) {
    compiled_dims()[func] = dim3(x, y, z);
    return 0;
}
void set_func_nonportable_cluster(const void *func, int allowed) { g_nonportable[func] = allowed; }
void set_next_launch_cluster(unsigned x, unsigned y, unsigned z, bool) { g_next = dim3(x ? x : 0, y, z); }

unsigned cluster_blocks_launched() {
    unsigned n = g_largest;
    g_largest = 0;
    return n;
}

/* The launch's cluster shape in *out; returns why it is refused (and the error in *err), or null. */
const char *cluster_for_launch(const LaunchConfig &c, const void *func, dim3 *out, cudaError_t *err) {
    static char why[400];
    dim3 given = g_next;
    g_next = dim3(0, 0, 0);
    auto it = func ? compiled_dims().find(func) : compiled_dims().end();
    bool compiled = it != compiled_dims().end(), explicit_ = given.x != 0;
    *out = dim3(1, 1, 1);
    if (!compiled && !explicit_) return nullptr;
    dim3 d = compiled ? it->second : given;
    *err = cudaErrorInvalidClusterSize;
    if (compiled && explicit_ && (given.x != d.x || given.y != d.y || given.z != d.z)) {
        snprintf(why, sizeof why, "the kernel was compiled with __cluster_dims__(%u,%u,%u) and launched with a cluster of (%u,%u,%u): a "
                 "compile-time cluster size cannot be changed at launch", d.x, d.y, d.z, given.x, given.y, given.z);
        return why;
    }
    if (!d.x || !d.y || !d.z) {
        *err = cudaErrorInvalidValue;
        snprintf(why, sizeof why, "the cluster dimension (%u,%u,%u) has a zero dimension", d.x, d.y, d.z);
        return why;
    }
    unsigned long long blocks = (unsigned long long)d.x * d.y * d.z;
    auto np = func ? g_nonportable.find(func) : g_nonportable.end();
    unsigned limit = np != g_nonportable.end() && np->second ? 16 : 8;
    if (blocks > limit) {
        snprintf(why, sizeof why, "a cluster of (%u,%u,%u) is %llu blocks; at most %u are allowed%s", d.x, d.y, d.z, blocks, limit,
                 limit == 8 ? " (8 is the portable size; 16 needs cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1))"
                            : "");
        return why;
    }
    if (c.grid.x % d.x || c.grid.y % d.y || c.grid.z % d.z) {
        snprintf(why, sizeof why, "gridDim (%u,%u,%u) is not a multiple of the cluster dimension (%u,%u,%u): a grid is made of whole clusters",
                 c.grid.x, c.grid.y, c.grid.z, d.x, d.y, d.z);
        return why;
    }
    *out = d;
    if (blocks > g_largest) g_largest = (unsigned)blocks;
    return nullptr;
}

} // namespace simcuda

/* For the grader's runner (C): the largest cluster launched since the last call. */
extern "C" unsigned simcuda_cluster_blocks_launched(void) { return simcuda::cluster_blocks_launched(); }
