/**
 * @file mma_layout.h
 * @brief The index arithmetic of mma_sync_gemm.cu (shared-memory swizzle, ldmatrix lane addresses,
 *        copy and epilogue mappings), in one place so that the kernel and its CPU check
 *        (mma_layout_check.cpp) compute exactly the same indices.
 *
 * Plain integer functions: `__host__ __device__` under nvcc, ordinary inline functions in C++.
 * Shared tiles are stored in 16-byte chunks (8 bf16): a tile with C chunks per row keeps row r's
 * logical chunk c at physical chunk c ^ key(r), where key XORs the low bits of the chunk index so
 * that the 8 rows read by one ldmatrix phase (8 lanes, 16 bytes each) land in 8 different 16-byte
 * groups of banks, i.e. all 32 banks once (PTX ISA: ldmatrix, each 8 x 8 matrix is 8 row
 * addresses of 16 bytes).
 */
#ifndef MMA_LAYOUT_H
#define MMA_LAYOUT_H

#ifdef __CUDACC__
#define MMA_HD __host__ __device__ __forceinline__
#else
#define MMA_HD inline
#endif

/* Element offset of (row, chunk) in a swizzled tile of C chunks per row (C = 4, 8, 16, 32, ...).
 * C >= 8: a row is 128 bytes or more, so rows r..r+7 of one chunk column all sit in the same bank
 * group unless chunk ^= r & 7 spreads them. C == 4 (a 64-byte row, BK = 32): two rows share one
 * 128-byte line, so the row pair index (r / 2) & 3 is the key; with the row's own half of the line
 * that again gives 8 distinct groups for 8 consecutive rows. The XOR only touches bits below C, so
 * the row keeps its own chunks (a permutation within the row: copies and reads agree). */
template <int C> MMA_HD int mma_swz(int row, int chunk) {
    static_assert(C >= 4 && (C & (C - 1)) == 0, "chunks per row: a power of two, at least 4");
    constexpr int G = C < 8 ? C : 8;   // chunks of a row inside one 128-byte line of banks
    constexpr int RPL = 8 / G;         // rows per 128-byte line
    return row * C * 8 + ((chunk ^ ((row / RPL) & (G - 1))) * 8);
}

/* ldmatrix .x4 for an A fragment of m16n8k16 (16 x 16, row-major in shared memory): lane l gives
 * the address of row (l & 7) of matrix l >> 3; matrices 0..3 are (rows 0-7, k 0-7), (rows 8-15,
 * k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15), which are exactly registers a0..a3 of the mma
 * (a0: row g, a1: row g + 8, a2: row g k + 8, a3: row g + 8 k + 8; g = lane / 4). */
MMA_HD void mma_a_ldm_rc(int lane, int row0, int k0, int *row, int *chunk) {
    const int mat = lane >> 3;
    *row = row0 + (mat & 1) * 8 + (lane & 7);
    *chunk = k0 / 8 + (mat >> 1);
}

/* ldmatrix .x4 .trans for two B fragments (k16 x n8 each) from B row-major (k rows) in shared
 * memory: matrix 0 = (k 0-7, n 0-7), 1 = (k 8-15, n 0-7), 2 = (k 0-7, n 8-15), 3 = (k 8-15, n 8-15).
 * .trans hands lane l the elements (k = 2(l % 4), 2(l % 4) + 1; n = l / 4) of each stored matrix,
 * which is the mma's B layout (b0: k = 2t, 2t+1, n = g; b1: the same at k + 8), so registers 0, 1
 * are the fragment of n0..n0+7 and registers 2, 3 that of n0+8..n0+15. */
MMA_HD void mma_b_ldm_rc(int lane, int k0, int n0, int *row, int *chunk) {
    const int mat = lane >> 3;
    *row = k0 + (mat & 1) * 8 + (lane & 7);
    *chunk = n0 / 8 + (mat >> 1);
}

/* The accumulator of m16n8k16: lane l holds c0, c1 at (row g, cols 2t, 2t+1) and c2, c3 at
 * (row g + 8, the same cols), g = l / 4, t = l % 4. Returns row and col of c[2 * half]. */
MMA_HD void mma_c_rc(int lane, int half, int *row, int *col) {
    *row = (lane >> 2) + half * 8;
    *col = (lane & 3) * 2;
}

#endif
