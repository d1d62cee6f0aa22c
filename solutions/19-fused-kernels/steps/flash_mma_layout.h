/**
 * @file flash_mma_layout.h
 * @brief The index arithmetic of flash_mma.cu that lesson 17's mma_layout.h does not already hold,
 *        shared by the kernel and its CPU emulation (flash_mma_check.cpp): K's ldmatrix addresses,
 *        which row and key an S accumulator holds, and which S accumulators make P's A fragment.
 *
 * From mma_layout.h: mma_swz<8> (tiles of 64 bf16 a row, 8 chunks of 16 bytes, XOR-swizzled),
 * mma_a_ldm_rc (Q's A fragments), mma_b_ldm_rc (V's B fragments, ldmatrix .trans), mma_c_rc.
 */
#ifndef FLASH_MMA_LAYOUT_H
#define FLASH_MMA_LAYOUT_H

#include "../../17-tensor-cores/steps/mma_layout.h"

/* ldmatrix .x4 (not .trans) for the B fragments of S = Q K^T over keys n0..n0+15 and head
 * dimensions k0..k0+15, from K row-major (one key a row) in shared memory. The mma's B is K^T
 * (k = head dimension, n = key), "col" layout: b0 holds (k = 2t, 2t+1; n = g), b1 the same at k + 8.
 * A stored 8 x 8 matrix of K (8 keys x 8 dims) read without .trans gives lane l row l / 4 (key g),
 * elements 2(l % 4), +1 (dims 2t, 2t+1): exactly b0. So matrix 0 = (keys n0.., dims k0..), 1 = (keys
 * n0.., dims k0 + 8..), 2 = (keys n0 + 8.., dims k0..), 3 = (keys n0 + 8.., dims k0 + 8..): registers
 * 0, 1 are the fragment of keys n0..n0+7 and 2, 3 that of n0+8..n0+15. Note the order differs from
 * mma_a_ldm_rc's (there matrix 1 is the next 8 rows, here the next 8 columns). */
MMA_HD void flash_k_ldm_rc(int lane, int n0, int k0, int *row, int *chunk) {
    const int mat = lane >> 3;
    *row = n0 + (mat >> 1) * 8 + (lane & 7);
    *chunk = k0 / 8 + (mat & 1);
}

/* S accumulator e (0..3) of n-tile j (keys 8j..8j+7 of the tile): its row within the warp's 16
 * and its key within the tile (mma_c_rc: c0, c1 in row g, c2, c3 in row g + 8; columns 2t, 2t + 1). */
MMA_HD void flash_s_rk(int lane, int j, int e, int *row, int *key) {
    int r, c;
    mma_c_rc(lane, e >> 1, &r, &c);
    *row = r;
    *key = 8 * j + c + (e & 1);
}

/* P's A fragment for keys 16kk..16kk+15 (m16n8k16: a0 = (row g, k 2t, 2t+1), a1 = (row g + 8, the
 * same k), a2 = (row g, k 2t + 8, +9), a3 = (row g + 8, k 2t + 8, +9)) is S's accumulators of n-tiles
 * 2kk and 2kk + 1 packed in pairs: register i is the pair (c[2h], c[2h + 1]) of n-tile 2kk + (i >> 1),
 * h = i & 1. Returns that n-tile and h. */
MMA_HD void flash_p_src(int kk, int i, int *ntile, int *h) {
    *ntile = 2 * kk + (i >> 1);
    *h = i & 1;
}

#endif
