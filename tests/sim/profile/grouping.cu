/* grouping.cu -- how the profiler forms warp-level requests (a companion of yardstick.cu; these
 * figures follow from the hardware's definitions, they were not measured): the k-th execution of
 * an instruction by the lanes of a warp between two synchronisation points is one request; lanes
 * that skip it do not take part; sectors are distinct 32-byte segments; several lanes reading one
 * shared word is a broadcast. One block of 64 threads (2 warps) per kernel. */
#include <cstdio>

/* 4 executions of one load per lane: 4 requests per warp, each 4 sectors -> 8 requests, 32 sectors */
__global__ void loop4(const float *a, float *b) {
    float s = 0;
    for (int j = 0; j < 4; j++) s += a[j * 64 + threadIdx.x];
    b[threadIdx.x] = s;
}

/* the same load in a loop with a barrier inside: still one request per warp and iteration */
__global__ void loop_barrier(const float *a, float *b) {
    float s = 0;
    for (int j = 0; j < 4; j++) {
        s += a[j * 64 + threadIdx.x];
        __syncthreads();
    }
    b[threadIdx.x] = s;
}

/* odd lanes only: 2 requests, each 4 sectors (the 16 lanes' floats still span 128 bytes) */
__global__ void odd_lanes(const float *a, float *b) {
    if (threadIdx.x & 1) b[threadIdx.x] = a[threadIdx.x];
}

/* every lane reads a[0]: 2 requests, 1 sector each; doubles: 2 requests of 8 sectors */
__global__ void broadcast_and_double(const float *a, const double *d, double *e) {
    e[threadIdx.x] = a[0] + d[threadIdx.x];
}

/* every lane reads s[blockIdx.x] (broadcast: no conflict); then s[2 * lane] (2-way: 1 conflict per
   request). (A constant index such as s[0] is not counted: the compiler knows it is in bounds and
   leaves it unchecked, so the profiler never sees it.) */
__global__ void shared_broadcast_and_two_way(float *b) {
    __shared__ float s[128];
    s[threadIdx.x] = threadIdx.x;
    s[threadIdx.x + 64] = 0;
    __syncthreads();
    float x = s[blockIdx.x];
    float y = s[2 * (threadIdx.x & 31)];
    b[threadIdx.x] = x + y;
}

/* extern __shared__ counts too: one warp writing a column of a 32x32 tile (32-way: 31 conflicts),
   then reading a row (none) */
__global__ void dynamic_shared_column(float *b) {
    extern __shared__ float tile[];
    tile[threadIdx.x * 32] = threadIdx.x;
    __syncwarp();
    b[threadIdx.x] = tile[threadIdx.x];
}

/* a warp operation of half the lanes is no synchronisation point of the warp: the load after it is
   still one request per warp (2 requests, 8 sectors) */
__global__ void half_warp_shuffle(const float *a, float *b) {
    float x = threadIdx.x;
    if ((threadIdx.x & 31) < 16) x += __shfl_down_sync(0xffffu, x, 1);
    b[threadIdx.x] = x + a[threadIdx.x];
}

/* read-modify-write: the compiler checks a[i] once, as a load, then loads and stores it; both count
   (2 load and 2 store requests of 4 sectors each) */
__global__ void read_modify_write(float *a) { a[threadIdx.x] += 1.0f; }

/* the same in shared memory, as in a reduction's step: s[t] += s[t + 32] for t < 32. Stores: s[t] by
   both warps, then s[t] by one (3 requests); loads: s[t + 32] and s[t] by one warp, s[t & 31] by
   both (4 requests); no conflicts */
__global__ void shared_read_modify_write(float *b) {
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x < 32) s[threadIdx.x] += s[threadIdx.x + 32];
    __syncthreads();
    b[threadIdx.x] = s[threadIdx.x & 31];
}

int main() {
    float *a, *b;
    double *d, *e;
    cudaMalloc(&a, 256 * sizeof(float));
    cudaMalloc(&b, 64 * sizeof(float));
    cudaMalloc(&d, 64 * sizeof(double));
    cudaMalloc(&e, 64 * sizeof(double));
    cudaMemset(a, 0, 256 * sizeof(float));
    cudaMemset(d, 0, 64 * sizeof(double));
    loop4<<<1, 64>>>(a, b);
    loop_barrier<<<1, 64>>>(a, b);
    odd_lanes<<<1, 64>>>(a, b);
    broadcast_and_double<<<1, 64>>>(a, d, e);
    shared_broadcast_and_two_way<<<1, 64>>>(b);
    dynamic_shared_column<<<1, 32, 32 * 32 * sizeof(float)>>>(b);
    half_warp_shuffle<<<1, 64>>>(a, b);
    read_modify_write<<<1, 64>>>(a);
    shared_read_modify_write<<<1, 64>>>(b);
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s\n", err == cudaSuccess ? "PASS" : cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
