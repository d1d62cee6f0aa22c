/**
 * @file test_14_occupancy.c
 * @brief Grader for lesson 14: the occupancy calculator against occupancy_calc_cpu (thousands of
 *        kernels on an H200 and on other devices) and against the CUDA runtime for the lesson's own
 *        kernels; the block-size search against best_block_size_cpu and the runtime; error reports
 *        with planted errors (a refused launch, and on a GPU an illegal address); batches under a
 *        device-memory budget smaller than the data, their copies and kernels in the streams made for
 *        them, not in the legacy default stream (the simulator's modelled timeline, or the runner's
 *        CUPTI observer on a GPU, says which stream each went to).
 *
 * The runtime's own answers come from the runner's probe_* calls (tests/calls/14-occupancy.c),
 * code of the grader's. On the simulator, cudaFuncGetAttributes reports 32 registers for every
 * kernel (it cannot know the real count), so the runtime comparisons there test the plumbing with
 * that figure; on a GPU they test the rules against the hardware's calculator.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls/14-occupancy.h"
#include "backend.h"
#include "free_all.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "judge.h"
#include "occupancy.h"

static const GradeExercise kExercises[] = {
    {"14.1", 3, "occupancy_calc, occupancy_device, kernel_occupancy: resident blocks and warps per SM, with CUDA's allocation units", 0, NULL},
    {"14.2", 3, "best_block_size, __launch_bounds__, heavy_gpu: the block size with the most resident threads", 0, "heavy_kernel"},
    {"14.3", 3, "cuda_error_is_sticky, check_cuda, CHECK, scale_checked_gpu: errors reported with file, line and call", 0, "scale_kernel"},
    {"14.4", 3, "process_batched: more data than device memory, in double-buffered batches that shrink when cudaMalloc fails", 0,
     "transform_kernel", 1},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* ---- small helpers ---------------------------------------------------------------------------- */

static uint64_t g_rng;
static uint32_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}
static int pick(const int *v, int n) { return v[rnd() % (unsigned)n]; }

static void limits_text(int limits, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%s%s%s", limits & OCC_LIMIT_WARPS ? "warps " : "", limits & OCC_LIMIT_BLOCKS ? "blocks " : "",
             limits & OCC_LIMIT_REGISTERS ? "registers " : "", limits & OCC_LIMIT_SHARED ? "shared " : "");
    if (!buf[0]) snprintf(buf, cap, "none");
}

static void describe_result(const OccResult *r, char *buf, size_t cap) {
    char l[64];
    limits_text(r->limits, l, sizeof l);
    snprintf(buf, cap, "blocks_per_sm %d, warps_per_sm %d, by_warps %d, by_blocks %d, by_registers %d, by_shared %d, limits {%s}, occupancy %.4f",
             r->blocks_per_sm, r->warps_per_sm, r->by_warps, r->by_blocks, r->by_registers, r->by_shared, l, r->occupancy);
}

static void describe_case(const OccKernel *k, const OccDevice *d, char *buf, size_t cap) {
    snprintf(buf, cap,
             "a block of %d threads, %d registers per thread, %zu bytes static + %zu dynamic shared memory, on a device with %d threads "
             "and %d blocks per SM, %d registers per SM (%d per block, units of %d per warp, %d sub-partitions), %zu bytes of shared "
             "memory per SM (%zu per block, %zu reserved per block, units of %zu)",
             k->threads_per_block, k->regs_per_thread, k->static_smem, k->dynamic_smem, d->max_threads_per_sm, d->max_blocks_per_sm,
             d->regs_per_sm, d->regs_per_block, d->reg_alloc_unit, d->reg_sub_partitions, d->smem_per_sm, d->smem_per_block_optin,
             d->smem_reserved_per_block, d->smem_alloc_unit);
}

static int same_result(const OccResult *a, const OccResult *b) {
    return a->blocks_per_sm == b->blocks_per_sm && a->warps_per_sm == b->warps_per_sm && a->by_warps == b->by_warps &&
           a->by_blocks == b->by_blocks && a->by_registers == b->by_registers && a->by_shared == b->by_shared && a->limits == b->limits &&
           fabs(a->occupancy - b->occupancy) < 1e-9;
}

/* What a calculator that forgot one rule would say: when the student's result is exactly that, the
   grader names the rule; otherwise it names the first limit that differs. */
static const char *occupancy_hint(const OccKernel *k, const OccDevice *d, const OccResult *got) {
    static const struct {
        int rule;
        const char *hint;
    } kRules[] = {
        {1, "registers are allocated per warp in units of reg_alloc_unit (256): round regs_per_thread x warp_size UP to a multiple of "
            "it before dividing (the allocation granularity)"},
        {2, "shared memory is allocated in units of smem_alloc_unit (128 bytes on compute capability 8.0 and later): round the "
            "block's bytes UP to a multiple of it (the allocation granularity)"},
        {3, "each resident block also costs smem_reserved_per_block (1 KiB on an H200) of shared memory: add it before rounding"},
        {4, "the register file is split in reg_sub_partitions quarters, each holding whole warps: warps per SM = floor(regs_per_sm / "
            "reg_sub_partitions / registers per warp) x reg_sub_partitions, not regs_per_sm / registers per warp"},
        {5, "threads are resident in whole warps: a block of 33 threads takes 2 warps (round threads / warp_size UP)"},
        {6, "a block's shared memory is static_smem + dynamic_smem: count both"},
        {7, "the SM's register file is regs_per_sm: divide that among the warps (regs_per_block is only the most one block may hold, "
            "checked for the block alone)"},
    };
    OccResult right;
    occupancy_calc_cpu(k, d, &right);
    static char both[1200];
    const char *found = NULL;
    for (size_t i = 0; i < sizeof kRules / sizeof kRules[0]; i++) {
        OccDevice dd = *d;
        OccKernel kk = *k;
        OccResult want;
        switch (kRules[i].rule) {
        case 1: dd.reg_alloc_unit = 1; break;
        case 2: dd.smem_alloc_unit = 1; break;
        case 3: dd.smem_reserved_per_block = 0; break;
        case 4: dd.reg_sub_partitions = 1; break;
        case 5: /* floor instead of ceil: as if the block had whole warps only */
            if (kk.threads_per_block % dd.warp_size == 0 || kk.threads_per_block < dd.warp_size) continue;
            kk.threads_per_block = kk.threads_per_block / dd.warp_size * dd.warp_size;
            break;
        case 7: /* the file shared out from the one block's limit */
            if (dd.regs_per_block == dd.regs_per_sm) continue;
            dd.regs_per_sm = dd.regs_per_block;
            break;
        default:
            if (!kk.static_smem) continue;
            kk.static_smem = 0;
        }
        occupancy_calc_cpu(&kk, &dd, &want);
        if (!same_result(&want, &right) && want.by_registers == got->by_registers && want.by_shared == got->by_shared &&
            want.by_warps == got->by_warps && want.blocks_per_sm == got->blocks_per_sm) {
            if (!found) {
                found = kRules[i].hint;
                continue;
            }
            /* two forgotten rules give the same figures here: name both */
            snprintf(both, sizeof both, "%s; or: %s", found, kRules[i].hint);
            return both;
        }
    }
    if (found) return found;
    /* warps_per_sm follows from blocks_per_sm: blamed only when it does not follow from the student's own */
    int warps = d->warp_size > 0 ? (k->threads_per_block + d->warp_size - 1) / d->warp_size : 0;
    if (got->by_warps != right.by_warps || got->warps_per_sm != got->blocks_per_sm * warps)
        return "by_warps: the block's warps are ceil(threads / warp_size); the SM holds max_threads_per_sm / warp_size warps; a block "
               "larger than max_threads_per_block cannot run (0); warps_per_sm = blocks_per_sm x the block's warps";
    if (got->by_registers != right.by_registers)
        return "by_registers: registers per warp rounded up to reg_alloc_unit; whole warps per quarter of the file; 0 when the block's "
               "registers exceed regs_per_block (with its warps rounded up to a multiple of reg_sub_partitions) or a thread's exceed "
               "max_regs_per_thread";
    if (got->by_shared != right.by_shared)
        return "by_shared: static + dynamic + reserved, rounded up to smem_alloc_unit; 0 when static + dynamic exceeds "
               "smem_per_block_optin";
    if (got->limits != right.limits) return "limits must have a bit for each limit equal to blocks_per_sm (several may be)";
    return "compare each field with the rules in occupancy.h; blocks_per_sm is the smallest of the four limits";
}

/* One case: the student's occupancy_calc against the reference; fails the test with both. */
/* occupancy_calc stopped by an integer division by zero (trial 26, b038: the warps per block
   rounded down, threads_per_block / warp_size): the report's generic words name "a count rounded
   down" among others. A block of fewer than warp_size threads (the first case tried has 1) makes
   exactly that count 0. Set around each call: its inputs. */
static const OccKernel *g_occ_k;
static const OccDevice *g_occ_d;
static const char *occupancy_crash_hint(const char *said) {
    if (strncmp(said, "occupancy_calc(", 15) || !strstr(said, "division by zero") || !g_occ_k || !g_occ_d) return NULL;
    int t = g_occ_k->threads_per_block, w = g_occ_d->warp_size;
    if (t <= 0 || w <= 0 || t >= w) return NULL;
    static char why[500];
    snprintf(why, sizeof why,
             "it divided by zero for a block of %d thread%s, fewer than warp_size = %d: the block's warps were rounded down, "
             "threads_per_block / warp_size = 0, and the next division by the warps crashed. A block takes whole warps, rounded "
             "UP: warps = (threads_per_block + warp_size - 1) / warp_size (1 warp here, 2 for 33 threads)",
             t, t == 1 ? "" : "s", w);
    return why;
}

static void expect_occupancy(const OccKernel *k, const OccDevice *d, const char *where) {
    OccResult want, got;
    occupancy_calc_cpu(k, d, &want);
    memset(&got, 0x5A, sizeof got);
    g_occ_k = k, g_occ_d = d;
    judge_set_crash_hint(occupancy_crash_hint);
    occupancy_calc(k, d, &got);
    judge_set_crash_hint(NULL);
    if (same_result(&got, &want)) return;
    char c[700], w[300], g[300];
    describe_case(k, d, c, sizeof c);
    describe_result(&want, w, sizeof w);
    describe_result(&got, g, sizeof g);
    ck_abort_msg("occupancy_calc for %s (%s, GRADE_SEED=%llu):\n  want %s\n  got  %s\n  likely mistake: %s", c, where,
                 (unsigned long long)grade_seed(), w, g, occupancy_hint(k, d, &got));
}

/* Devices that are not an H200, so that nothing can be hard-coded: an A100-like (8.0), a V100-like
   (7.0: no reserve, 256-byte units), an Ada-like (8.9: 1536 threads, 24 blocks), a T4-like (7.5). */
static void other_device(int which, OccDevice *d) {
    occupancy_device_h200_cpu(d);
    switch (which) {
    case 0:
        d->smem_per_sm = 167936, d->smem_per_block_optin = 166912, d->multiprocessors = 108;
        break;
    case 1:
        d->smem_per_sm = 98304, d->smem_per_block_optin = 98304, d->smem_reserved_per_block = 0, d->smem_alloc_unit = 256;
        d->multiprocessors = 80;
        break;
    case 2:
        d->max_threads_per_sm = 1536, d->max_blocks_per_sm = 24, d->smem_per_sm = 102400, d->smem_per_block_optin = 101376;
        d->multiprocessors = 60;
        break;
    default:
        d->max_threads_per_sm = 1024, d->max_blocks_per_sm = 16, d->smem_per_sm = 65536, d->smem_per_block_optin = 65536;
        d->smem_reserved_per_block = 0, d->smem_alloc_unit = 256, d->multiprocessors = 40;
    }
}

