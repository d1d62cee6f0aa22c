/**
 * @file mma_ptx.h
 * @brief The PTX instructions of the going-further kernels, one per function: shared-memory
 *        addresses, 16-byte cp.async with its groups, ldmatrix .x4 (plain and .trans) and the bf16
 *        mma.sync m16n8k16. Used by mma_sync_gemm.cu and wmma_steps.cu here and by lesson 19's
 *        flash_mma.cu, so that each instruction is written once. nvcc only (GPU builds).
 */
#ifndef MMA_PTX_H
#define MMA_PTX_H

#include <stdint.h>

/* The 32-bit shared-memory address the PTX instructions below take. */
__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* 16 bytes global -> shared, bypassing L1 (.cg: a tile is used once per block, from shared memory). */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)) : "memory");
}
/* The same, reading src_bytes of the 16 and writing zeros for the rest: 0 writes 16 zeros and reads
   nothing (rows past the end of a sequence). */
__device__ __forceinline__ void cp_async16_zfill(uint32_t dst, const void *src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* Wait until at most N of this thread's groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* Four 8 x 8 matrices of 16-bit elements from shared memory, lane l giving the address of row
   l & 7 of matrix l >> 3. "memory": the loads must stay after the __syncthreads that makes the
   copies visible. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}
/* The same, each matrix transposed on the way (B fragments from a row-major B). Registers one by
   one, since a kernel may send them to two fragments. */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t &r0, uint32_t &r1, uint32_t &r2, uint32_t &r3, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr)
                 : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) { ldmatrix_x4_trans(r[0], r[1], r[2], r[3], addr); }

/* d = a b + d for one 16 x 8 x 16 piece, bf16 in, fp32 accumulate; registers only, so the compiler
   may schedule it freely. */
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    mma_bf16_16816(d, a, b[0], b[1]);
}

#endif
