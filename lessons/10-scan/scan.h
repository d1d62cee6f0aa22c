/**
 * @file scan.h
 * @brief Lesson 10's C API: prefix sums (scans) -- a block-level scan two ways, a scan of any length
 *        over several kernels, stream compaction, and a single-pass scan with decoupled look-back.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_10_scan.c) call these; you
 * write them in scan.cu. An inclusive scan of x is out[i] = x[0] + ... + x[i]; an exclusive scan
 * is out[i] = x[0] + ... + x[i-1] (out[0] = 0). Unsigned sums wrap modulo 2^32 and must be exact;
 * float sums may differ from the CPU's by rounding (scan_float_tolerance).
 */
#ifndef LESSON_10_SCAN_H
#define LESSON_10_SCAN_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device workspace that scan_uint_gpu, scan_float_gpu and the single-pass scans may use
    for n elements: room for every level's block sums (10.2) or one status word per tile and a
    ticket counter (10.4). The caller allocates it; it holds garbage on entry. */
static inline size_t scan_workspace_bytes(size_t n) { return (n / 16 + 64) * 8; }

/** Bytes of device workspace compact_gpu may use: n flags, n positions (each rounded up to 256
    bytes) and a scan's workspace after them. */
static inline size_t compact_workspace_bytes(size_t n) {
    return 2 * ((n * sizeof(unsigned) + 255) / 256 * 256) + scan_workspace_bytes(n);
}

/** 10.1: block-level inclusive scans. The input is cut into tiles of `block` elements (the last
    one may be partial); each block scans its own tile, independently of the others:
    d_out[i] = d_in[t * block] + ... + d_in[i] for i in tile t = i / block. block is a multiple of
    32 from 32 to 1024 (else cudaErrorInvalidValue). block_scan_hs_gpu uses Hillis-Steele in a
    double buffer of shared memory; block_scan_warp_gpu uses __shfl_up_sync within each warp and
    one shared value per warp. n = 0 launches nothing. Do not wait. */
cudaError_t block_scan_hs_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block);
cudaError_t block_scan_warp_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block);

/** 10.2: the scan of all n elements (any n, up to 2^31 - 1), inclusive or (exclusive != 0)
    exclusive, over several kernels: block scans that write each block's sum, a scan of the block
    sums (itself recursive when there are more blocks than threads in a block), and an add.
    block: as in 10.1. d_work: scan_workspace_bytes(n) bytes of device memory, garbage on entry.
    d_in and d_out do not overlap. Do not wait. */
cudaError_t scan_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, int exclusive, unsigned block, void *d_work);
cudaError_t scan_float_gpu(const float *d_in, float *d_out, size_t n, int exclusive, unsigned block, void *d_work);

/** 10.3: stream compaction. Copies the elements of d_in greater than `threshold` to d_out, in their
    order, and writes their number to *d_count; d_out[count..n) stay untouched. Uses an exclusive
    scan of 0/1 flags (10.2) for the positions. block: as in 10.1. d_work:
    compact_workspace_bytes(n) bytes, garbage on entry. n = 0 sets *d_count to 0. Does not wait. */
cudaError_t compact_gpu(const float *d_in, float *d_out, size_t n, float threshold, unsigned *d_count, unsigned block, void *d_work);

/** 10.4: the inclusive scan of n elements in one kernel launch (plus a memset of the workspace):
    tiles take a ticket in the order they start, publish their sum, and add the sums of the tiles
    before them, read from per-tile status words (decoupled look-back). The block and tile sizes
    are yours. d_in and d_out come from cudaMalloc (aligned for vector loads). d_work:
    scan_workspace_bytes(n) bytes, garbage on entry. Does not wait. */
cudaError_t scan_single_pass_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, void *d_work);
cudaError_t scan_single_pass_float_gpu(const float *d_in, float *d_out, size_t n, void *d_work);

/* ---- the CPU references (scan_cpu.c) ---- */

/** Unsigned scan, wrapping modulo 2^32: inclusive, or exclusive when `exclusive` is non-zero. */
void scan_uint_cpu(const unsigned *in, unsigned *out, size_t n, int exclusive);
/** Float scan, summed in double and rounded to float once per element. */
void scan_float_cpu(const float *in, float *out, size_t n, int exclusive);
/** 10.1's result: each tile of `block` elements scanned on its own (inclusive). */
void block_scan_cpu(const unsigned *in, unsigned *out, size_t n, unsigned block);
/** The elements of in greater than threshold, in order, into out; returns how many. */
size_t compact_cpu(const float *in, float *out, size_t n, float threshold);
/** How far a float scan's element may be from scan_float_cpu's: 2^-24 * (8 + 2 log2(len)) * abs_sum,
    where len is the number of elements summed (i + 1 inclusive, i exclusive) and abs_sum the sum of
    their absolute values: the first-order rounding bound of a tree of additions of depth
    8 + 2 log2(len) in float (the GPU's order), against a sum the CPU keeps exact in double. */
double scan_float_tolerance(size_t len, double abs_sum);

#ifdef __cplusplus
}
#endif
#endif