/* A random device: any of the above, or made-up limits and granularities. */
static void random_device(OccDevice *d) {
    unsigned w = rnd() % 6;
    if (w < 4) {
        other_device((int)w, d);
        return;
    }
    occupancy_device_h200_cpu(d);
    if (w == 5) {
        static const int threads[] = {1024, 1536, 2048}, blocks[] = {8, 16, 24, 32}, units[] = {128, 256, 512}, parts[] = {1, 2, 4};
        d->max_threads_per_sm = pick(threads, 3);
        d->max_blocks_per_sm = pick(blocks, 4);
        d->regs_per_sm = rnd() % 2 ? 65536 : 32768;
        d->regs_per_block = rnd() % 2 ? d->regs_per_sm : 32768;
        d->reg_alloc_unit = pick(units, 3);
        d->reg_sub_partitions = pick(parts, 3);
        d->smem_per_sm = 16384 + (size_t)(rnd() % 64) * 4096;
        d->smem_per_block_optin = d->smem_per_sm - (rnd() % 2) * 1024;
        d->smem_reserved_per_block = (size_t)(rnd() % 3) * 512;
        d->smem_alloc_unit = (size_t)pick(units, 3);
        d->multiprocessors = 1 + (int)(rnd() % 200);
    }
}

static void random_kernel(OccKernel *k, const OccDevice *d) {
    static const int regs[] = {0, 8, 16, 24, 30, 32, 33, 37, 40, 48, 56, 63, 64, 65, 72, 80, 96, 100, 128, 168, 200, 255, 256};
    k->threads_per_block = rnd() % 4 ? 1 + (int)(rnd() % 1024) : 32 * (1 + (int)(rnd() % 32));
    if (rnd() % 16 == 0) k->threads_per_block = d->max_threads_per_block + 1 + (int)(rnd() % 100);
    k->regs_per_thread = rnd() % 2 ? pick(regs, (int)(sizeof regs / sizeof regs[0])) : (int)(rnd() % 256);
    k->static_smem = rnd() % 3 ? 0 : (size_t)(rnd() % 49152);
    k->dynamic_smem = rnd() % 3 == 0 ? 0 : (size_t)(rnd() % (d->smem_per_sm + 4096)) / (rnd() % 4 + 1);
}

/* ---- 14.1 ------------------------------------------------------------------------------------- */

START_TEST(test_calculator_matches_the_reference_on_an_h200) {
    static const int threads[] = {1, 31, 32, 33, 64, 96, 100, 128, 192, 256, 384, 512, 640, 768, 1000, 1024, 1025, 0};
    static const int regs[] = {0, 16, 24, 32, 33, 40, 48, 56, 63, 64, 65, 72, 96, 128, 168, 255, 256};
    static const size_t smem[][2] = {{0, 0},          {0, 1},          {1000, 0},         {0, 1023},   {4096, 4096},
                                     {0, 48 * 1024},  {0, 100000},     {0, 227 * 1024},   {0, 227 * 1024 + 1}, {16 * 1024, 200 * 1024}};
    OccDevice d;
    occupancy_device_h200_cpu(&d);
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        for (size_t g = 0; g < sizeof regs / sizeof regs[0]; g++)
            for (size_t s = 0; s < sizeof smem / sizeof smem[0]; s++) {
                OccKernel k = {threads[t], regs[g], smem[s][0], smem[s][1]};
                expect_occupancy(&k, &d, "an H200");
            }
}
END_TEST

START_TEST(test_calculator_matches_the_reference_on_other_devices) {
    g_rng = grade_seed() * 2654435761u + 14;
    for (int i = 0; i < 1500; i++) {
        OccDevice d;
        OccKernel k;
        random_device(&d);
        random_kernel(&k, &d);
        char where[64];
        snprintf(where, sizeof where, "random case %d", i);
        expect_occupancy(&k, &d, where);
    }
}
END_TEST

/* The OccDevice the rules of occupancy.h give for what cudaGetDeviceProperties says. */
static void device_from_props(const struct cudaDeviceProp *p, OccDevice *d) {
    *d = (OccDevice){.warp_size = p->warpSize,
                     .max_threads_per_block = p->maxThreadsPerBlock,
                     .max_threads_per_sm = p->maxThreadsPerMultiProcessor,
                     .max_blocks_per_sm = p->maxBlocksPerMultiProcessor,
                     .regs_per_sm = p->regsPerMultiprocessor,
                     .regs_per_block = p->regsPerBlock,
                     .max_regs_per_thread = 255,
                     .reg_alloc_unit = 256,
                     .reg_sub_partitions = 4,
                     .smem_per_sm = p->sharedMemPerMultiprocessor,
                     .smem_per_block_optin = p->sharedMemPerBlockOptin,
                     .smem_reserved_per_block = p->reservedSharedMemPerBlock,
                     .smem_alloc_unit = p->major >= 8 ? 128 : 256,
                     .multiprocessors = p->multiProcessorCount};
}

static void this_device(OccDevice *d) {
    struct cudaDeviceProp p;
    int dev = 0;
    ck_assert(cudaGetDevice(&dev) == cudaSuccess);
    ck_assert(cudaGetDeviceProperties(&p, dev) == cudaSuccess);
    device_from_props(&p, d);
}

START_TEST(test_occupancy_device_describes_this_gpu) {
    OccDevice want, got;
    this_device(&want);
    memset(&got, 0x5A, sizeof got);
    GRADE_EXPECT_CUDA_OK(occupancy_device(0, &got), "occupancy_device(0, &d)");
    static const char *names[] = {"warp_size", "max_threads_per_block", "max_threads_per_sm", "max_blocks_per_sm", "regs_per_sm", "regs_per_block",
                                  "max_regs_per_thread", "reg_alloc_unit", "reg_sub_partitions"};
    const int *gi = &got.warp_size, *wi = &want.warp_size;
    for (int i = 0; i < 9; i++)
        ck_assert_msg(gi[i] == wi[i], "occupancy_device(0): %s is %d, want %d%s", names[i], gi[i], wi[i],
                      i >= 6 ? "\n  likely mistake: it is not a device property: 255 registers per thread, units of 256, 4 sub-partitions"
                             : "\n  likely mistake: copy the matching cudaDeviceProp field");
    static const char *snames[] = {"smem_per_sm", "smem_per_block_optin", "smem_reserved_per_block", "smem_alloc_unit"};
    const size_t *gs = &got.smem_per_sm, *ws = &want.smem_per_sm;
    for (int i = 0; i < 4; i++)
        ck_assert_msg(gs[i] == ws[i], "occupancy_device(0): %s is %zu, want %zu\n  likely mistake: %s", snames[i], gs[i], ws[i],
                      i == 3 ? "128 bytes from compute capability 8.0 on, 256 before" : "copy the matching cudaDeviceProp field");
    ck_assert_msg(got.multiprocessors == want.multiprocessors, "occupancy_device(0): multiprocessors is %d, want %d", got.multiprocessors,
                  want.multiprocessors);
    cudaError_t e = occupancy_device(99, &got);
    ck_assert_msg(e != cudaSuccess, "occupancy_device(99) returned cudaSuccess: there is no device 99; return cudaGetDeviceProperties' error");
    cudaGetLastError();
    /* The same on a second modelled GPU (simulator only): numbers written in for the one GPU the
       simulator models are right there and wrong on any other (trial 13, b020: an H200's numbers). */
    struct cudaDeviceProp other;
    memset(&got, 0x5A, sizeof got);
    if (probe_occupancy_device_elsewhere(0, &got, &other) == -1) return;
    device_from_props(&other, &want);
    const int *gi2 = &got.warp_size, *wi2 = &want.warp_size;
    const size_t *gs2 = &got.smem_per_sm, *ws2 = &want.smem_per_sm;
    int wrong = -1;
    for (int i = 0; i < 6 && wrong < 0; i++)
        if (gi2[i] != wi2[i]) wrong = i;
    for (int i = 0; i < 3 && wrong < 0; i++)
        if (gs2[i] != ws2[i]) wrong = 100 + i;
    if (wrong < 0 && got.multiprocessors != want.multiprocessors) wrong = 200;
    ck_assert_msg(wrong < 0,
                  "occupancy_device(0) on a second modelled GPU (%s: %d threads and %d blocks per SM, %zu bytes of shared memory per SM, "
                  "%d SMs) gave %s = %lld, want %lld (on the simulator's H200 it was right)\n"
                  "  likely mistake: the numbers are written in (an H200's) instead of read from the device: copy each field from the "
                  "cudaDeviceProp that cudaGetDeviceProperties(&p, device) fills (p.maxThreadsPerMultiProcessor, "
                  "p.maxBlocksPerMultiProcessor, p.sharedMemPerMultiprocessor, ...)",
                  other.name, other.maxThreadsPerMultiProcessor, other.maxBlocksPerMultiProcessor, other.sharedMemPerMultiprocessor,
                  other.multiProcessorCount,
                  wrong < 0 ? "" : wrong < 100 ? names[wrong] : wrong < 200 ? snames[wrong - 100] : "multiprocessors",
                  wrong < 0 ? 0LL : wrong < 100 ? (long long)gi2[wrong] : wrong < 200 ? (long long)gs2[wrong - 100] : (long long)got.multiprocessors,
                  wrong < 0 ? 0LL : wrong < 100 ? (long long)wi2[wrong] : wrong < 200 ? (long long)ws2[wrong - 100] : (long long)want.multiprocessors);
    /* the allocation unit, on a modelled sm_75 (trial 20, b062: 128 written in, right on every
       device from compute capability 8.0 on, the only ones the other checks use) */
    memset(&got, 0x5A, sizeof got);
    if (probe_occupancy_device_elsewhere(1, &got, &other) != cudaSuccess) return;
    device_from_props(&other, &want);
    ck_assert_msg(got.smem_alloc_unit == want.smem_alloc_unit,
                  "occupancy_device(0) on a modelled GPU of compute capability %d.%d (%s) gave smem_alloc_unit = %zu, want %zu (on "
                  "the simulator's H200, 9.0, it was right)\n  likely mistake: the shared-memory allocation unit is written in: it "
                  "depends on the compute capability -- 256 bytes before 8.0, 128 from 8.0 on: p.major >= 8 ? 128 : 256",
                  other.major, other.minor, other.name, got.smem_alloc_unit, want.smem_alloc_unit);
}
END_TEST

/* The lesson's kernels with the dynamic shared memory they are launched with (segments: SEGMENT
   floats per thread, kept within 48 KiB, which every kernel may use without opting in). */
static size_t kernel_smem(int which, int block) {
    if (which != KERNEL_SEGMENTS) return 0;
    size_t s = (size_t)SEGMENT * sizeof(float) * (size_t)block;
    return s <= 48 * 1024 ? s : 16 * 1024;
}
static const char *kKernelName[KERNEL_COUNT] = {"heavy_kernel", "heavy_bounded_kernel", "segments_kernel", "scale_kernel", "transform_kernel", "tile_kernel"};

/* kernel_occupancy's result is the student's own occupancy_calc for the kernel with one of its
   figures left out (trial 9: static_smem 0 instead of sharedSizeBytes): name that figure. */
static const char *kernel_occupancy_hint(const OccKernel *k, const OccDevice *d, const OccResult *got) {
    OccResult own;
    memset(&own, 0x5A, sizeof own);
    occupancy_calc(k, d, &own);
    if (!same_result(&own, got)) {
        static const struct {
            int field;
            const char *hint;
        } kLeftOut[] = {
            {0, "kernel_occupancy gave occupancy_calc static_smem = 0: this is what your occupancy_calc says without the kernel's static "
                "shared memory -- set OccKernel.static_smem to cudaFuncGetAttributes' sharedSizeBytes (the kernel's __shared__ arrays)"},
            {1, "kernel_occupancy gave occupancy_calc regs_per_thread = 0: this is what your occupancy_calc says without the kernel's "
                "registers -- set OccKernel.regs_per_thread to cudaFuncGetAttributes' numRegs"},
            {2, "kernel_occupancy gave occupancy_calc dynamic_smem = 0: this is what your occupancy_calc says without the launch's "
                "dynamic shared memory -- pass the dynamic_smem argument on in OccKernel.dynamic_smem"},
        };
        for (size_t i = 0; i < sizeof kLeftOut / sizeof kLeftOut[0]; i++) {
            OccKernel kk = *k;
            if (kLeftOut[i].field == 0 && kk.static_smem) kk.static_smem = 0;
            else if (kLeftOut[i].field == 1 && kk.regs_per_thread) kk.regs_per_thread = 0;
            else if (kLeftOut[i].field == 2 && kk.dynamic_smem) kk.dynamic_smem = 0;
            else continue;
            OccResult alt;
            memset(&alt, 0x5A, sizeof alt);
            occupancy_calc(&kk, d, &alt);
            if (same_result(&alt, got)) return kLeftOut[i].hint;
        }
    }
    if (got->blocks_per_sm == 0) return "fill OccKernel from cudaFuncGetAttributes (numRegs, sharedSizeBytes) and the device from occupancy_device";
    return occupancy_hint(k, d, got);
}

