/**
 * @file mma_emulate.h
 * @brief CPU models of ldmatrix.x4 and mma.sync m16n8k16 (bf16 inputs, f32 accumulators), lane by
 *        lane, for the CPU checks of the kernels that use them: mma_layout_check.cpp (this
 *        folder's mma_sync_gemm.cu) and lesson 19's flash_mma_check.cpp.
 *
 * Written from the PTX ISA's descriptions and fragment tables, not from mma_layout.h: the checks
 * compare that header's indices with the ISA, so the models must not share them. Host C++ only.
 */
#ifndef MMA_EMULATE_H
#define MMA_EMULATE_H

#include <stdint.h>
#include <string.h>

#include <vector>

/* bf16 <-> float: round to nearest even, as __float2bfloat16_rn (no NaNs here); a bf16 is the top
   half of a float. */
inline uint16_t mma_emu_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7FFF + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
inline float mma_emu_float(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* Two bf16 in one register: the lower 16 bits hold the first element. */
inline uint32_t mma_emu_pack(uint16_t lo, uint16_t hi) { return (uint32_t)lo | ((uint32_t)hi << 16); }

/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: addr[8m + r] is the element offset in tile of
   row r of matrix m (8 elements, 16 bytes; the caller checks that it lies in the tile). Without
   .trans lane l receives, in register m, row l / 4, elements 2(l % 4) and +1 of matrix m; with
   .trans, (row 2(l % 4), column l / 4) and (row 2(l % 4) + 1, column l / 4). groups[m] gets the
   16-byte bank groups that matrix m's 8 rows hit, one bit each: 0xFF when the phase is free of
   bank conflicts. */
inline void mma_emu_ldmatrix_x4(const std::vector<uint16_t> &tile, const int (&addr)[32], bool trans, uint32_t (&out)[32][4],
                                int (&groups)[4]) {
    for (int m = 0; m < 4; m++) {
        groups[m] = 0;
        for (int r = 0; r < 8; r++) groups[m] |= 1 << ((addr[8 * m + r] / 8) % 8);
        for (int l = 0; l < 32; l++) {
            const int g = l / 4, t = l % 4;
            if (!trans) out[l][m] = mma_emu_pack(tile[addr[8 * m + g] + 2 * t], tile[addr[8 * m + g] + 2 * t + 1]);
            else out[l][m] = mma_emu_pack(tile[addr[8 * m + 2 * t] + g], tile[addr[8 * m + 2 * t + 1] + g]);
        }
    }
}

/* mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, d += A B (sums in double, rounded once),
   from the ISA's fragment tables, g = lane / 4, t = lane % 4. A: a0 (g, 2t..2t+1), a1 (g+8, 2t..),
   a2 (g, 2t+8..), a3 (g+8, 2t+8..). B: b0 (k = 2t..2t+1, n = g), b1 (k = 2t+8.., n = g), here
   registers 2 half and 2 half + 1 of b, an ldmatrix.x4 result that holds two n8 fragments. C/D: c0,
   c1 (g, 2t..2t+1), c2, c3 (g+8, 2t..2t+1). */
inline void mma_emu_m16n8k16(float (&d)[32][4], const uint32_t (&a)[32][4], const uint32_t (&b)[32][4], int half) {
    float A[16][16], B[16][8], D[16][8];
    for (int l = 0; l < 32; l++) {
        const int g = l / 4, t = l % 4;
        for (int i = 0; i < 4; i++) {
            const int r = g + (i & 1) * 8, c = 2 * t + (i >> 1) * 8;
            A[r][c] = mma_emu_float((uint16_t)a[l][i]), A[r][c + 1] = mma_emu_float((uint16_t)(a[l][i] >> 16));
        }
        for (int i = 0; i < 2; i++) {
            const uint32_t v = b[l][2 * half + i];
            B[2 * t + 8 * i][g] = mma_emu_float((uint16_t)v), B[2 * t + 8 * i + 1][g] = mma_emu_float((uint16_t)(v >> 16));
        }
        D[g][2 * t] = d[l][0], D[g][2 * t + 1] = d[l][1], D[g + 8][2 * t] = d[l][2], D[g + 8][2 * t + 1] = d[l][3];
    }
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            double acc = D[r][c];
            for (int k = 0; k < 16; k++) acc += (double)A[r][k] * B[k][c];
            D[r][c] = (float)acc;
        }
    for (int l = 0; l < 32; l++) {
        const int g = l / 4, t = l % 4;
        d[l][0] = D[g][2 * t], d[l][1] = D[g][2 * t + 1], d[l][2] = D[g + 8][2 * t], d[l][3] = D[g + 8][2 * t + 1];
    }
}

#endif
