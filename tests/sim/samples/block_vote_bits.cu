// block_vote_bits.cu - block-wide votes __syncthreads_count, __syncthreads_and, __syncthreads_or,
// and the integer intrinsics pasted code leans on: __popc/__popcll, __clz/__clzll, __ffs/__ffsll,
// __brev, __byte_perm, __funnelshift_l/_r, __umulhi/__umul64hi, __mul24, __sad, __usad, __hadd.
// Build and run: nvcc -o block_vote_bits block_vote_bits.cu && ./block_vote_bits
#include <vector>
#include "sample_helpers.h"

#define THREADS 192  // six warps

struct BlockVotes { int count, all, any; };

__global__ void blockVotes(const int* v, int threshold, BlockVotes* out)
{
    int x = v[blockIdx.x * THREADS + threadIdx.x];
    int count = __syncthreads_count(x > threshold);
    int all = __syncthreads_and(x > threshold);
    int any = __syncthreads_or(x > threshold);
    if (threadIdx.x == 0) {
        BlockVotes b = {count, all, any};
        out[blockIdx.x] = b;
    }
}

__global__ void bitOps(const unsigned* a, const unsigned* b, const unsigned long long* w,
                       unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned long long z = w[i];
    unsigned* o = out + 16 * i;
    o[0] = __popc(x);
    o[1] = __popcll(z);
    o[2] = __clz((int)x);
    o[3] = __clzll((long long)z);
    o[4] = __ffs((int)x);
    o[5] = __ffsll((long long)z);
    o[6] = __brev(x);
    o[7] = __byte_perm(x, y, 0x7351);
    o[8] = __funnelshift_l(x, y, i % 40);  // shift amount taken mod 32
    o[9] = __funnelshift_r(x, y, i % 40);
    o[10] = __umulhi(x, y);
    o[11] = (unsigned)(__umul64hi(z, (unsigned long long)x * y) & 0xffffffffu);
    o[12] = (unsigned)__mul24((int)(x & 0x7fffff), (int)(y & 0x3fffff));  // low 32 bits
    o[13] = __sad((int)x, (int)y, 7u);
    o[14] = __usad(x, y, 11u);
    o[15] = (unsigned)__hadd((int)x, (int)y);
}

static unsigned popc(unsigned long long v) { unsigned c = 0; while (v) { c += v & 1; v >>= 1; } return c; }
static unsigned clz64(unsigned long long v, int bits) { unsigned c = 0; for (int b = bits - 1; b >= 0 && !((v >> b) & 1); --b) ++c; return c; }
static unsigned ffs64(unsigned long long v) { for (int b = 0; b < 64; ++b) if ((v >> b) & 1) return b + 1; return 0; }

