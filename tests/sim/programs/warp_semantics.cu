/* warp_semantics.cu -- prints what warp operations and barrier reductions return in corner cases
 * (segments of `width`, sources outside the segment, partial masks, votes), one line per case, so
 * the simulator's output can be compared line by line with a GPU's. Ends with a checksum line.
 * Build: nvcc -o warp_semantics warp_semantics.cu  (or tools/simcc) */
#include <cstdio>

#define LANES 32

__global__ void shuffles(int *out) {
    int lane = threadIdx.x;
    int v = 100 + lane;
    int k = 0;
    out[k++ * LANES + lane] = __shfl_sync(0xffffffffu, v, 5);            // broadcast
    out[k++ * LANES + lane] = __shfl_sync(0xffffffffu, v, 37);           // srcLane wraps modulo 32
    out[k++ * LANES + lane] = __shfl_sync(0xffffffffu, v, 3, 8);         // lane 3 of each 8-lane segment
    out[k++ * LANES + lane] = __shfl_sync(0xffffffffu, v, 11, 8);        // 11 % 8 within the segment
    out[k++ * LANES + lane] = __shfl_up_sync(0xffffffffu, v, 1);         // lane 0 keeps its own
    out[k++ * LANES + lane] = __shfl_up_sync(0xffffffffu, v, 3, 16);     // clamp at segment start
    out[k++ * LANES + lane] = __shfl_down_sync(0xffffffffu, v, 1);       // lane 31 keeps its own
    out[k++ * LANES + lane] = __shfl_down_sync(0xffffffffu, v, 5, 8);    // clamp at segment end
    out[k++ * LANES + lane] = __shfl_xor_sync(0xffffffffu, v, 1);
    out[k++ * LANES + lane] = __shfl_xor_sync(0xffffffffu, v, 16);
    out[k++ * LANES + lane] = __shfl_xor_sync(0xffffffffu, v, 8, 8);     // partner in a later segment: own value
    out[k++ * LANES + lane] = __shfl_xor_sync(0xffffffffu, v, 4, 16);
    double d = lane * 0.5 + 1e-9;
    double dd = __shfl_down_sync(0xffffffffu, d, 2);
    out[k++ * LANES + lane] = (int)(dd * 1000);                           // 8-byte values
    out[k++ * LANES + lane] = (int)__ballot_sync(0xffffffffu, lane % 3 == 0);
    out[k++ * LANES + lane] = __any_sync(0xffffffffu, lane == 17);
    out[k++ * LANES + lane] = __all_sync(0xffffffffu, lane < 31);
    out[k++ * LANES + lane] = __all_sync(0xffffffffu, lane < 32);
    // Two halves of the warp, each with its own mask.
    if (lane < 16) out[k * LANES + lane] = __shfl_sync(0x0000ffffu, v, 15);
    else out[k * LANES + lane] = __shfl_sync(0xffff0000u, v, 16);
    k++;
    if (lane & 1) out[k * LANES + lane] = (int)__ballot_sync(0xaaaaaaaau, lane > 20);
    else out[k * LANES + lane] = (int)__ballot_sync(0x55555555u, lane < 6);
    k++;
    __syncwarp();
    out[k++ * LANES + lane] = (int)__activemask();
}

__global__ void barrier_votes(int *out) {
    int t = threadIdx.x;
    int c = __syncthreads_count(t % 7 == 0);
    int a = __syncthreads_and(t < 1000);
    int o = __syncthreads_or(t == 77);
    int z = __syncthreads_and(t != 5);
    if (t == 0) {
        out[0] = c;
        out[1] = a;
        out[2] = o;
        out[3] = z;
    }
}

int main() {
    const int rows = 20;
    int *d, h[rows * LANES];
    cudaMalloc(&d, sizeof h);
    shuffles<<<1, LANES>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned long long sum = 0;
    for (int r = 0; r < rows; r++) {
        printf("row %2d:", r);
        for (int l = 0; l < LANES; l++) {
            printf(" %d", h[r * LANES + l]);
            sum = sum * 31 + (unsigned)h[r * LANES + l];
        }
        printf("\n");
    }
    barrier_votes<<<1, 256>>>(d);
    cudaMemcpy(h, d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("syncthreads count/and/or/and: %d %d %d %d\n", h[0], h[1], h[2], h[3]);
    for (int i = 0; i < 4; i++) sum = sum * 31 + (unsigned)h[i];
    printf("checksum %llu\n", sum);
    cudaFree(d);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