/* Simulator: the runtime's answer refused once (cudaFuncGetAttributes fails, and with it the
   cudaOccupancyMaxPotentialBlockSize template, as on a GPU whose binary has no code for the
   device): `which` 0 is kernel_occupancy(heavy_kernel, 256, 0), 1 heavy_gpu(n = 0, block 0); its
   error must come back (trial 20, b063 and b065: the call's result ignored, full points). Skipped
   where nothing was refused (a GPU; or a function that never asked). */
static void expect_refused_attributes_returned(int which) {
    int faults = 0;
    cudaError_t e = (cudaError_t)probe_refused_attributes(which, &faults);
    if (faults <= 0) return;
    const char *what = which == 0 ? "kernel_occupancy(heavy_kernel, block 256, 0 bytes dynamic)" : "heavy_gpu(n = 0, block 0)";
    const char *call = which == 0 ? "cudaFuncGetAttributes(&a, func)" : "cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel, 0, 0)";
    ck_assert_msg(which != 0 || e != cudaSuccess,
                  "%s returned cudaSuccess, but the grader made cudaFuncGetAttributes fail (cudaErrorInvalidDeviceFunction, as for a "
                  "kernel with no code for this device): the attributes it went on with were never filled in\n"
                  "  likely mistake: the result of cudaFuncGetAttributes is ignored: keep it and return it when it is not cudaSuccess "
                  "(cudaError_t err = cudaFuncGetAttributes(&a, func); if (err != cudaSuccess) return err;)",
                  what);
    ck_assert_msg(which != 1 || e != cudaSuccess,
                  "%s returned cudaSuccess, but the grader made cudaOccupancyMaxPotentialBlockSize fail (through the "
                  "cudaFuncGetAttributes it calls: cudaErrorInvalidDeviceFunction, as for a kernel with no code for this device): the "
                  "block it went on with was never chosen\n"
                  "  likely mistake: the result of cudaOccupancyMaxPotentialBlockSize is ignored: keep it and return it when it is not "
                  "cudaSuccess (cudaError_t err = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel, 0, 0); if (err != "
                  "cudaSuccess) return err;)",
                  what);
    ck_assert_msg(e == cudaErrorInvalidDeviceFunction, "%s returned %s, but the call that failed (%s) answered cudaErrorInvalidDeviceFunction: return that error",
                  what, judge_error_name(e), call);
}

START_TEST(test_kernel_occupancy_agrees_with_the_runtime_for_real_kernels) {
    static const int blocks[] = {32, 64, 96, 128, 160, 256, 384, 512, 640, 768, 1024};
    OccDevice d;
    this_device(&d);
    for (int w = 0; w < KERNEL_COUNT; w++) {
        ProbeAttributes a;
        ck_assert_msg(probe_attributes(w, &a) == cudaSuccess, "grader: cudaFuncGetAttributes(%s) failed", kKernelName[w]);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            if (blocks[b] > a.max_threads_per_block) continue;
            size_t dyn = kernel_smem(w, blocks[b]);
            OccKernel k = {blocks[b], a.num_regs, a.static_smem, dyn};
            OccResult want, got;
            occupancy_calc_cpu(&k, &d, &want);
            memset(&got, 0x5A, sizeof got);
            GRADE_EXPECT_CUDA_OK(kernel_occupancy((const void *)(uintptr_t)a.func, blocks[b], dyn, &got), "kernel_occupancy");
            char c[700], wt[300], g[300];
            describe_case(&k, &d, c, sizeof c);
            describe_result(&want, wt, sizeof wt);
            describe_result(&got, g, sizeof g);
            ck_assert_msg(same_result(&got, &want),
                          "kernel_occupancy(%s, block %d, %zu bytes dynamic) -- cudaFuncGetAttributes says %d registers and %zu bytes of "
                          "static shared memory, so this is %s:\n  want %s\n  got  %s\n  likely mistake: %s",
                          kKernelName[w], blocks[b], dyn, a.num_regs, a.static_smem, c, wt, g, kernel_occupancy_hint(&k, &d, &got));
            if (!ON_SIM) {
                int api = probe_api_blocks(w, blocks[b], dyn);
                ck_assert_msg(got.blocks_per_sm == api,
                              "kernel_occupancy(%s, block %d, %zu bytes dynamic) says %d blocks per SM; "
                              "cudaOccupancyMaxActiveBlocksPerMultiprocessor says %d (%d registers, %zu bytes static shared memory)",
                              kKernelName[w], blocks[b], dyn, got.blocks_per_sm, api, a.num_regs, a.static_smem);
            }
        }
    }
    expect_refused_attributes_returned(0);
}
END_TEST

/* kernel_occupancy describes the current device, as occupancy.h says (trial 17b, b053:
   occupancy_device(0, &d), right on every one-GPU machine). Simulator only: device 1 is modelled
   as an sm_86 beside its H200, made current, and the first of the lesson's kernels and block sizes
   whose answer differs between the two devices is asked for once. */
START_TEST(test_kernel_occupancy_asks_for_the_current_device) {
    static const int blocks[] = {256, 384, 512, 768, 1024};
    OccDevice d0;
    this_device(&d0);
    struct cudaDeviceProp p1;
    OccResult got;
    memset(&got, 0x5A, sizeof got);
    /* the sm_86's figures, for the case to choose: one call that the grader discards */
    if (probe_kernel_occupancy_on_device_1(0, 256, kernel_smem(0, 256), &got, &p1) == -1) return;
    OccDevice d1;
    device_from_props(&p1, &d1);
    for (int w = 0; w < KERNEL_COUNT; w++) {
        ProbeAttributes a;
        ck_assert_msg(probe_attributes(w, &a) == cudaSuccess, "grader: cudaFuncGetAttributes(%s) failed", kKernelName[w]);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            if (blocks[b] > a.max_threads_per_block) continue;
            size_t dyn = kernel_smem(w, blocks[b]);
            OccKernel k = {blocks[b], a.num_regs, a.static_smem, dyn};
            OccResult want0, want1;
            occupancy_calc_cpu(&k, &d0, &want0);
            occupancy_calc_cpu(&k, &d1, &want1);
            if (same_result(&want0, &want1)) continue;
            memset(&got, 0x5A, sizeof got);
            GRADE_EXPECT_CUDA_OK(probe_kernel_occupancy_on_device_1(w, blocks[b], dyn, &got, &p1), "kernel_occupancy (device 1 current)");
            char c[700], wt[300], g[300];
            describe_case(&k, &d1, c, sizeof c);
            describe_result(&want1, wt, sizeof wt);
            describe_result(&got, g, sizeof g);
            ck_assert_msg(!same_result(&got, &want0),
                          "kernel_occupancy(%s, block %d, %zu bytes dynamic) while device 1 (%s: %d threads per SM, %d SMs) was current "
                          "gave device 0's answer; device 1's is %s:\n  want %s\n  got  %s\n"
                          "  likely mistake: kernel_occupancy answered for device 0 while device 1 was current: ask cudaGetDevice(&device) "
                          "and pass that device to occupancy_device (occupancy.h: \"on the current device\")",
                          kKernelName[w], blocks[b], dyn, p1.name, p1.maxThreadsPerMultiProcessor, p1.multiProcessorCount, c, wt, g);
            ck_assert_msg(same_result(&got, &want1),
                          "kernel_occupancy(%s, block %d, %zu bytes dynamic) while device 1 (%s) was current: this is %s:\n  want %s\n"
                          "  got  %s\n  likely mistake: %s",
                          kKernelName[w], blocks[b], dyn, p1.name, c, wt, g, kernel_occupancy_hint(&k, &d1, &got));
            return;
        }
    }
    ck_abort_msg("grader: no kernel and block of lesson 14 has a different occupancy on the modelled sm_86 than on device 0");
}
END_TEST

/* ---- 14.2 ------------------------------------------------------------------------------------- */

static void expect_choice(const OccKernel *k, size_t per_thread, int limit, const OccDevice *d, const char *where) {
    OccChoice want, got;
    best_block_size_cpu(k, per_thread, limit, d, &want);
    memset(&got, 0x5A, sizeof got);
    best_block_size(k, per_thread, limit, d, &got);
    if (got.block == want.block && got.blocks_per_sm == want.blocks_per_sm && got.min_grid == want.min_grid) return;
    char c[700];
    OccKernel shown = *k;
    shown.threads_per_block = want.block;
    describe_case(&shown, d, c, sizeof c);
    const char *hint = "try block_limit (or the device's maximum) first, then every multiple of warp_size below it, and keep a size only "
                       "when blocks_per_sm x block is strictly larger than the best so far";
    OccChoice bare; /* the choice with no per-thread shared memory (trial 8, a037) */
    best_block_size_cpu(k, 0, limit, d, &bare);
    /* a search that started below the largest block allowed (trial 9: 256 as the cap when no
       block_limit is given): the caps lo .. hi whose search picks exactly what was got */
    int allowed = limit > 0 && limit < d->max_threads_per_block ? limit : d->max_threads_per_block, cap_lo = 0, cap_hi = 0;
    if (got.block > 0 && got.block < want.block)
        for (int cap = got.block; cap < allowed; cap++) {
            OccChoice c2;
            best_block_size_cpu(k, per_thread, cap, d, &c2);
            if (c2.block != got.block) break; /* a larger cap picks another block */
            if (c2.blocks_per_sm == got.blocks_per_sm && c2.min_grid == got.min_grid) {
                if (!cap_lo) cap_lo = cap;
                cap_hi = cap;
            }
        }
    char capped[500];
    if (cap_lo)
        snprintf(capped, sizeof capped,
                 "block %%d is the best block of at most N threads for any N from %d to %d, block %%d the best up to the limit, %d: "
                 "was the search capped at a size of your own? The largest block to try is block_limit when "
                 "0 < block_limit < d->max_threads_per_block, else the device's d->max_threads_per_block",
                 cap_lo, cap_hi, allowed);
    if (got.block > 0 && got.block < allowed && got.block % d->warp_size) {
        /* no search over the candidates picks it: the sizes between multiples of warp_size were tried
           (trial 13, b148: a search stepping by 1 thread, told its cap was its own) */
        hint = "block %d is neither the largest block allowed nor a multiple of warp_size: the candidates are the limit (block_limit "
               "when 0 < block_limit < d->max_threads_per_block, else d->max_threads_per_block) and the multiples of warp_size below "
               "it; step the search down by d->warp_size, not by 1 (a block takes whole warps: 85 threads occupy as many warps as "
               "96)";
    } else if (per_thread && got.block == bare.block && got.blocks_per_sm == bare.blocks_per_sm && got.block != want.block) {
        hint = "block and blocks_per_sm are the choice for a kernel without per-thread shared memory: each candidate block b needs "
               "k->dynamic_smem + smem_per_thread x b bytes of dynamic shared memory";
    } else if (got.block && want.block && got.block < want.block) {
        /* Two searches give a smaller block: one that keeps the smallest of the blocks tied for the
           most resident threads, and one that tries only powers of two. What each would pick: */
        int g = d->warp_size, cap = limit > 0 && limit < d->max_threads_per_block ? limit : d->max_threads_per_block;
        long most = 0, most_pow2 = 0;
        int smallest_tie = 0, largest_pow2 = 0;
        for (int aligned = (cap + g - 1) / g * g; aligned > 0; aligned -= g) {
            int b = aligned > cap ? cap : aligned;
            long threads = resident_threads_cpu(k, per_thread, b, d);
            if (threads > most || (threads == most && most > 0)) smallest_tie = b; /* (downwards: an equal one is smaller) */
            if (threads > most) most = threads;
            if ((b & (b - 1)) == 0 && threads > most_pow2) {
                most_pow2 = threads;
                largest_pow2 = b;
            }
        }
        int tie = got.block == smallest_tie, pow2 = got.block == largest_pow2;
        if (cap_lo && !tie && pow2)
            hint = "block %d is the best power of two, block %d the best multiple of warp_size: were only powers of two tried? Every "
                   "multiple of warp_size up to the limit is a candidate. (A search that began below the largest block allowed, "
                   "block_limit else d->max_threads_per_block, picks it too.)";
        else if (cap_lo && !tie) hint = capped;
        else if (tie && pow2)
            hint = "block %d ties with block %d for the most resident threads, and is a power of two: either a tie went to the smaller "
                   "block (CUDA keeps the larger one: search from the largest down, replace only on strictly more), or only powers of "
                   "two were tried (every multiple of warp_size counts)";
        else if (tie)
            hint = "a tie went to the smaller block: CUDA keeps the larger one (search from the largest down, replace only on strictly more "
                   "resident threads)";
        else if (pow2)
            hint = "block %d is the best power of two, block %d the best multiple of warp_size: were only powers of two tried? Every "
                   "multiple of warp_size up to the limit is a candidate";
    } else if (got.block == want.block && got.min_grid != want.min_grid && got.blocks_per_sm != want.blocks_per_sm &&
               got.min_grid == got.blocks_per_sm * d->multiprocessors) {
        /* min_grid follows from blocks_per_sm, so blocks_per_sm is what is wrong (trial 8, a037: the
           per-thread shared memory left out, and "min_grid is ..." sent the student to right code) */
        int without = (int)(resident_threads_cpu(k, 0, got.block, d) / got.block);
        hint = per_thread && got.blocks_per_sm == without
                   ? "blocks_per_sm is that of a block without its per-thread shared memory: each candidate block b needs "
                     "k->dynamic_smem + smem_per_thread x b bytes of dynamic shared memory (min_grid = blocks_per_sm x "
                     "multiprocessors is right)"
                   : "blocks_per_sm is not what occupancy_calc gives for this block (min_grid = blocks_per_sm x multiprocessors is "
                     "right): give occupancy_calc the block's size and dynamic shared memory, k->dynamic_smem + smem_per_thread x b";
    } else if (got.block == want.block && got.min_grid != want.min_grid) {
        hint = "min_grid is blocks_per_sm x multiprocessors";
    } else if (got.block > limit && limit > 0) {
        hint = "the block may not exceed block_limit";
    }
    char said[600];
    snprintf(said, sizeof said, hint, got.block, want.block); /* (a hint without %d ignores them) */
    ck_abort_msg("best_block_size(%zu bytes of dynamic shared memory per thread, block_limit %d) for %s (%s, GRADE_SEED=%llu):\n"
                 "  want block %d (%d blocks per SM, min_grid %d)\n  got  block %d (%d blocks per SM, min_grid %d)\n  likely mistake: %s",
                 per_thread, limit, c, where, (unsigned long long)grade_seed(), want.block, want.blocks_per_sm, want.min_grid, got.block,
                 got.blocks_per_sm, got.min_grid, said);
}