int main()
{
    pickDevice(3);
    bool ok = true;
    Lcg rng(271828);

    // 1. block votes: block 0 all above, block 1 none, the others mixed
    const int blocks = 8, threshold = 500;
    std::vector<int> v(blocks * THREADS);
    for (int i = 0; i < blocks * THREADS; ++i) {
        int blk = i / THREADS;
        v[i] = blk == 0 ? rng.nextInt(501, 1000) : blk == 1 ? rng.nextInt(0, 500) : rng.nextInt(0, 1000);
    }
    int* dV;
    BlockVotes* dVotes;
    checkCuda(cudaMalloc(&dV, v.size() * sizeof(int)));
    checkCuda(cudaMalloc(&dVotes, blocks * sizeof(BlockVotes)));
    checkCuda(cudaMemcpy(dV, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
    blockVotes<<<blocks, THREADS>>>(dV, threshold, dVotes);
    checkLastKernel();
    std::vector<BlockVotes> votes(blocks);
    checkCuda(cudaMemcpy(votes.data(), dVotes, blocks * sizeof(BlockVotes), cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < blocks; ++blk) {
        int c = 0;
        for (int t = 0; t < THREADS; ++t) c += v[blk * THREADS + t] > threshold;
        BlockVotes want = {c, c == THREADS, c > 0};
        if (votes[blk].count != want.count || !votes[blk].all != !want.all || !votes[blk].any != !want.any) {
            printf("  block %d: count %d all %d any %d, expected %d %d %d\n", blk, votes[blk].count,
                   votes[blk].all, votes[blk].any, want.count, want.all, want.any);
            ok = false;
        }
    }

    // 2. integer intrinsics against host formulas
    const int n = 1000;
    std::vector<unsigned> a(n), b(n), out(16 * n), ref(16 * n);
    std::vector<unsigned long long> w(n);
    for (int i = 0; i < n; ++i) {
        a[i] = (rng.next() << 8) ^ rng.next();
        b[i] = (rng.next() << 8) ^ rng.next();
        w[i] = ((unsigned long long)rng.next() << 40) ^ ((unsigned long long)rng.next() << 16) ^ rng.next();
        if (i % 50 == 0) a[i] = 0;  // zero inputs: __clz = 32, __ffs = 0
        if (i % 70 == 0) w[i] = 0;
    }
    for (int i = 0; i < n; ++i) {
        unsigned x = a[i], y = b[i];
        unsigned long long z = w[i];
        unsigned* r = &ref[16 * i];
        r[0] = popc(x);
        r[1] = popc(z);
        r[2] = clz64(x, 32);
        r[3] = clz64(z, 64);
        r[4] = ffs64(x);
        r[5] = ffs64(z);
        unsigned rev = 0;
        for (int k = 0; k < 32; ++k) rev |= ((x >> k) & 1u) << (31 - k);
        r[6] = rev;
        unsigned long long bytes = ((unsigned long long)y << 32) | x;  // selector nibbles 1,5,3,7
        const int sel[4] = {1, 5, 3, 7};
        r[7] = 0;
        for (int k = 0; k < 4; ++k) r[7] |= (unsigned)((bytes >> (8 * sel[k])) & 0xff) << (8 * k);
        unsigned sh = (i % 40) & 31;
        unsigned long long hi_lo = ((unsigned long long)y << 32) | x;
        r[8] = (unsigned)((hi_lo << sh) >> 32);
        r[9] = (unsigned)(hi_lo >> sh);
        r[10] = (unsigned)(((unsigned long long)x * y) >> 32);
        unsigned __int128 prod = (unsigned __int128)z * ((unsigned long long)x * y);
        r[11] = (unsigned)((unsigned long long)(prod >> 64) & 0xffffffffu);
        r[12] = (unsigned)((long long)(int)(x & 0x7fffff) * (long long)(int)(y & 0x3fffff));
        long long d = (long long)(int)x - (long long)(int)y;
        r[13] = (unsigned)((d < 0 ? -d : d) + 7);
        r[14] = (x > y ? x - y : y - x) + 11u;
        r[15] = (unsigned)(int)(((long long)(int)x + (long long)(int)y) >> 1);
    }
    unsigned *dA, *dB, *dOut;
    unsigned long long* dW;
    checkCuda(cudaMalloc(&dA, n * sizeof(unsigned)));
    checkCuda(cudaMalloc(&dB, n * sizeof(unsigned)));
    checkCuda(cudaMalloc(&dW, n * sizeof(unsigned long long)));
    checkCuda(cudaMalloc(&dOut, 16 * n * sizeof(unsigned)));
    checkCuda(cudaMemcpy(dA, a.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dB, b.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dW, w.data(), n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    bitOps<<<(n + 127) / 128, 128>>>(dA, dB, dW, dOut, n);
    checkLastKernel();
    checkCuda(cudaMemcpy(out.data(), dOut, 16 * n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const char* names[16] = {"__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev",
                             "__byte_perm", "__funnelshift_l", "__funnelshift_r", "__umulhi",
                             "__umul64hi", "__mul24", "__sad", "__usad", "__hadd"};
    for (int f = 0; f < 16; ++f) {
        int bad = 0;
        for (int i = 0; i < n; ++i)
            if (out[16 * i + f] != ref[16 * i + f]) {
                if (bad < 3)
                    printf("  %s(%#x, %#x, %#llx) [i = %d]: got %#x, expected %#x\n", names[f], a[i],
                           b[i], w[i], i, out[16 * i + f], ref[16 * i + f]);
                ++bad;
            }
        ok = ok && bad == 0;
    }
    printf("block votes over %d blocks and 16 integer intrinsics over %d inputs checked\n", blocks, n);
    for (void* p : {(void*)dV, (void*)dVotes, (void*)dA, (void*)dB, (void*)dW, (void*)dOut})
        checkCuda(cudaFree(p));
    return finish(ok);
}
