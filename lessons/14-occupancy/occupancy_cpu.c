/**
 * @file occupancy_cpu.c
 * @brief Lesson 14's CPU references: the occupancy calculator and the block-size search (the
 *        rules of CUDA's cuda_occupancy.h, written out), the heavy and segment kernels' results,
 *        which errors are sticky, the report line, and the batched transform. They define the
 *        right answers; the grader compares your code with them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "occupancy.h"

static long round_up(long x, long unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }
static int min_int(int a, int b) { return a < b ? a : b; }

void occupancy_calc_cpu(const OccKernel *k, const OccDevice *d, OccResult *r) {
    memset(r, 0, sizeof *r);
    if (k->threads_per_block < 1 || d->warp_size < 1) {
        r->limits = OCC_LIMIT_WARPS;
        return;
    }
    int warps = (k->threads_per_block + d->warp_size - 1) / d->warp_size;

    /* warps: whole blocks of warps among the SM's resident warps */
    r->by_warps = k->threads_per_block > d->max_threads_per_block ? 0 : d->max_threads_per_sm / d->warp_size / warps;
    r->by_blocks = d->max_blocks_per_sm;

    /* registers: allocated per warp in units, and a quarter of the file holds whole warps only */
    if (k->regs_per_thread <= 0) {
        r->by_registers = d->max_blocks_per_sm;
    } else {
        long per_warp = round_up((long)k->regs_per_thread * d->warp_size, d->reg_alloc_unit);
        int parts = d->reg_sub_partitions > 0 ? d->reg_sub_partitions : 1;
        if (k->regs_per_thread > d->max_regs_per_thread || per_warp * warps > d->regs_per_block ||
            per_warp * round_up(warps, parts) > d->regs_per_block)
            r->by_registers = 0; /* the launch fails: "too many resources requested for launch" */
        else
            r->by_registers = (int)((d->regs_per_sm / parts) / per_warp) * parts / warps;
    }

    /* shared memory: what the block asks for plus the reserve, in allocation units */
    size_t asked = k->static_smem + k->dynamic_smem;
    size_t allocated = (size_t)round_up((long)(asked + d->smem_reserved_per_block), (long)d->smem_alloc_unit);
    if (asked > d->smem_per_block_optin || allocated > d->smem_per_sm) r->by_shared = 0;
    else if (allocated == 0) r->by_shared = d->max_blocks_per_sm;
    else r->by_shared = (int)(d->smem_per_sm / allocated);

    r->blocks_per_sm = min_int(min_int(r->by_warps, r->by_blocks), min_int(r->by_registers, r->by_shared));
    r->limits = (r->by_warps == r->blocks_per_sm ? OCC_LIMIT_WARPS : 0) | (r->by_blocks == r->blocks_per_sm ? OCC_LIMIT_BLOCKS : 0) |
                (r->by_registers == r->blocks_per_sm ? OCC_LIMIT_REGISTERS : 0) | (r->by_shared == r->blocks_per_sm ? OCC_LIMIT_SHARED : 0);
    r->warps_per_sm = r->blocks_per_sm * warps;
    int sm_warps = d->max_threads_per_sm / d->warp_size;
    r->occupancy = sm_warps > 0 ? (double)r->warps_per_sm / sm_warps : 0.0;
}

long resident_threads_cpu(const OccKernel *k, size_t smem_per_thread, int block, const OccDevice *d) {
    OccKernel t = *k;
    t.threads_per_block = block;
    t.dynamic_smem = k->dynamic_smem + smem_per_thread * (size_t)block;
    OccResult r;
    occupancy_calc_cpu(&t, d, &r);
    return (long)r.blocks_per_sm * block;
}

void best_block_size_cpu(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *c) {
    memset(c, 0, sizeof *c);
    int limit = block_limit > 0 && block_limit < d->max_threads_per_block ? block_limit : d->max_threads_per_block;
    int g = d->warp_size > 0 ? d->warp_size : 32;
    long best_threads = 0;
    /* From the largest down: the first size is the limit itself, then the multiples of the warp below it. */
    for (int aligned = (limit + g - 1) / g * g; aligned > 0; aligned -= g) {
        int b = aligned > limit ? limit : aligned;
        long threads = resident_threads_cpu(k, smem_per_thread, b, d);
        if (threads > best_threads) {
            best_threads = threads;
            c->block = b;
            c->blocks_per_sm = (int)(threads / b);
        }
    }
    c->min_grid = c->blocks_per_sm * d->multiprocessors;
}

void occupancy_device_h200_cpu(OccDevice *d) {
    *d = (OccDevice){.warp_size = 32,
                     .max_threads_per_block = 1024,
                     .max_threads_per_sm = 2048,
                     .max_blocks_per_sm = 32,
                     .regs_per_sm = 65536,
                     .regs_per_block = 65536,
                     .max_regs_per_thread = 255,
                     .reg_alloc_unit = 256,
                     .reg_sub_partitions = 4,
                     .smem_per_sm = 233472,
                     .smem_per_block_optin = 232448,
                     .smem_reserved_per_block = 1024,
                     .smem_alloc_unit = 128,
                     .multiprocessors = 132};
}

/* heavy_kernel's work, one element: HEAVY_VALUES values that all stay live through every round
   (each update reads its right neighbour's old value), so the compiler keeps them in registers.
   fmaf everywhere: the GPU's fused multiply-add, rounded once, on both sides. */
void heavy_cpu(const float *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float v[HEAVY_VALUES];
        for (int j = 0; j < HEAVY_VALUES; j++) v[j] = fmaf(in[i], 1.0f - (float)j / 64.0f, (float)j / 128.0f);
        for (int r = 0; r < HEAVY_ROUNDS; r++) {
            float first = v[0];
            for (int j = 0; j < HEAVY_VALUES - 1; j++) v[j] = fmaf(v[j], v[j + 1], 0.25f) * 0.5f;
            v[HEAVY_VALUES - 1] = fmaf(v[HEAVY_VALUES - 1], first, 0.25f) * 0.5f;
        }
        float s = 0.0f;
        for (int j = 0; j < HEAVY_VALUES; j++) s += v[j];
        out[i] = s / (float)HEAVY_VALUES;
    }
}

void segments_cpu(const float *in, float *out, size_t n) {
    for (size_t start = 0; start < n; start += SEGMENT) {
        size_t len = n - start < SEGMENT ? n - start : SEGMENT;
        float sum = 0.0f;
        for (size_t j = 0; j < len; j++) sum += in[start + j];
        float mean = sum / (float)len;
        for (size_t j = 0; j < len; j++) out[start + j] = in[start + j] - mean;
    }
}

int cuda_error_is_sticky_cpu(int code) {
    switch (code) {
    case 700: /* cudaErrorIllegalAddress */
    case 702: /* cudaErrorLaunchTimeout */
    case 710: /* cudaErrorAssert */
    case 714: /* cudaErrorHardwareStackError */
    case 715: /* cudaErrorIllegalInstruction */
    case 716: /* cudaErrorMisalignedAddress */
    case 717: /* cudaErrorInvalidAddressSpace */
    case 718: /* cudaErrorInvalidPc */
    case 719: /* cudaErrorLaunchFailure */
        return 1;
    default:
        return 0;
    }
}

void check_report_cpu(char *buf, size_t cap, const char *file, int line, const char *call, const char *name, const char *text, int sticky) {
    snprintf(buf, cap, "%s:%d: %s failed: %s (%s) -- %s", file, line, call, name, text,
             sticky ? "sticky: the context is lost, end the process" : "not sticky: later calls still work");
}

float transform_cpu(float x) { return x * 2.0f + 1.0f; }