START_TEST(test_best_block_size_matches_the_reference) {
    static const int limits[] = {0, 0, 100, 256, 1000, 1024, 2000};
    static const int per_thread[] = {0, 0, 4, 16, 64, 128, 200, 256};
    g_rng = grade_seed() * 40503u + 142;
    for (int i = 0; i < 600; i++) {
        OccDevice d;
        OccKernel k;
        if (i < 200) occupancy_device_h200_cpu(&d);
        else random_device(&d);
        random_kernel(&k, &d);
        k.dynamic_smem /= 8;
        char where[64];
        snprintf(where, sizeof where, "random case %d", i);
        expect_choice(&k, (size_t)pick(per_thread, 8), pick(limits, 7), &d, where);
    }
}
END_TEST

START_TEST(test_heavy_bounded_kernel_has_its_launch_bounds) {
    ProbeAttributes a;
    ck_assert(probe_attributes(KERNEL_HEAVY_BOUNDED, &a) == cudaSuccess);
    ck_assert_msg(a.max_threads_per_block == HEAVY_BOUNDED_THREADS,
                  "cudaFuncGetAttributes(heavy_bounded_kernel).maxThreadsPerBlock is %d, want %d\n  likely mistake: "
                  "__launch_bounds__(HEAVY_BOUNDED_THREADS, HEAVY_BOUNDED_MIN_BLOCKS) goes between __global__ void and the kernel's name",
                  a.max_threads_per_block, HEAVY_BOUNDED_THREADS);
    /* the minimum of resident blocks (trial 9: left out, and it passed): the simulator knows the
       bounds as written; a GPU shows them only through the registers the compiler gave */
    ck_assert_msg(a.min_blocks < 0 || a.min_blocks == HEAVY_BOUNDED_MIN_BLOCKS,
                  "heavy_bounded_kernel's __launch_bounds__ %s minBlocksPerMultiprocessor %d, want HEAVY_BOUNDED_MIN_BLOCKS (%d)\n"
                  "  likely mistake: %s",
                  a.min_blocks ? "has" : "leaves out its second argument,", a.min_blocks, HEAVY_BOUNDED_MIN_BLOCKS,
                  a.min_blocks ? "the second argument is the minimum of resident blocks per SM: __launch_bounds__(HEAVY_BOUNDED_THREADS, "
                                 "HEAVY_BOUNDED_MIN_BLOCKS)"
                               : "__launch_bounds__(HEAVY_BOUNDED_THREADS) alone promises only the block size; the second argument, "
                                 "HEAVY_BOUNDED_MIN_BLOCKS, makes the compiler fit each thread in 65536 / (256 x 4) = 64 registers, so that "
                                 "4 blocks are resident per SM: __launch_bounds__(HEAVY_BOUNDED_THREADS, HEAVY_BOUNDED_MIN_BLOCKS)");
    if (!ON_SIM) {
        int blocks = probe_api_blocks(KERNEL_HEAVY_BOUNDED, HEAVY_BOUNDED_THREADS, 0);
        ck_assert_msg(blocks >= HEAVY_BOUNDED_MIN_BLOCKS,
                      "heavy_bounded_kernel: %d blocks of %d threads are resident per SM (%d registers per thread), want at least %d\n"
                      "  likely mistake: the second argument of __launch_bounds__ is the minimum of resident blocks, HEAVY_BOUNDED_MIN_BLOCKS",
                      blocks, HEAVY_BOUNDED_THREADS, a.num_regs, HEAVY_BOUNDED_MIN_BLOCKS);
    }
}
END_TEST

