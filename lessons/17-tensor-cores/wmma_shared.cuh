/**
 * @file wmma_shared.cuh
 * @brief Given, for 17.2: wmma_load_shared(), wmma::load_matrix_sync for bf16 fragments that come
 *        from shared memory, compiled as a shared-memory load.
 *
 * Why it exists (nvcc 13.0, sm_90, read from the SASS): load_matrix_sync takes a generic pointer.
 * For __half fragments the compiler sees that the pointer is into shared memory and emits
 * `wmma.load ... .shared.f16`, which becomes one LDSM (ldmatrix) per fragment. For __nv_bfloat16
 * fragments it does not: the load stays generic, four 32-bit LD.E per fragment, and a row_major
 * matrix_b fragment is transposed afterwards with four MOVM. A GEMM fed that way stops near 0.33 x
 * cuBLAS on an H200 however it is tiled (docs/results/steps-h200.md).
 *
 * The fix is to name the state space: the same PTX instruction load_matrix_sync compiles to,
 * `wmma.load.{a,b}.sync.aligned.row.m16n16k16.shared.bf16`, with the shared-memory address. The
 * PTX ISA defines the fragment it produces exactly as the generic form's, and it writes the same
 * four 32-bit registers that nvcuda::wmma's fragment holds (the CUDA header passes the fragment to
 * its builtin as an int array the same way), so mma_sync and store_matrix_sync take it as usual.
 * ptxas turns it into LDSM.16.M88.4 for A and LDSM.16.MT88.4 (transposing on the way) for B.
 *
 * On the simulator, which runs no PTX, it is load_matrix_sync itself.
 *
 * The pointer must point into shared memory, 32-byte aligned, and ldm be a multiple of 8, as for
 * load_matrix_sync. All 32 lanes of the warp call it together.
 */
#ifndef LESSON_17_WMMA_SHARED_CUH
#define LESSON_17_WMMA_SHARED_CUH

#include <mma.h>
#include <cuda_bf16.h>

#ifdef SIMCUDA
__device__ inline void wmma_load_shared(nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> &a,
                                        const __nv_bfloat16 *smem, unsigned ldm) {
    nvcuda::wmma::load_matrix_sync(a, smem, ldm);
}
__device__ inline void wmma_load_shared(nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> &b,
                                        const __nv_bfloat16 *smem, unsigned ldm) {
    nvcuda::wmma::load_matrix_sync(b, smem, ldm);
}
#else
/** A row-major 16 x 16 bf16 tile of A from shared memory (leading dimension ldm elements). */
__device__ __forceinline__ void wmma_load_shared(nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> &a,
                                                 const __nv_bfloat16 *smem, unsigned ldm) {
    unsigned *r = reinterpret_cast<unsigned *>(a.x);
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr), "r"(ldm)
                 : "memory");
}
/** A row-major 16 x 16 bf16 tile of B from shared memory (leading dimension ldm elements). */
__device__ __forceinline__ void wmma_load_shared(nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> &b,
                                                 const __nv_bfloat16 *smem, unsigned ldm) {
    unsigned *r = reinterpret_cast<unsigned *>(b.x);
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("wmma.load.b.sync.aligned.row.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr), "r"(ldm)
                 : "memory");
}
#endif

#endif
