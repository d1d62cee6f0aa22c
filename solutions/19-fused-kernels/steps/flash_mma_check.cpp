/**
 * @file flash_mma_check.cpp
 * @brief CPU check of flash_mma.cu's fragment arithmetic, no GPU needed: emulates ldmatrix (with and
 *        without .trans) and mma.sync m16n8k16 lane by lane as the PTX ISA describes them (lesson
 *        17's mma_emulate.h, written from the ISA's fragment tables, independently of
 *        flash_mma_layout.h), runs the
 *        kernel's steps for every warp of every block with flash_mma_layout.h's indices (swizzled
 *        copies, Q/K/V ldmatrix addresses, masking by accumulator row and key, the quad's
 *        shuffles, P's A fragments packed from S's accumulators, O's stores), and compares O with
 *        attention in double. Also checks that each ldmatrix phase (8 lanes' 16-byte rows) hits 8
 *        different 16-byte bank groups.
 *
 *   g++ -O2 -std=c++17 -o flash_mma_check solutions/19-fused-kernels/steps/flash_mma_check.cpp && ./flash_mma_check
 *
 * Not emulated: the multi-stage buffering and barriers (one stage here), timing; exp2 is the C
 * library's, not the GPU's ex2.approx.ftz.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "../../17-tensor-cores/steps/mma_emulate.h"
#include "flash_mma_layout.h"

static const int D = 64, BK = 64, C = 8;

static uint16_t f2bf(float f) { return mma_emu_bf16(f); }
static float bf2f(uint16_t h) { return mma_emu_float(h); }

static int failures = 0;

// mma_emulate.h's ldmatrix.x4 at the lane addresses that rc (a (row, chunk) function of
// flash_mma_layout.h) gives for the 16 x 16 piece at (r0, c0) of a swizzled tile; an address out
// of the tile or misaligned, and a phase whose 8 rows share bank groups, are failures.
static void ldmatrix_x4(const std::vector<uint16_t> &tile, void (*rc)(int, int, int, int *, int *), int r0, int c0, bool trans,
                        uint32_t (&out)[32][4]) {
    int addr[32], groups[4];
    for (int l = 0; l < 32; l++) {
        int r, c;
        rc(l, r0, c0, &r, &c);
        addr[l] = mma_swz<C>(r, c);
        if (addr[l] < 0 || addr[l] + 8 > (int)tile.size() || addr[l] % 8)
            printf("ldmatrix: lane %d's address %d is out of the tile or not 16-byte aligned  WRONG\n", l, addr[l]), failures++;
    }
    mma_emu_ldmatrix_x4(tile, addr, trans, out, groups);
    for (int i = 0; i < 4; i++)
        if (groups[i] != 0xFF) printf("ldmatrix: matrix %d's 8 rows share bank groups (mask %02x)  WRONG\n", i, groups[i]), failures++;
}

// d0 += a B0 and d1 += a B1, B0 and B1 the two n8 fragments of one ldmatrix.x4 (as ldmatrix_x4's
// arguments) read from tile: for S = Q K^T a 16-key piece of K, for O += P V a 16-column piece of V.
static void mma_two(float (&d0)[32][4], float (&d1)[32][4], const uint32_t (&a)[32][4], const std::vector<uint16_t> &tile,
                    void (*rc)(int, int, int, int *, int *), int r0, int c0, bool trans) {
    uint32_t b[32][4];
    ldmatrix_x4(tile, rc, r0, c0, trans, b);
    mma_emu_m16n8k16(d0, a, b, 0);
    mma_emu_m16n8k16(d1, a, b, 1);
}

// __shfl_xor_sync over a warp's values
static void shfl_xor_max(float (&v)[32], int mask) {
    float w[32];
    for (int l = 0; l < 32; l++) w[l] = std::max(v[l], v[l ^ mask]);
    memcpy(v, w, sizeof w);
}
static void shfl_xor_add(float (&v)[32], int mask) {
    float w[32];
    for (int l = 0; l < 32; l++) w[l] = v[l] + v[l ^ mask];
    memcpy(v, w, sizeof w);
}

// flash_mma.cu's copy: rows [first, first + rows) into a swizzled tile, zeros at or past n
static void copy_rows(std::vector<uint16_t> &tile, const std::vector<uint16_t> &src, int first, int rows, int n) {
    for (int r = 0; r < rows; r++)
        for (int ch = 0; ch < C; ch++)
            for (int e = 0; e < 8; e++) tile[mma_swz<C>(r, ch) + e] = first + r < n ? src[(size_t)(first + r) * D + ch * 8 + e] : 0;
}

// One (batch, head) through flash_mma_kernel<WARPS, MW>'s steps, warp by warp, and in a warp one
// 16-row group at a time (the groups share only the K and V fragments, the same for each).
static void flash_mma_emulate(int WARPS, int MW, const std::vector<uint16_t> &Q, const std::vector<uint16_t> &K, const std::vector<uint16_t> &V,
                              std::vector<float> &O, int n, int causal) {
    const int BQ = WARPS * 16 * MW;
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    std::vector<uint16_t> Qs(BQ * D), Ks(BK * D), Vs(BK * D);
    for (int qt = 0; qt < (n + BQ - 1) / BQ; qt++) {
        const int q0 = qt * BQ, keys = causal ? std::min(n, q0 + BQ) : n, tiles = (keys + BK - 1) / BK;
        copy_rows(Qs, Q, q0, BQ, n);
        for (int warp = 0; warp < WARPS; warp++)
          for (int mi = 0; mi < MW; mi++) {
            const int w0 = q0 + warp * 16 * MW, g0 = w0 + mi * 16; // the warp's first query, the group's
            uint32_t qf[4][32][4];
            for (int kk = 0; kk < 4; kk++) ldmatrix_x4(Qs, mma_a_ldm_rc, warp * 16 * MW + mi * 16, kk * 16, false, qf[kk]);
            float o[8][32][4] = {}, m[2][32], l[2][32] = {};
            for (int h = 0; h < 2; h++)
                for (int ln = 0; ln < 32; ln++) m[h][ln] = -INFINITY;
            for (int it = 0; it < tiles; it++) {
                const int k0 = it * BK;
                copy_rows(Ks, K, k0, BK, n);
                copy_rows(Vs, V, k0, BK, n);
                if (causal && k0 > w0 + 16 * MW - 1) continue;
                float s[8][32][4] = {};
                for (int kk = 0; kk < 4; kk++)
                    for (int jp = 0; jp < 4; jp++) mma_two(s[2 * jp], s[2 * jp + 1], qf[kk], Ks, flash_k_ldm_rc, jp * 16, kk * 16, false);
                if (k0 + BK > n || (causal && k0 + BK - 1 > w0))
                    for (int j = 0; j < 8; j++)
                        for (int e = 0; e < 4; e++)
                            for (int ln = 0; ln < 32; ln++) {
                                int r, kj;
                                flash_s_rk(ln, j, e, &r, &kj);
                                const int last = causal ? std::min(n - 1, g0 + r) : n - 1;
                                if (k0 + kj > last) s[j][ln][e] = -INFINITY;
                            }
                float corr[2][32];
                for (int h = 0; h < 2; h++) {
                    float mx[32];
                    for (int ln = 0; ln < 32; ln++) {
                        mx[ln] = -INFINITY;
                        for (int j = 0; j < 8; j++) mx[ln] = std::max(mx[ln], std::max(s[j][ln][2 * h], s[j][ln][2 * h + 1]));
                    }
                    shfl_xor_max(mx, 1), shfl_xor_max(mx, 2);
                    for (int ln = 0; ln < 32; ln++) {
                        const float m_new = std::max(m[h][ln], mx[ln] * scale_log2);
                        const float ms = m_new == -INFINITY ? 0.0f : m_new;
                        corr[h][ln] = exp2f(m[h][ln] - ms);
                        m[h][ln] = m_new;
                        float sum = 0;
                        for (int j = 0; j < 8; j++)
                            for (int e = 2 * h; e < 2 * h + 2; e++) s[j][ln][e] = exp2f(fmaf(s[j][ln][e], scale_log2, -ms)), sum += s[j][ln][e];
                        l[h][ln] = l[h][ln] * corr[h][ln] + sum;
                    }
                }
                for (int j = 0; j < 8; j++)
                    for (int ln = 0; ln < 32; ln++)
                        for (int e = 0; e < 4; e++) o[j][ln][e] *= corr[e >> 1][ln];
                for (int kk = 0; kk < 4; kk++) {
                    uint32_t pa[32][4];
                    for (int ln = 0; ln < 32; ln++)
                        for (int i = 0; i < 4; i++) {
                            int nt, h;
                            flash_p_src(kk, i, &nt, &h);
                            pa[ln][i] = mma_emu_pack(f2bf(s[nt][ln][2 * h]), f2bf(s[nt][ln][2 * h + 1]));
                        }
                    for (int dp = 0; dp < 4; dp++) mma_two(o[2 * dp], o[2 * dp + 1], pa, Vs, mma_b_ldm_rc, kk * 16, dp * 16, true);
                }
            }
            for (int h = 0; h < 2; h++) {
                float lt[32];
                memcpy(lt, l[h], sizeof lt);
                shfl_xor_add(lt, 1), shfl_xor_add(lt, 2);
                for (int ln = 0; ln < 32; ln++) {
                    const int row = g0 + ln / 4 + 8 * h, t = ln % 4;
                    if (row < n)
                        for (int j = 0; j < 8; j++)
                            for (int e = 0; e < 2; e++) O[(size_t)row * D + 8 * j + 2 * t + e] = bf2f(f2bf(o[j][ln][2 * h + e] / lt[ln]));
                }
            }
        }
    }
}

int main() {
    const int sizes[] = {17, 64, 200, 256, 300, 129};
    const int shapes[][2] = {{4, 1}, {8, 1}, {4, 2}}; // warps, 16-row groups a warp: as the configurations
    for (auto &sh : shapes)
        for (int n : sizes)
            for (int causal = 0; causal < 2; causal++) {
                std::vector<uint16_t> Q((size_t)n * D), K(Q.size()), V(Q.size());
                unsigned long long seed = 1234 + n;
                auto fill = [&](std::vector<uint16_t> &h, float lo, float hi) {
                    for (auto &x : h) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        x = f2bf(lo + (hi - lo) * (float)(seed >> 40) / (float)(1 << 24));
                    }
                };
                fill(Q, -2, 2), fill(K, -2, 2), fill(V, -1, 1);
                std::vector<float> O(Q.size(), NAN);
                flash_mma_emulate(sh[0], sh[1], Q, K, V, O, n, causal);
                double worst = 0;
                for (int i = 0; i < n; i++) {
                    const int last = causal ? i : n - 1;
                    std::vector<double> p(last + 1);
                    double mx = -INFINITY, sum = 0;
                    for (int j = 0; j <= last; j++) {
                        double acc = 0;
                        for (int c = 0; c < D; c++) acc += (double)bf2f(Q[i * D + c]) * bf2f(K[j * D + c]);
                        p[j] = acc / sqrt((double)D), mx = std::max(mx, p[j]);
                    }
                    for (int j = 0; j <= last; j++) p[j] = exp(p[j] - mx), sum += p[j];
                    for (int c = 0; c < D; c++) {
                        double acc = 0;
                        for (int j = 0; j <= last; j++) acc += p[j] * bf2f(V[j * D + c]);
                        const double err = fabs(acc / sum - O[i * D + c]);
                        if (!(err <= worst)) worst = err;
                    }
                }
                const bool ok = worst <= 1.0 / 64;
                failures += !ok;
                printf("emulated flash_mma, %d warps x %d rows, n %3d, %-10s max |error| %.3g  %s\n", sh[0], 16 * sh[1], n, causal ? "causal" : "non-causal", worst, ok ? "ok" : "WRONG");
            }
    printf("flash_mma_check: %s\n", failures ? "FAILED" : "all ok");
    return failures != 0;
}
