/**
 * @file flash_bf16.h
 * @brief Lesson 19, going further: the bf16 flash attention of flash_bf16.cu as its benchmark calls it.
 */
#ifndef LESSON_19_FLASH_BF16_H
#define LESSON_19_FLASH_BF16_H

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

/** O = softmax(Q K^T / sqrt(d)) V for each of bh blocks of n rows of d bf16 (row-major), causal = 1:
    query i sees keys 0..i. Takes d = 64 only and 16-byte aligned pointers (cudaErrorInvalidValue
    otherwise); allocates nothing; does not wait. */
typedef cudaError_t (*FlashBf16Fn)(const __nv_bfloat16 *d_q, const __nv_bfloat16 *d_k, const __nv_bfloat16 *d_v, __nv_bfloat16 *d_o, int bh, int n,
                                   int d, int causal);

/** Configuration k: its name, launcher and dynamic shared memory per block; returns 0 past the last.
    flash_bf16.cu's WMMA configurations first, then flash_mma.cu's (where linked in, GPU only). */
extern "C" int flash_bf16_config(int k, const char **name, FlashBf16Fn *fn, size_t *smem_bytes);

/** flash_mma.cu's configurations alone (mma.sync; none on the simulator). */
extern "C" int flash_mma_config(int k, const char **name, FlashBf16Fn *fn, size_t *smem_bytes);

#endif