/* best_block_size on the real attributes of heavy_kernel and segments_kernel against the runtime. */
START_TEST(test_best_block_size_agrees_with_the_runtime_for_real_kernels) {
    OccDevice d;
    this_device(&d);
    static const struct {
        int which;
        size_t per_thread;
        int limit;
    } cases[] = {{KERNEL_HEAVY, 0, 0}, {KERNEL_HEAVY, 0, 500}, {KERNEL_SEGMENTS, SEGMENT * sizeof(float), 384}, {KERNEL_TRANSFORM, 0, 0},
                 {KERNEL_TILE, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ProbeAttributes a;
        ck_assert(probe_attributes(cases[i].which, &a) == cudaSuccess);
        int api_blocks = 0, api = probe_api_best_block(cases[i].which, cases[i].per_thread, cases[i].limit, &api_blocks);
        int limit = cases[i].limit && cases[i].limit < a.max_threads_per_block ? cases[i].limit : a.max_threads_per_block;
        OccKernel k = {0, a.num_regs, a.static_smem, 0};
        OccChoice got;
        memset(&got, 0x5A, sizeof got);
        best_block_size(&k, cases[i].per_thread, limit, &d, &got);
        ck_assert_msg(got.block == api && got.blocks_per_sm == api_blocks,
                      "best_block_size for %s (%d registers, %zu bytes static and %zu per thread of dynamic shared memory, block_limit %d) "
                      "picks block %d (%d blocks per SM); cudaOccupancyMaxPotentialBlockSize picks %d (%d blocks per SM)",
                      kKernelName[cases[i].which], a.num_regs, a.static_smem, cases[i].per_thread, limit, got.block, got.blocks_per_sm, api,
                      api_blocks);
    }
}
END_TEST

unsigned long long l14_heavy_host_wait(void); /* calls/14-occupancy.c: the first host wait inside the last heavy_gpu call */
static void check_heavy(size_t n, int block) {
    float *h = grade_alloc((n ? n : 1) * sizeof(float)), *want = grade_alloc((n ? n : 1) * sizeof(float)),
          *got = grade_alloc((n ? n : 1) * sizeof(float)), *d_in = NULL, *d_out = NULL;
    uint64_t seed = grade_seed() + n + (uint64_t)block;
    grade_fill_floats(h, n, seed, -1.0f, 1.0f);
    heavy_cpu(h, want, n);
    ck_assert(cudaMalloc((void **)&d_in, (n ? n : 1) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, (n ? n : 1) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    grade_poison_device(d_out, n * sizeof(float));
    int used = -1;
    char what[160];
    snprintf(what, sizeof what, "heavy_gpu(n = %zu, block %d)", n, block);
    GRADE_EXPECT_CUDA_OK(heavy_gpu(d_in, d_out, n, block, &used), what);
    unsigned long long host_wait = l14_heavy_host_wait(); /* (the simulator's; 0 on a GPU) */
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for heavy_kernel");
    if (block == 0) {
        int api_blocks = 0, api = probe_api_best_block(KERNEL_HEAVY, 0, 0, &api_blocks);
        /* the runtime asked with its two outputs swapped (trial 7, a104): the block launched is the
           minimum grid, blocks per SM x multiprocessors */
        OccDevice dev;
        this_device(&dev);
        int min_grid = api_blocks * dev.multiprocessors;
        ck_assert_msg(used == api || used != min_grid || min_grid == api,
                      "%s used blocks of %d threads; cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel) picks %d, and "
                      "%d is its other output, the minimum grid (%d blocks per SM x %d multiprocessors)\n"
                      "  likely mistake: the runtime's two outputs are swapped: the first is the minimum grid size, the second the block "
                      "size: cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel, 0, 0)",
                      what, used, api, min_grid, api_blocks, dev.multiprocessors);
        /* no occupancy call in heavy_gpu's source (comments blanked) and no call of the student's own
           best_block_size: the block was picked by hand (trial 12, a025: 256 hard-coded, and the
           message below put a blockSizeLimit first). Skipped where the source cannot be read. */
        static char body[16384];
        int src = used != api ? grade_source_function("occupancy.cu", "heavy_gpu", body, sizeof body) : 0;
        if (src == 1 && !strstr(body, "Occupancy") && !strstr(body, "best_block_size"))
            ck_abort_msg("%s used blocks of %d threads; cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel) picks %d, "
                         "and heavy_gpu calls no occupancy function\n"
                         "  likely mistake: %d was picked without asking the runtime: the best block depends on the kernel's registers "
                         "and shared memory and on the device, so with block = 0, ask the runtime: "
                         "cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel, 0, 0)",
                         what, used, api, used);
        /* the runtime asked about the other kernel of the exercise (trial 17, b055:
           cudaOccupancyMaxPotentialBlockSize(..., heavy_bounded_kernel, 0, 0), blamed on a
           blockSizeLimit below): what was launched is that kernel's best block, and heavy_gpu's
           source (where it can be read) names heavy_bounded_kernel */
        int bounded_blocks = 0;
        if (used != api && (src == 1 ? strstr(body, "heavy_bounded_kernel") != NULL : src == -1) &&
            probe_api_best_block(KERNEL_HEAVY_BOUNDED, 0, 0, &bounded_blocks) == used)
            ck_abort_msg("%s used blocks of %d threads; cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel) picks %d, "
                         "and %d is what it picks for heavy_bounded_kernel\n"
                         "  likely mistake: the runtime was asked about the wrong kernel: cudaOccupancyMaxPotentialBlockSize's third "
                         "argument must be the kernel heavy_gpu launches, heavy_kernel (heavy_bounded_kernel has its own registers and "
                         "__launch_bounds__, so its best block is another): cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, "
                         "heavy_kernel, 0, 0)",
                         what, used, api, used);
        /* a block size limit of the student's (trial 9: 256, heavy_bounded_kernel's bound, as
           blockSizeLimit): the runtime asked with that limit picks what was launched */
        int capped_blocks = 0;
        if (used > 0 && used < api && probe_api_best_block(KERNEL_HEAVY, 0, used, &capped_blocks) == used) {
            /* every limit that gives the same block (on the H200 the runtime's best under 256 is 160):
               the limit the student passed is one of them, not necessarily `used` itself */
            int top = used;
            for (int limit = (used / 32 + 1) * 32; limit < api; limit += 32)
                if (probe_api_best_block(KERNEL_HEAVY, 0, limit, &capped_blocks) == used) top = limit;
            char limits[96];
            if (top == used) snprintf(limits, sizeof limits, "%d", used);
            else snprintf(limits, sizeof limits, "L for some L from %d to %d", used, top);
            ck_abort_msg("%s used blocks of %d threads; cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel) picks %d, "
                         "and %d when its blockSizeLimit is %s\n"
                         "  likely mistake: the block is the runtime's best under a limit, not of all: either "
                         "cudaOccupancyMaxPotentialBlockSize was given blockSizeLimit = %s (its last argument: 0 means no limit beyond the "
                         "kernel's own, and heavy_kernel has no __launch_bounds__, so its largest block is the device's), or %d was picked "
                         "without asking the runtime: with block = 0, ask the runtime, cudaOccupancyMaxPotentialBlockSize(&min_grid, "
                         "&block, heavy_kernel, 0, 0)",
                         what, used, api, used, limits, limits, used);
        }
        ck_assert_msg(used == api,
                      "%s used blocks of %d threads; cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel) picks %d\n"
                      "  likely mistake: with block = 0, ask the runtime (and report the block you launched in *used_block)",
                      what, used, api);
    } else {
        ck_assert_msg(used == block, "%s reported *used_block = %d, want %d: a block given by the caller is used as it is", what, used, block);
    }
    ck_assert(cudaMemcpy(got, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    GradeCompare cmp = {.what = what, .n = n, .block = (unsigned)(block ? block : used), .atol = 1e-6, .rtol = 1e-5};
    GRADE_EXPECT_FLOATS(got, want, &cmp);
    /* occupancy.h: heavy_gpu "does not wait" (trial 21, b117: `return ... cudaDeviceSynchronize()` after the
       launch, the values right); the simulator's timeline of the call (calls/14-occupancy.c, heavy_watched) */
    static const char *const waits[] = {"", "cudaDeviceSynchronize()", "cudaStreamSynchronize()", "cudaEventSynchronize()"};
    ck_assert_msg(host_wait == 0,
                  "%s: the host waited for the device inside the call (%s)\n"
                  "  likely mistake: heavy_gpu waits for its kernel: occupancy.h says \"does not wait\". Return the launch's "
                  "error, cudaGetLastError(), without the %s, and let the caller decide when to wait",
                  what, waits[host_wait < 4 ? host_wait : 0], waits[host_wait < 4 ? host_wait : 0]);
    CUDA_FREE_ALL(d_in, d_out);
    FREE_ALL(h, want, got);
}

/* heavy_bounded_kernel's values, at sizes that are not a multiple of its block: the output has a
   poisoned tail of a whole block past out[n - 1], so that a missing or off-by-one bounds guard
   shows as writes there on both backends (on a GPU they would land in the allocation's slack and
   never fault). */
#define BOUNDED_TAIL 1024
static void check_heavy_bounded(size_t n, int block) {
    size_t all = n + BOUNDED_TAIL;
    float *h = grade_alloc(all * sizeof(float)), *want = grade_alloc(n * sizeof(float)), *got = grade_alloc(all * sizeof(float));
    float *d_in = NULL, *d_out = NULL;
    grade_fill_floats(h, all, grade_seed() + 7 * n + (uint64_t)block, -1.0f, 1.0f);
    heavy_cpu(h, want, n);
    ck_assert(cudaMalloc((void **)&d_in, all * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, all * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, all * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    grade_poison_device(d_out, all * sizeof(float));
    char what[160];
    snprintf(what, sizeof what, "heavy_bounded_gpu(n = %zu, block %d)", n, block);
    GRADE_EXPECT_CUDA_OK(heavy_bounded_gpu(d_in, d_out, n, block), what);
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for heavy_bounded_kernel");
    ck_assert(cudaMemcpy(got, d_out, all * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    size_t past = 0;
    for (size_t i = n; i < all; i++) {
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        past += bits != GRADE_DEVICE_GARBAGE_BITS;
    }
    ck_assert_msg(past == 0,
                  "%s wrote %zu element(s) past the end, out[%zu]%s (the grid has %zu threads for %zu elements)\n  likely mistake: %s", what, past,
                  n, past > 1 ? " onwards" : "", (n + (size_t)block - 1) / (size_t)block * (size_t)block, n,
                  past == 1 ? "the bounds guard lets one thread too many through: i < n, not i <= n (out[n] is past the end)"
                            : "no bounds guard: the last block's threads past the end write too -- if (i < n) before touching in[i] and out[i]");
    GradeCompare cmp = {.what = what, .n = n, .block = (unsigned)block, .atol = 1e-6, .rtol = 1e-5};
    GRADE_EXPECT_FLOATS(got, want, &cmp);
    CUDA_FREE_ALL(d_in, d_out);
    FREE_ALL(h, want, got);
}

START_TEST(test_heavy_bounded_kernel_computes_at_sizes_that_are_not_a_multiple_of_its_block) {
    /* (heavy_kernel loops long per element: the simulator's largest is smaller) */
    static const size_t sizes[] = {1, 1000, ON_SIM ? 20011 : 70001};
    static const int blocks[] = {256, 96};
    check_heavy_bounded(sizes[_i / 2], blocks[_i % 2]);
}
END_TEST

START_TEST(test_heavy_gpu_computes_with_the_runtimes_block_or_the_given_one) {
    static const size_t sizes[] = {1, 1000, ON_SIM ? 20011 : 70001};
    static const int blocks[] = {0, 96, 256};
    check_heavy(sizes[_i / 3], blocks[_i % 3]);
    if (_i == 0) expect_refused_attributes_returned(1);
}
END_TEST

/* ---- 14.3 ------------------------------------------------------------------------------------- */

static const int kCodes[] = {1, 2, 9, 17, 35, 98, 200, 209, 400, 600, 700, 701, 702, 710, 716, 719, 720, 999};
#define N_CODES (int)(sizeof kCodes / sizeof kCodes[0])

START_TEST(test_sticky_errors_are_told_apart) {
    for (int i = 0; i < N_CODES; i++) {
        int got = cuda_error_is_sticky((cudaError_t)kCodes[i]), want = cuda_error_is_sticky_cpu(kCodes[i]);
        ck_assert_msg(!got == !want, "cuda_error_is_sticky(%s = %d) says %s\n  likely mistake: %s", judge_error_name(kCodes[i]), kCodes[i],
                      got ? "sticky" : "not sticky",
                      want ? "errors while a kernel runs that break the context (illegal address, misaligned address, launch failure, "
                             "assert, timeout, ...) are sticky: every later call fails with them"
                           : "an error that is returned to one call and then gone (an invalid value, out of memory, a refused launch, "
                             "no kernel image) is not sticky: the next calls still work");
    }
    ck_assert_msg(!cuda_error_is_sticky(cudaSuccess), "cuda_error_is_sticky(cudaSuccess) says sticky");
}
END_TEST

#define REPORT_CAP 600
#define REPORT_POISON 'Z'

START_TEST(test_check_cuda_reports_file_line_call_and_kind) {
    static const char *calls[] = {"cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice)", "cudaDeviceSynchronize()", "cudaMalloc(&d, n * 4)"};
    static const char *files[] = {"lessons/14-occupancy/occupancy.cu", "src/solver.cu", "a.cu"};
    g_rng = grade_seed() + 143;
    char got[REPORT_CAP], want[REPORT_CAP];
    static const int codes[] = {0, 1, 2, 9, 209, 700, 701, 719};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *call = calls[i % 3], *file = files[(i / 3) % 3];
        int line = 1 + (int)(rnd() % 9999);
        memset(got, REPORT_POISON, sizeof got);
        got[sizeof got - 1] = 0;
        cudaError_t r = check_cuda((cudaError_t)codes[i], call, file, line, got, sizeof got);
        ck_assert_msg((int)r == codes[i], "check_cuda(%s, ...) returned %s: it returns the error it was given", judge_error_name(codes[i]),
                      judge_error_name((int)r));
        if (codes[i] == 0) {
            ck_assert_msg(got[0] == REPORT_POISON, "check_cuda(cudaSuccess, ...) wrote into the report: nothing failed, leave it alone");
            continue;
        }
        check_report_cpu(want, sizeof want, file, line, call, judge_error_name(codes[i]), judge_error_string(codes[i]),
                         cuda_error_is_sticky_cpu(codes[i]));
        /* the right line cut to the size of a pointer, less the NUL (trial 16, b056: snprintf(report, sizeof(report), ...)
           in check_cuda, where report is a char * parameter): the format is right, the capacity is not */
        ck_assert_msg(!(strlen(got) == sizeof(char *) - 1 && strlen(want) > strlen(got) && !strncmp(got, want, strlen(got))),
                      "check_cuda(%s, \"%s\", \"%s\", %d, report, cap = %d) wrote\n    %s\n  want\n    %s\n  it wrote the right line's first "
                      "%zu characters: the line cut where a capacity of %zu bytes, the size of a pointer, cuts it\n  likely mistake: "
                      "check_cuda's snprintf was given sizeof(report) as its size: report is a char * parameter, so sizeof gives the "
                      "pointer's %zu bytes, not the buffer's; pass cap, the capacity the caller gave",
                      judge_error_name(codes[i]), call, file, line, REPORT_CAP, got, want, strlen(got), sizeof(char *), sizeof(char *));
        const char *hint = strstr(got, "sticky") ? "the line must match occupancy.h's format exactly (file:line: call failed: name (text) -- kind)"
                                                 : "end the line with \" -- sticky: ...\" or \" -- not sticky: ...\" (cuda_error_is_sticky)";
        if (!strstr(got, file)) hint = "start with the file and line: \"<file>:<line>: \" (what __FILE__ and __LINE__ give the macro)";
        else if (!strstr(got, call)) hint = "name the call: its text, as #call gives it in the macro";
        else if (!strstr(got, judge_error_name(codes[i]))) hint = "name the error with cudaGetErrorName(err), and cudaGetErrorString(err) in brackets";
        ck_assert_msg(!strcmp(got, want), "check_cuda(%s, \"%s\", \"%s\", %d) wrote\n    %s\n  want\n    %s\n  likely mistake: %s",
                      judge_error_name(codes[i]), call, file, line, got, want, hint);
    }
    /* A short buffer: snprintf's rules (the start of the line, always NUL-terminated, never past cap). */
    char small[20];
    memset(small, REPORT_POISON, sizeof small);
    check_cuda(cudaErrorInvalidValue, calls[0], files[0], 12, small, sizeof small);
    check_report_cpu(want, sizeof small, files[0], 12, calls[0], judge_error_name(1), judge_error_string(1), 0);
    ck_assert_msg(!memcmp(small, want, sizeof small),
                  "check_cuda with cap = 20 wrote \"%.20s\", want \"%s\"\n  likely mistake: snprintf(report, cap, ...) keeps the first cap - 1 "
                  "characters and the NUL",
                  small, want);
}
END_TEST

static void fill_scaled(float *want, const float *h, size_t n, float f) {
    for (size_t i = 0; i < n; i++) want[i] = h[i] * f;
}

START_TEST(test_scale_checked_gpu_scales_and_reports_nothing) {
    static const size_t sizes[] = {1, 1000, 100003};
    static const unsigned blocks[] = {32, 256};
    size_t n = sizes[_i / 2];
    unsigned block = blocks[_i % 2];
    float *h = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float)), *got = grade_alloc(n * sizeof(float)), *d = NULL;
    float factor = 1.5f + (float)(grade_seed() % 7) * 0.25f;
    grade_fill_floats(h, n, grade_seed() + n, -10.0f, 10.0f);
    fill_scaled(want, h, n, factor);
    ck_assert(cudaMalloc((void **)&d, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    char report[REPORT_CAP], what[128];
    memset(report, REPORT_POISON, sizeof report);
    snprintf(what, sizeof what, "scale_checked_gpu(n = %zu, factor %g, block %u)", n, factor, block);
    /* On a GPU a small kernel may finish before the grader looks, hiding a missing wait: a host
       function queued ahead of it on the legacy stream holds it back for a while. */
    if (!ON_SIM) grade_hold_default_stream(100);
    GRADE_EXPECT_CUDA_OK(scale_checked_gpu(d, n, factor, block, report, sizeof report), what);
    ck_assert_msg(!probe_default_stream_busy(),
                  "%s returned while its kernel was still queued: it never waited for the kernel, so an error while the kernel runs "
                  "(a bad address) would never reach its checks\n"
                  "  likely mistake: the synchronisation is missing: a launch returns before the kernel runs; after "
                  "CHECK(cudaGetLastError()), CHECK(cudaDeviceSynchronize()) waits for it and reports what went wrong while it ran",
                  what);
    ck_assert_msg(report[0] == REPORT_POISON, "%s succeeded but wrote a report: \"%.200s\"", what, report);
    ck_assert(cudaMemcpy(got, d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    GradeCompare cmp = {.what = what, .n = n, .block = block};
    GRADE_EXPECT_FLOATS(got, want, &cmp);
    cudaFree(d);
    FREE_ALL(h, want, got);
}
END_TEST

/* The report's parts: file, line and call; 0 when the line is not "<file>:<line>: <call> failed: ...". */
static int parse_report(const char *r, char *file, size_t fcap, int *line, char *call, size_t ccap) {
    const char *colon = strchr(r, ':');
    if (!colon || (size_t)(colon - r) >= fcap) return 0;
    memcpy(file, r, (size_t)(colon - r));
    file[colon - r] = 0;
    char *end;
    long l = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || strncmp(end, ": ", 2)) return 0;
    *line = (int)l;
    const char *c = end + 2, *f = strstr(c, " failed: ");
    if (!f || (size_t)(f - c) >= ccap) return 0;
    memcpy(call, c, (size_t)(f - c));
    call[f - c] = 0;
    return 1;
}

/* Line `line` of `file` contains `text`? -1 when the file cannot be read here. */
static int line_has(const char *file, int line, const char *text) {
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    char buf[1024];
    int at = 0, found = 0;
    while (fgets(buf, sizeof buf, f))
        if (++at == line) {
            found = strstr(buf, text) != NULL;
            break;
        }
    fclose(f);
    return found;
}

/* Checks a report names a call containing `expect_call` (a substring), at a line of the source that holds it. */
/* 1 when scale_checked_gpu's source (comments blanked) calls `call` somewhere not as CHECK's argument
   (`CHECK(call(...))`): a check written by hand, which returns the error without a report; 0 when
   every use is inside CHECK; -1 when the source cannot be read. */
static int called_without_check(const char *call) {
    static char body[16384];
    if (grade_source_function("occupancy.cu", "scale_checked_gpu", body, sizeof body) != 1) return -1;
    size_t len = strlen(call);
    for (const char *p = strstr(body, call); p; p = strstr(p + len, call)) {
        if ((p > body && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) || isalnum((unsigned char)p[len]) || p[len] == '_') continue;
        const char *q = p;
        while (q > body && isspace((unsigned char)q[-1])) q--;
        if (q > body && q[-1] == '(') {
            q--;
            while (q > body && isspace((unsigned char)q[-1])) q--;
            if (q - body >= 5 && !strncmp(q - 5, "CHECK", 5) && (q - body == 5 || !(isalnum((unsigned char)q[-6]) || q[-6] == '_')))
                continue;
        }
        return 1;
    }
    return 0;
}

/* 1 when `text` is one identifier and line `line` of `file` holds CHECK(text): CHECK was given a
   variable (trial 24, b043: `cudaError_t launch_err = cudaGetLastError(); CHECK(launch_err);`), and a
   right #call turns that name into the report's text. A macro that passes a string literal instead
   of #call (trial 8, a043) prints its literal at a line whose CHECK( holds a call: 0 then. */
static int check_given_a_variable(const char *file, int line, const char *text) {
    if (!*text || isdigit((unsigned char)*text)) return 0;
    for (const char *t = text; *t; t++)
        if (!isalnum((unsigned char)*t) && *t != '_') return 0;
    FILE *f = fopen(file, "r");
    if (!f) return 0;
    char buf[1024];
    int at = 0, found = 0;
    size_t len = strlen(text);
    while (fgets(buf, sizeof buf, f))
        if (++at == line) {
            for (const char *c = strstr(buf, "CHECK"); c && !found; c = strstr(c + 1, "CHECK")) {
                if (c > buf && (isalnum((unsigned char)c[-1]) || c[-1] == '_')) continue;
                const char *q = c + 5;
                while (isspace((unsigned char)*q)) q++;
                if (*q++ != '(') continue;
                while (isspace((unsigned char)*q)) q++;
                if (strncmp(q, text, len)) continue;
                q += len;
                while (isspace((unsigned char)*q)) q++;
                found = *q == ')';
            }
            break;
        }
    fclose(f);
    return found;
}

static void expect_report(const char *what, const char *report, const char *expect_call, const char *why, int sticky) {
    char file[512], call[256];
    int line = 0;
    /* the call's error returned by hand, CHECK not used on it (trial 20, b069: `cudaError_t e =
       cudaGetLastError(); if (e != cudaSuccess) return e;`, blamed on a correct CHECK) */
    const char *full = strstr(expect_call, "LastError") ? "cudaGetLastError" : "cudaDeviceSynchronize";
    ck_assert_msg((report[0] != REPORT_POISON && report[0]) || called_without_check(full) != 1,
                  "%s returned an error but wrote no report, and in scale_checked_gpu %s() is checked by hand, not with CHECK(...): "
                  "check_cuda never sees that error, so no report is written\n  likely mistake: a check written by hand (if (err != "
                  "cudaSuccess) return err;) instead of CHECK(%s()): use CHECK, which writes the report with file, line and call",
                  what, full, full);
    ck_assert_msg(report[0] != REPORT_POISON && report[0],
                  "%s returned an error but wrote no report\n  likely mistake: CHECK must pass the report and cap to check_cuda", what);
    int parsed = parse_report(report, file, sizeof file, &line, call, sizeof call);
    /* cut to the size of a pointer, less the NUL (trial 7, a107: CHECK passed sizeof(report), report a char *) */
    ck_assert_msg(parsed || strlen(report) != sizeof(char *) - 1,
                  "%s wrote the report \"%s\", %zu characters, which is not \"<file>:<line>: <call> failed: ...\": it was cut where a "
                  "capacity of %zu bytes, the size of a pointer, cuts it, though the caller gave %d\n  likely mistake: check_cuda was "
                  "given sizeof(report) as the capacity: report is a char * there, so sizeof gives the pointer's %zu bytes, not the "
                  "buffer's; pass cap, the capacity the caller gave",
                  what, report, strlen(report), sizeof(char *), REPORT_CAP, sizeof(char *));
    ck_assert_msg(parsed, "%s wrote the report \"%.300s\", which is not \"<file>:<line>: <call> failed: ...\"", what, report);
    /* the call's text is a variable's name because CHECK was given the variable: the macro is right, the
       call belongs inside CHECK (trial 24, b043; the hint below would have the student edit the macro) */
    ck_assert_msg(!check_given_a_variable(file, line, call),
                  "%s reported the failure at `%s` (%s:%d): that is not the text of a call, but the name of the variable that "
                  "line gives to CHECK\n  likely mistake: CHECK(%s) was given a variable holding the call's result, so #call "
                  "turns the variable's name into the report (your macro is right): pass the call itself, CHECK(%s()), and the "
                  "report names the call that failed",
                  what, call, file, line, call, full);
    /* the call's text is a word, not a call (trial 8, a043: CHECK passed the literal "call", not #call):
       the line may be right, so the hint about which check found the failure would point at right code */
    ck_assert_msg(strchr(call, '(') != NULL,
                  "%s reported the failure at `%s` (%s:%d): that is not the text of a call\n  likely mistake: CHECK must pass #call "
                  "(the macro argument turned into a string by the preprocessor), not a string literal, as the call's text",
                  what, call, file, line);
    ck_assert_msg(strstr(call, expect_call) != NULL, "%s reported the failure at `%s` (%s:%d)\n  likely mistake: %s", what, call, file, line, why);
    int on_line = line_has(file, line, call);
    ck_assert_msg(on_line != 0,
                  "%s reported `%s` at %s:%d, but that line of the file does not hold that call\n  likely mistake: CHECK must pass "
                  "__FILE__ and __LINE__ (expanded where CHECK is used) and #call",
                  what, call, file, line);
    ck_assert_msg(!sticky == !strstr(report, "-- sticky"), "%s: the report \"%.300s\" says %s\n  likely mistake: cuda_error_is_sticky", what,
                  report, sticky ? "not sticky, but the context is lost" : "sticky, but this error leaves the context working");
}

START_TEST(test_a_refused_launch_is_reported_at_its_check_and_not_left_pending) {
    static const unsigned bad_blocks[] = {2048, 0};
    size_t n = 1000;
    float *h = grade_alloc(n * sizeof(float)), *got = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float)), *d = NULL;
    grade_fill_floats(h, n, grade_seed() + 7, -10.0f, 10.0f);
    ck_assert(cudaMalloc((void **)&d, n * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < 2; i++) {
        ck_assert(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
        char report[REPORT_CAP], what[160];
        memset(report, REPORT_POISON, sizeof report);
        snprintf(what, sizeof what, "scale_checked_gpu(n = %zu, block %u)", n, bad_blocks[i]);
        cudaGetLastError(); /* start with nothing pending */
        cudaError_t e = scale_checked_gpu(d, n, 3.0f, bad_blocks[i], report, sizeof report);
        int reported = report[0] != REPORT_POISON && report[0];
        /* nothing returned, nothing reported, and yet the launch's error is no longer pending: it was
           read and lost (trial 10, a041: `if ((call) != cudaSuccess) return check_cuda((call), ...)`) */
        ck_assert_msg(e != cudaSuccess || reported || cudaGetLastError() != cudaSuccess,
                      "%s returned cudaSuccess and wrote no report, though a block of %u threads is refused at the launch; the "
                      "launch's error was read and cleared from the last-error slot (it is no longer pending), then lost\n  likely "
                      "mistake: CHECK evaluates `call` twice (e.g. if ((call) != cudaSuccess) return check_cuda((call), ...)): the "
                      "second cudaGetLastError() finds the slot cleared and returns cudaSuccess; evaluate it once into a variable "
                      "(or a cudaGetLastError() result was discarded)",
                      what, bad_blocks[i]);
        ck_assert_msg(e != cudaSuccess || reported,
                      "%s returned cudaSuccess, but a block of %u threads is refused at the launch (nothing ran)\n  likely mistake: check "
                      "cudaGetLastError() right after the launch: cudaDeviceSynchronize does not report a launch that never started",
                      what, bad_blocks[i]);
        ck_assert_msg(e != cudaSuccess,
                      "%s wrote the report \"%.200s\" but returned cudaSuccess: the failure was found and then lost\n  likely mistake: "
                      "CHECK(call) must return the error it found (if (err != cudaSuccess) return err;), and evaluate `call` once -- a "
                      "second cudaGetLastError() finds the slot already cleared",
                      what, report);
        ck_assert_msg(e == cudaErrorInvalidValue || e == cudaErrorInvalidConfiguration,
                      "%s returned %s; a refused launch is cudaErrorInvalidValue or cudaErrorInvalidConfiguration", what, judge_error_name(e));
        expect_report(what, report, "LastError", "the refused launch is found by the check of cudaGetLastError() right after it", 0);
        cudaError_t pending = cudaGetLastError();
        ck_assert_msg(pending == cudaSuccess,
                      "after %s returned, %s was still pending in the last-error slot\n  likely mistake: cudaPeekAtLastError() reads the "
                      "error and leaves it there, so the next check anywhere reports it again; cudaGetLastError() reads and clears it",
                      what, judge_error_name(pending));
    }
    /* Not sticky: the same function works at once. */
    char report[REPORT_CAP];
    memset(report, REPORT_POISON, sizeof report);
    GRADE_EXPECT_CUDA_OK(scale_checked_gpu(d, n, 3.0f, 128, report, sizeof report), "scale_checked_gpu(block 128) after a refused launch");
    ck_assert(cudaMemcpy(got, d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    fill_scaled(want, h, n, 3.0f);
    GradeCompare cmp = {.what = "scale_checked_gpu(block 128) after a refused launch", .n = n, .block = 128};
    GRADE_EXPECT_FLOATS(got, want, &cmp);
    cudaFree(d);
    free(h);
    free(got);
    free(want);
}
END_TEST

#if !ON_SIM
/* On a GPU: a kernel that writes through a bad pointer fails while it runs; the error comes back at
   the synchronisation, and it is sticky. (The simulator stops the program at the bad access instead.) */
START_TEST(test_an_illegal_address_is_reported_at_the_synchronisation_as_sticky) {
    if (judge_sanitizing()) return; /* compute-sanitizer would report the planted bad access */
    char report[REPORT_CAP];
    memset(report, REPORT_POISON, sizeof report);
    const char *what = "scale_checked_gpu(a pointer to nothing, n = 4096, block 256)";
    cudaError_t e = scale_checked_gpu((float *)(uintptr_t)0x100, 4096, 2.0f, 256, report, sizeof report);
    ck_assert_msg(e != cudaSuccess, "%s returned cudaSuccess\n  likely mistake: check the synchronisation's result with CHECK", what);
    ck_assert_msg(cuda_error_is_sticky_cpu(e), "%s returned %s; the planted bad access gives a sticky error such as cudaErrorIllegalAddress",
                  what, judge_error_name(e));
    expect_report(what, report, "Synchronize", "an error while the kernel runs is found by the check of the synchronisation", 1);
    /* The context is gone for good: start a fresh runner for what follows. */
    judge_shutdown();
}
END_TEST
#endif

/* ---- 14.4 ------------------------------------------------------------------------------------- */

#if ON_SIM
#define BUDGET ((size_t)64 << 10) /* 64 KiB: two buffers of at most 8192 floats */
#else
#define BUDGET ((size_t)32 << 20)
#endif

typedef struct {
    size_t n, max_batch;
} BatchCase;

static const BatchCase kBatchCases[] = {
    {1, (size_t)1 << 20},                 /* one element */
    {1000, (size_t)1 << 20},              /* less than one batch */
    {BUDGET / 8, BUDGET / 8},             /* two buffers fill the budget exactly */
    {5 * (BUDGET / 8) + 7, (size_t)1 << 30}, /* must fall back; ends with a partial batch */
    {BUDGET + 3, BUDGET / 16 - 5},        /* fits at once, many batches, odd size */
};
#define N_BATCH_CASES (int)(sizeof kBatchCases / sizeof kBatchCases[0])

/* The simulator's report of a stream race inside process_batched, between accesses queued in two different
   streams: its general hint (a wrong offset or split, order the streams, or -- last -- give each stream
   buffers of its own) leads with causes process_batched cannot have (each batch copies to the start of a
   whole buffer). Two streams touching one device buffer means the double buffer is lost: the batches of
   both streams use the same d[...] (trial 19, b066: d[0] in every batch, the streams alternating). */
static const char *batched_crash_hint(const char *said) {
    if (strncmp(said, "process_batched(", 16)) return NULL;
    const char *race = strstr(said, "stream race: ");
    if (!race) return NULL;
    const char *in1 = strstr(race, " in stream "), *in2 = in1 ? strstr(in1 + 1, " in stream ") : NULL;
    int s1, s2;
    if (!in2 || sscanf(in1, " in stream %d", &s1) != 1 || sscanf(in2, " in stream %d", &s2) != 1 || s1 == s2) return NULL;
    static char why[1000];
    /* What raced: a copy in against a kernel (or a kernel against a copy out) in two streams is first a batch
       whose copy went to another stream than its kernel (trial 25, b042: every copy in to s[0], the kernels in
       s[k % 2], the buffers right, was blamed on a lost double buffer); two copies in into one buffer from two
       streams are the lost double buffer. */
    char first[400] = "", second[400] = "";
    const char *and2 = strstr(in1, ", and ");
    if (and2 && and2 < in2) {
        snprintf(first, sizeof first, "%.*s", (int)(in1 - race), race);
        snprintf(second, sizeof second, "%.*s", (int)(in2 - and2), and2);
    }
    int k1 = strstr(first, "kernel '") != NULL, k2 = strstr(second, "kernel '") != NULL;
    const char *copy = k1 == k2 ? NULL : k1 ? second : first;
    const char *dir = !copy ? NULL : strstr(copy, "host to device") ? "copy in" : strstr(copy, "device to host") ? "copy out" : NULL;
    if (dir) {
        snprintf(why, sizeof why,
                 "a batch's %s and its kernel are in different streams (the %s queued in stream %d, the kernel in stream %d): "
                 "nothing orders them, so the kernel may run before its data arrives or the copy out before the kernel is "
                 "done. Give all three the batch's stream: batch k uses d[k %% 2] in s[k %% 2] for its copy in, its kernel "
                 "and its copy out (the stream is cudaMemcpyAsync's last argument). (If every call has its batch's stream, "
                 "one device buffer is used by batches in two streams: the double buffer is lost.)",
                 dir, dir, k1 ? s2 : s1, k1 ? s1 : s2);
        return why;
    }
    snprintf(why, sizeof why,
             "one device buffer is used by batches in two streams (stream %d and stream %d): the double buffer is lost, and a "
             "batch's copy in overwrites the buffer while the batch before it, in the other stream, still computes on it or "
             "copies it out. Give each stream its own buffer: batch k uses d[k %% 2] in s[k %% 2] for its copy in, its kernel "
             "and its copy out",
             s1, s2);
    return why;
}

static void check_batched(size_t n, size_t max_batch, size_t budget) {
    float *h_in = NULL, *h_out = NULL, *want = grade_alloc((n ? n : 1) * sizeof(float));
    ck_assert(cudaMallocHost((void **)&h_in, (n ? n : 1) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMallocHost((void **)&h_out, (n ? n : 1) * sizeof(float)) == cudaSuccess);
    grade_fill_floats(h_in, n, grade_seed() + n + max_batch, -100.0f, 100.0f);
    for (size_t i = 0; i < n; i++) want[i] = transform_cpu(h_in[i]);
    grade_poison_floats(h_out, n);
    size_t free_bytes = budget ? probe_limit_device_memory(budget) : 0;
    cudaGetLastError(); /* start with nothing pending: what is pending afterwards is this call's */
    int streams0 = 0, events0 = 0, streams1 = 0, events1 = 0;
    probe_live_streams_events(&streams0, &events0);
    BatchStats st;
    memset(&st, 0x5A, sizeof st);
    char what[200];
    snprintf(what, sizeof what, "process_batched(n = %zu, max_batch = %zu)%s", n, max_batch, budget ? " with " : "");
    if (budget) snprintf(what + strlen(what), sizeof what - strlen(what), "%zu bytes of device memory free", free_bytes);
    judge_set_crash_hint(batched_crash_hint);
    cudaError_t e = process_batched(h_in, h_out, n, max_batch, &st);
    judge_set_crash_hint(NULL);
    if (budget) probe_limit_device_memory(0);
    probe_live_streams_events(&streams1, &events1);
    cudaError_t pending = cudaGetLastError();
    ck_assert_msg(e != cudaErrorMemoryAllocation || !budget || st.batch == 0 || st.batch == (size_t)0x5A5A5A5A5A5A5A5Aull ||
                      2 * st.batch * sizeof(float) > free_bytes,
                  "%s returned cudaErrorMemoryAllocation after settling on a batch of %zu floats that fits\n  likely mistake: the failed "
                  "cudaMalloc's error was still pending, and a later check (cudaGetLastError() after the launch) reported it as its own: "
                  "once you have handled it by halving the batch, clear it with cudaGetLastError()",
                  what, st.batch);
    int batch_set = st.batch && st.batch != (size_t)0x5A5A5A5A5A5A5A5Aull;
    int fits = batch_set && (!budget || 2 * st.batch * sizeof(float) <= free_bytes);
    /* Without a budget no cudaMalloc of these sizes fails, so a refused copy of whole batches is a
       copy past its device buffer's end (trial 17, b061: cudaMalloc(&d, batch), the size in
       elements, was blamed on an unnoticed failed cudaMalloc though every call was checked). */
    ck_assert_msg(e != cudaErrorInvalidValue || budget || !batch_set || n % st.batch,
                  "%s returned cudaErrorInvalidValue, with nothing limiting device memory (no cudaMalloc of these sizes fails) and a "
                  "batch of %zu floats that divides n: a copy was refused\n  likely mistake: the device buffers are too small for the "
                  "copies: cudaMalloc's size is in bytes, so two buffers of `batch` floats are cudaMalloc(&d[0], batch * sizeof(float)) "
                  "(not cudaMalloc(&d[0], batch), which gives batch bytes); or a copy's count or offset runs past its buffer (each "
                  "copy is len * sizeof(float) bytes at h_in + offset)",
                  what, st.batch);
    ck_assert_msg(e == cudaSuccess,
                  "%s returned %s\n  likely mistake: %s", what, judge_error_name(e),
                  e == cudaErrorMemoryAllocation
                      ? "when cudaMalloc fails with cudaErrorMemoryAllocation, free what you got, halve the batch and try again"
                      : batch_set && n % st.batch && fits
                          /* a batch that fits, and a partial last one (trial 8, a045: len = batch always, so the
                             last copies ran past the end of h_in and h_out, refused by the simulator) */
                          ? "either the last batch was copied whole: it holds only n - offset elements (n % batch here), and a "
                            "copy of `batch` floats runs past the end of h_in and h_out -- give it the length n - offset; or a "
                            "cudaMalloc that failed went unnoticed, and the copies then used a null pointer"
                          : "a cudaMalloc that failed (cudaErrorMemoryAllocation) went unnoticed, and the copies then used a null pointer? "
                            "Check every cudaMalloc's result, and on that error halve the batch");
    ck_assert_msg(pending == cudaSuccess,
                  "after %s returned, %s was still pending in the last-error slot\n  likely mistake: a failed cudaMalloc leaves its "
                  "error there; once you have handled it (by halving the batch), clear it with cudaGetLastError()",
                  what, judge_error_name(pending));
    ck_assert_msg(streams0 < 0 || streams1 <= streams0,
                  "%s returned with %d stream(s) it created still alive\n  likely mistake: cudaStreamDestroy each of the two streams "
                  "before returning (also on the error paths): a stream holds resources of the device until it is destroyed",
                  what, streams1 - streams0);
    ck_assert_msg(events0 < 0 || events1 <= events0, "%s returned with %d CUDA event(s) it created still alive\n  likely mistake: cudaEventDestroy",
                  what, events1 - events0);
    if (n == 0) {
        ck_assert_msg(st.batch == 0 && st.batches == 0 && st.failed_allocations == 0,
                      "%s: with nothing to do, *st must be all zero (got batch %zu, batches %zu, failed_allocations %u)", what, st.batch,
                      st.batches, st.failed_allocations);
        goto done;
    }
    /* The batch: one of min(max_batch, n), its half, its quarter, ... and within the budget. */
    size_t first = max_batch < n ? max_batch : n, b = first;
    while (b > st.batch && b > 1) b /= 2;
    ck_assert_msg(st.batch && b == st.batch,
                  "%s reported a batch of %zu elements; the batches tried are min(max_batch, n) = %zu, then half of it, and so on", what,
                  st.batch, first);
    if (budget) {
        ck_assert_msg(2 * st.batch * sizeof(float) <= free_bytes, "%s settled on a batch of %zu floats: two buffers of it do not fit in %zu bytes",
                      what, st.batch, free_bytes);
        /* On the simulator the memory is exact: the first size whose two buffers fit is the answer. */
        ck_assert_msg(!ON_SIM || st.batch == first || 2 * (2 * st.batch) * sizeof(float) > free_bytes,
                      "%s settled on a batch of %zu floats, but %zu would have fit (two buffers of %zu bytes in %zu free)\n  likely "
                      "mistake: halve once per failed attempt, and stop at the first size whose two buffers fit",
                      what, st.batch, 2 * st.batch, 2 * st.batch * sizeof(float), free_bytes);
        ck_assert_msg(st.batch == first || st.failed_allocations > 0,
                      "%s used a smaller batch than min(max_batch, n) = %zu, but reports no failed cudaMalloc", what, first);
    }
    GradeCompare cmp = {.what = what, .n = n};
    char *diff = grade_diff_floats(h_out, want, &cmp);
    if (diff) {
        size_t tail = n % st.batch, good = n - tail;
        int tail_lost = tail != 0;
        for (size_t i = 0; i < n && tail_lost; i++)
            if (i < good ? memcmp(&h_out[i], &want[i], sizeof(float)) != 0 : !isnan(h_out[i])) tail_lost = 0;
        if (tail_lost) {
            free(diff);
            ck_abort_msg("%s: the last partial batch (elements %zu to %zu, the n %% batch = %zu left after %zu whole batches) was never "
                         "processed\n  likely mistake: loop while the offset is below n, and give the last batch the length n - offset",
                         what, good, n - 1, tail, good / st.batch);
        }
        grade_fail_if(diff, &cmp, __FILE__, __LINE__);
    }
    size_t batches = (n + st.batch - 1) / st.batch;
    ck_assert_msg(st.batches == batches, "%s reported %zu batches of %zu; ceil(n / batch) is %zu", what, st.batches, st.batch, batches);
    /* Right values: did the batches' work go to the streams made for it? (Whether the batches then
       overlap is lesson 11's to grade; here, that nothing of theirs sits in the legacy default
       stream, which would serialise them.) Not observable on a GPU without CUPTI's observer. */
    BatchStreams bs;
    probe_batched_streams(&bs);
    ck_assert_msg(bs.observed >= 0,
                  "%s: the grader cannot take the record of the streams this call used: the simulator's recording was stopped or "
                  "replaced during the call (simcuda_timeline_* are the grader's, not your code's), and nothing is taken from one that "
                  "was not whole",
                  what);
    ck_assert_msg(!bs.observed || bs.legacy == 0,
                  "%s: the values are right, but %llu of its %llu copies and kernels ran in the legacy default stream (stream 0) instead "
                  "of the streams it created: stream 0 waits for all the work queued before it in every other stream, and they for "
                  "it, so batch k + 1's copy in cannot run while batch k computes -- what the two streams are for\n"
                  "  likely mistake: a stream argument left out or 0 -- give every copy and launch of batch k its stream s[k %% 2]: "
                  "cudaMemcpyAsync(..., s[b]) (a plain cudaMemcpy runs in stream 0 too) and kernel<<<grid, block, 0, s[b]>>>",
                  what, (unsigned long long)bs.legacy, (unsigned long long)(bs.legacy + bs.per_thread + bs.created));
    /* Right values, but a grid far larger than the batch (trial 18, b111: len blocks of 256 threads, 256x the threads
       needed; the surplus fails the kernel's guard). Each batch needs at most one partial block beyond len threads.
       The simulator reports the grid; a GPU does not (-1). */
    unsigned long long grid_blocks = 0, grid_threads = 0;
    int grid_launches = judge_last_call_grid("transform_kernel", &grid_blocks, &grid_threads);
    /* every launch sized for a whole batch, the last, partial one included (trial 20, b073:
       blocks_for(batch, 256) for a batch of len < batch elements, blamed on a grid in elements):
       the grid is then exactly batches x blocks_for(batch, threads), more than the tail needs */
    if (grid_launches > 0 && grid_threads && (size_t)grid_launches == batches && n % st.batch) {
        unsigned long long t = grid_threads, whole = (st.batch + t - 1) / t, tail_blocks = (n % st.batch + t - 1) / t;
        ck_assert_msg(whole == tail_blocks || grid_blocks != (unsigned long long)batches * whole,
                      "%s: the values are right, but every one of its %d launches of transform_kernel ran %llu blocks of %llu threads, "
                      "the grid of a whole batch of %zu, the last one included: that batch holds only n - offset = %zu elements and "
                      "needs %llu block(s); the surplus threads only failed the i < n guard\n"
                      "  likely mistake: the last, partial batch's grid was sized for a full batch: size each launch by that batch's "
                      "len, not by batch: transform_kernel<<<blocks_for(len, 256), 256, 0, s[b]>>>(d[b], len)",
                      what, grid_launches, whole, t, st.batch, n % st.batch, tail_blocks);
    }
    if (grid_launches > 0 && grid_blocks && grid_threads)
        ck_assert_msg(grid_blocks * grid_threads <= n + (unsigned long long)grid_launches * grid_threads,
                      "%s: the values are right, but its %d launches of transform_kernel ran %llu blocks of %llu threads, %llu threads "
                      "for %zu elements (%.0fx what the batches need; the surplus threads only failed the i < n guard)\n"
                      "  likely mistake: the grid was given in elements, not blocks: a batch of len elements needs "
                      "blocks_for(len, threads) = (len + threads - 1) / threads blocks, transform_kernel<<<blocks_for(len, 256), 256, 0, "
                      "s[b]>>>",
                      what, grid_launches, grid_blocks, grid_threads, grid_blocks * grid_threads, n,
                      (double)(grid_blocks * grid_threads) / (double)n);
    /* Double buffering, graded as lesson 11 grades its pipeline (trial 9: one buffer and one stream
       passed): with two batches or more, the work goes to two streams and overlaps in the modelled
       timeline (the simulator; a GPU's observer does not tell the streams apart). */
    if (bs.observed == 1 && batches >= 2 && bs.streams_used >= 0) {
        ck_assert_msg(bs.streams_used >= 2,
                      "%s: the values are right, but the copies and kernels of all %zu batches went to %d stream: each batch's copy in "
                      "waits for the batch before it to be copied out, so no copy overlaps a kernel\n"
                      "  likely mistake: one stream (and one buffer) for every batch: two buffers and two streams, batch k in buffer "
                      "and stream k %% 2, so that batch k + 1's copy in runs while batch k computes",
                      what, batches, bs.streams_used);
        ck_assert_msg(bs.overlapped == 1,
                      "%s: the copies and kernels of the %zu batches went to %d streams, but in the modelled timeline no work of one "
                      "stream ran while another's did\n"
                      "  likely mistake: a wait between batches (cudaStreamSynchronize or cudaDeviceSynchronize in the loop), or a "
                      "synchronous call that waits for everything: queue all batches' copies and kernels, then wait once",
                      what, batches, bs.streams_used);
    }
done:
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    free(want);
}

START_TEST(test_batches_fit_the_budget_and_cover_every_element) {
    const BatchCase *c = &kBatchCases[_i];
    /* Under compute-sanitizer the budget's ballast could not be allocated: small cases without it. */
    if (judge_sanitizing()) {
        if (c->n <= 1000) check_batched(c->n, c->max_batch, 0);
        return;
    }
    check_batched(c->n, c->max_batch, BUDGET);
}
END_TEST

/* The simulator: the case with the most batches again under the other schedules, which also run the
   two streams' work late, in reverse or in random order (sim/README.md, "Streams and their
   schedules"); a GPU has one schedule. */
START_TEST(test_batches_are_right_under_every_stream_schedule) {
    if (judge_sanitizing()) return;
    for (int s = 1; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        check_batched(BUDGET + 3, BUDGET / 16 - 5, BUDGET);
    }
    grade_use_schedule(0);
}
END_TEST

START_TEST(test_batches_without_a_budget_are_one_batch) {
    check_batched(0, 16, 0);
    check_batched(4099, 100000, 0);
}
END_TEST

#if ON_SIM
/* On the simulator only: a GPU's context needs some memory of its own, so "nothing left" is not
   something a test there can set up exactly. */
START_TEST(test_no_room_at_all_returns_out_of_memory_and_leaks_nothing) {
    size_t n = 1000;
    float *h_in = NULL, *h_out = NULL;
    ck_assert(cudaMallocHost((void **)&h_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMallocHost((void **)&h_out, n * sizeof(float)) == cudaSuccess);
    grade_fill_floats(h_in, n, grade_seed() + 5, -1.0f, 1.0f);
    size_t free_bytes = probe_limit_device_memory(4);
    cudaGetLastError();
    BatchStats st;
    cudaError_t e = process_batched(h_in, h_out, n, 1024, &st);
    probe_limit_device_memory(0);
    cudaError_t pending = cudaGetLastError();
    ck_assert_msg(e == cudaErrorMemoryAllocation,
                  "process_batched(n = 1000) with %zu bytes of device memory free returned %s: not even two buffers of one float fit, "
                  "so it must return cudaErrorMemoryAllocation (after trying 1000, 500, ..., 1)",
                  free_bytes, judge_error_name(e));
    ck_assert_msg(pending == cudaSuccess,
                  "after process_batched gave up, %s was still pending\n  likely mistake: clear each failed cudaMalloc's error with "
                  "cudaGetLastError() once handled",
                  judge_error_name(pending));
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
}
END_TEST
#endif

static Suite *build_suite(void) {
    grade_lesson_needs_whole_gpu("14.4 takes all of the GPU's memory but a budget from the runner: another program's cudaMalloc would fail meanwhile");
    const GradeTest tests[] = {
        {"14.1", test_calculator_matches_the_reference_on_an_h200, 1},
        {"14.1", test_calculator_matches_the_reference_on_other_devices, 1},
        {"14.1", test_occupancy_device_describes_this_gpu, 1},
        {"14.1", test_kernel_occupancy_agrees_with_the_runtime_for_real_kernels, 1},
        {"14.1", test_kernel_occupancy_asks_for_the_current_device, 1},
        {"14.2", test_best_block_size_matches_the_reference, 1},
        {"14.2", test_heavy_bounded_kernel_has_its_launch_bounds, 1},
        {"14.2", test_heavy_bounded_kernel_computes_at_sizes_that_are_not_a_multiple_of_its_block, 6},
        {"14.2", test_best_block_size_agrees_with_the_runtime_for_real_kernels, 1},
        {"14.2", test_heavy_gpu_computes_with_the_runtimes_block_or_the_given_one, 9},
        {"14.3", test_sticky_errors_are_told_apart, 1},
        {"14.3", test_check_cuda_reports_file_line_call_and_kind, 1},
        {"14.3", test_scale_checked_gpu_scales_and_reports_nothing, 6},
        {"14.3", test_a_refused_launch_is_reported_at_its_check_and_not_left_pending, 1},
#if !ON_SIM
        {"14.3", test_an_illegal_address_is_reported_at_the_synchronisation_as_sticky, 1},
#endif
        {"14.4", test_batches_without_a_budget_are_one_batch, 1},
        {"14.4", test_batches_fit_the_budget_and_cover_every_element, N_BATCH_CASES},
        {"14.4", test_batches_are_right_under_every_stream_schedule, 1},
#if ON_SIM
        {"14.4", test_no_room_at_all_returns_out_of_memory_and_leaks_nothing, 1},
#endif
    };
    return grade_suite("14-occupancy", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("14", kExercises, N_EXERCISES, build_suite); }
