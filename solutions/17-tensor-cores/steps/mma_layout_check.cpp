/* mma_layout_check.cpp -- a CPU check of mma_sync_gemm.cu's index arithmetic (mma_layout.h), for
 * want of a GPU: one block's slices are laid out in a byte-for-byte model of its shared memory by
 * the kernel's copy mapping, read back by models of ldmatrix (.x4, .trans) at the kernel's lane
 * addresses, multiplied by a model of mma.sync m16n8k16 written from the PTX ISA's fragment tables
 * (not from mma_layout.h), and stored by the kernel's epilogue mapping; the result must equal the
 * plain product exactly (small integers), every ldmatrix phase must hit 8 different 16-byte bank
 * groups, and the copies must fill each stage exactly once. wmma_steps.cu's ldmatrix steps (6-10)
 * use the same copy mapping and ldmatrix addresses (their WMMA fragments are checked on the GPU).
 * Run: g++ -std=c++17 -O2 -I solutions/17-tensor-cores/steps -o /tmp/mma_layout_check \
 *        solutions/17-tensor-cores/steps/mma_layout_check.cpp && /tmp/mma_layout_check
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mma_layout.h"

static uint16_t bf16_of_int(int v) { // small integers are exact in bf16
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static float float_of_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lane 8m + r gives the address of row r of
// matrix m; without .trans lane l receives (row l/4, cols 2(l%4), +1) of each matrix in register
// m, with .trans (rows 2(l%4), +1; col l/4). The lower 16 bits hold the first element.
static void ldmatrix_x4(const std::vector<uint16_t> &smem, const int byte_addr[32], bool trans, uint32_t regs[32][4], int *phase_conflicts) {
    for (int m = 0; m < 4; m++) {
        bool group_used[8] = {false};
        for (int r = 0; r < 8; r++) {
            int a = byte_addr[8 * m + r];
            if (a % 16) { fprintf(stderr, "ldmatrix row address %d not 16-byte aligned\n", a); exit(1); }
            int g = (a / 16) % 8;
            if (group_used[g]) (*phase_conflicts)++;
            group_used[g] = true;
        }
        for (int l = 0; l < 32; l++) {
            int row0, col0, row1, col1;
            if (!trans) row0 = row1 = l / 4, col0 = 2 * (l % 4), col1 = col0 + 1;
            else row0 = 2 * (l % 4), row1 = row0 + 1, col0 = col1 = l / 4;
            uint16_t lo = smem[byte_addr[8 * m + row0] / 2 + col0], hi = smem[byte_addr[8 * m + row1] / 2 + col1];
            regs[l][m] = lo | (uint32_t)hi << 16;
        }
    }
}

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, from the PTX ISA's fragment figures:
// g = lane / 4, t = lane % 4. A: a0,a1 (g, 2t..2t+1), a2,a3 (g+8, 2t..), a4,a5 (g, 2t+8..),
// a6,a7 (g+8, 2t+8..), two per register. B: b0,b1 (k = 2t..2t+1, n = g), b2,b3 (k = 2t+8..,
// n = g). C/D: c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..).
static void mma_16816(float d[32][4], const uint32_t a[32][4], const uint32_t b[32][2]) {
    float A[16][16], B[16][8];
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        for (int i = 0; i < 8; i++) {
            uint16_t h = (uint16_t)(a[l][i / 2] >> (16 * (i % 2)));
            int row = g + 8 * ((i / 2) % 2), col = 2 * t + (i % 2) + 8 * (i / 4);
            A[row][col] = float_of_bf16(h);
        }
        for (int i = 0; i < 4; i++) {
            uint16_t h = (uint16_t)(b[l][i / 2] >> (16 * (i % 2)));
            B[2 * t + (i % 2) + 8 * (i / 2)][g] = float_of_bf16(h);
        }
    }
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        for (int i = 0; i < 4; i++) {
            int row = g + 8 * (i / 2), col = 2 * t + (i % 2);
            double s = 0;
            for (int k = 0; k < 16; k++) s += (double)A[row][k] * B[k][col];
            d[l][i] += (float)s;
        }
    }
}

// One block of mma_gemm_kernel<BM, BN, BK, WM, WN, ...> over K = 2 BK (two slices), as the kernel
// indexes it. Returns the number of failures.
template <int BM, int BN, int BK, int WM, int WN> static int check_config() {
    constexpr int WARPS_N = BN / WN, WARPS = (BM / WM) * WARPS_N, THREADS = WARPS * 32;
    constexpr int MI = WM / 16, NJ = WN / 8, KS = BK / 16, CA = BK / 8, CB = BN / 8;
    constexpr int A_ELEMS = BM * BK, B_ELEMS = BK * BN, AV = BM * CA / THREADS, BV = BK * CB / THREADS;
    const int K = 2 * BK, N = BN;
    std::vector<int> a(BM * K), b(K * BN);
    srand(BM * 7 + BN * 3 + BK);
    for (auto &v : a) v = rand() % 9 - 4;
    for (auto &v : b) v = rand() % 9 - 4;
    std::vector<float> c((size_t)BM * BN, 0.0f);
    std::vector<std::vector<float>> acc(WARPS, std::vector<float>(MI * NJ * 32 * 4, 0.0f));
    int fails = 0, conflicts = 0;
    for (int kt = 0; kt < K / BK; kt++) {
        // the copies, as load_slice computes them: (smem element, global row, global col)
        std::vector<uint16_t> smem(A_ELEMS + B_ELEMS, 0);
        std::vector<int> written(A_ELEMS + B_ELEMS, 0);
        for (int tid = 0; tid < THREADS; tid++) {
            int sa_off = mma_swz<CA>(tid / CA, tid % CA), sb_off = A_ELEMS + mma_swz<CB>(tid / CB, tid % CB);
            for (int i = 0; i < AV; i++) {
                int row = tid / CA + i * (THREADS / CA), col = kt * BK + (tid % CA) * 8, s = sa_off + i * (THREADS / CA) * BK;
                for (int e = 0; e < 8; e++) smem[s + e] = bf16_of_int(a[row * K + col + e]), written[s + e]++;
            }
            for (int i = 0; i < BV; i++) {
                int row = kt * BK + tid / CB + i * (THREADS / CB), col = (tid % CB) * 8, s = sb_off + i * (THREADS / CB) * BN;
                for (int e = 0; e < 8; e++) smem[s + e] = bf16_of_int(b[row * N + col + e]), written[s + e]++;
            }
        }
        for (int x : written)
            if (x != 1) { fprintf(stderr, "a shared element written %d times\n", x); return 1; }
        // the warps, as load_frags and the mma loop index them
        for (int warp = 0; warp < WARPS; warp++) {
            int wm = warp / WARPS_N, wn = warp % WARPS_N;
            for (int kk = 0; kk < KS; kk++) {
                uint32_t fa[MI][32][4], fb[NJ][32][2];
                for (int i = 0; i < MI; i++) {
                    int addr[32];
                    for (int lane = 0; lane < 32; lane++) {
                        int r, ch;
                        mma_a_ldm_rc(lane, wm * WM + i * 16, kk * 16, &r, &ch);
                        addr[lane] = mma_swz<CA>(r, ch) * 2;
                    }
                    ldmatrix_x4(smem, addr, false, fa[i], &conflicts);
                }
                for (int j = 0; j < NJ; j += 2) {
                    int addr[32];
                    uint32_t r4[32][4];
                    for (int lane = 0; lane < 32; lane++) {
                        int r, ch;
                        mma_b_ldm_rc(lane, kk * 16, wn * WN + j * 8, &r, &ch);
                        addr[lane] = (A_ELEMS + mma_swz<CB>(r, ch)) * 2;
                    }
                    ldmatrix_x4(smem, addr, true, r4, &conflicts);
                    for (int lane = 0; lane < 32; lane++) {
                        fb[j][lane][0] = r4[lane][0], fb[j][lane][1] = r4[lane][1];
                        fb[j + 1][lane][0] = r4[lane][2], fb[j + 1][lane][1] = r4[lane][3];
                    }
                }
                for (int i = 0; i < MI; i++)
                    for (int j = 0; j < NJ; j++) mma_16816((float(*)[4]) & acc[warp][(i * NJ + j) * 128], fa[i], fb[j]);
            }
        }
    }
    // the epilogue
    std::vector<int> stored((size_t)BM * BN, 0);
    for (int warp = 0; warp < WARPS; warp++) {
        int wm = warp / WARPS_N, wn = warp % WARPS_N;
        for (int i = 0; i < MI; i++)
            for (int j = 0; j < NJ; j++)
                for (int lane = 0; lane < 32; lane++)
                    for (int h = 0; h < 2; h++) {
                        int r, col;
                        mma_c_rc(lane, h, &r, &col);
                        size_t p = (size_t)(wm * WM + i * 16 + r) * N + wn * WN + j * 8 + col;
                        const float *d = &acc[warp][(i * NJ + j) * 128 + lane * 4];
                        c[p] = d[2 * h], c[p + 1] = d[2 * h + 1];
                        stored[p]++, stored[p + 1]++;
                    }
    }
    for (int m = 0; m < BM; m++)
        for (int n = 0; n < BN; n++) {
            long want = 0;
            for (int k = 0; k < K; k++) want += (long)a[m * K + k] * b[k * N + n];
            if (stored[(size_t)m * N + n] != 1 || c[(size_t)m * N + n] != (float)want) {
                if (fails < 5) fprintf(stderr, "  C[%d][%d] = %g (stored %d times), want %ld\n", m, n, c[(size_t)m * N + n], stored[(size_t)m * N + n], want);
                fails++;
            }
        }
    printf("%dx%dx%d, warps of %dx%d: %s, %d ldmatrix phases with a bank conflict\n", BM, BN, BK, WM, WN, fails ? "WRONG" : "C exact", conflicts);
    return fails + conflicts;
}

int main() {
    int bad = 0;
    bad += check_config<128, 256, 32, 64, 64>();
    bad += check_config<256, 128, 32, 64, 64>();
    bad += check_config<128, 128, 32, 64, 64>();
    bad += check_config<128, 128, 32, 64, 32>();
    bad += check_config<128, 256, 64, 64, 64>();
    bad += check_config<128, 128, 64, 64, 64>(); // wmma_steps.cu's step 7 (the same mappings, WMMA fragments)
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
