/* mma_layout_check.cpp -- a CPU check of mma_sync_gemm.cu's index arithmetic (mma_layout.h), for
 * want of a GPU: one block's slices are laid out in a byte-for-byte model of its shared memory by
 * the kernel's copy mapping, read back by models of ldmatrix (.x4, .trans) at the kernel's lane
 * addresses, multiplied by a model of mma.sync m16n8k16 written from the PTX ISA's fragment tables
 * (both models in mma_emulate.h, not from mma_layout.h), and stored by the kernel's epilogue mapping; the result must equal the
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

#include "mma_emulate.h"
#include "mma_layout.h"

// mma_emulate.h's ldmatrix.x4 at element addresses; a misaligned row stops the check, and the
// phases that hit a 16-byte bank group twice or more add their extra rows to *phase_conflicts.
static void ldmatrix_x4(const std::vector<uint16_t> &smem, const int (&addr)[32], bool trans, uint32_t (&regs)[32][4], int *phase_conflicts) {
    for (int a : addr)
        if (a % 8) { fprintf(stderr, "ldmatrix row address %d not 16-byte aligned\n", 2 * a); exit(1); }
    int groups[4];
    mma_emu_ldmatrix_x4(smem, addr, trans, regs, groups);
    for (int g : groups) *phase_conflicts += 8 - __builtin_popcount(g);
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
                for (int e = 0; e < 8; e++) smem[s + e] = mma_emu_bf16((float)a[row * K + col + e]), written[s + e]++;
            }
            for (int i = 0; i < BV; i++) {
                int row = kt * BK + tid / CB + i * (THREADS / CB), col = (tid % CB) * 8, s = sb_off + i * (THREADS / CB) * BN;
                for (int e = 0; e < 8; e++) smem[s + e] = mma_emu_bf16((float)b[row * N + col + e]), written[s + e]++;
            }
        }
        for (int x : written)
            if (x != 1) { fprintf(stderr, "a shared element written %d times\n", x); return 1; }
        // the warps, as load_frags and the mma loop index them
        for (int warp = 0; warp < WARPS; warp++) {
            int wm = warp / WARPS_N, wn = warp % WARPS_N;
            for (int kk = 0; kk < KS; kk++) {
                uint32_t fa[MI][32][4], fb[NJ / 2][32][4]; // fb[j / 2]: fragments j (registers 0, 1) and j + 1 (2, 3)
                for (int i = 0; i < MI; i++) {
                    int addr[32];
                    for (int lane = 0; lane < 32; lane++) {
                        int r, ch;
                        mma_a_ldm_rc(lane, wm * WM + i * 16, kk * 16, &r, &ch);
                        addr[lane] = mma_swz<CA>(r, ch);
                    }
                    ldmatrix_x4(smem, addr, false, fa[i], &conflicts);
                }
                for (int j = 0; j < NJ; j += 2) {
                    int addr[32];
                    for (int lane = 0; lane < 32; lane++) {
                        int r, ch;
                        mma_b_ldm_rc(lane, kk * 16, wn * WN + j * 8, &r, &ch);
                        addr[lane] = A_ELEMS + mma_swz<CB>(r, ch);
                    }
                    ldmatrix_x4(smem, addr, true, fb[j / 2], &conflicts);
                }
                for (int i = 0; i < MI; i++)
                    for (int j = 0; j < NJ; j++) mma_emu_m16n8k16(*(float(*)[32][4]) & acc[warp][(i * NJ + j) * 128], fa[i], fb[j / 2], j % 2);
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
