/* planted_bugs.cu -- one planted bug per mode, for the simulator's checks to find (and a clean mode
 * that must stay quiet). Usage: planted_bugs MODE. Each mode is a kernel students plausibly write.
 * Build: tools/simcc -g -o planted_bugs planted_bugs.cu */
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void write_all(float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)n;
    c[i] = 1.0f; // BUG: no `if (i < n)`
}

__global__ void read_past_end(const float *a, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i + 1]; // BUG: reads a[n]
}

// A 4-byte load that starts 2 bytes before the end of a 10-byte buffer (trial 8a, a020: a wide load at
// the wrong offset, whose distance past the end was printed as a wrapped negative number).
__global__ void word_over_the_end(const unsigned char *bytes, unsigned *out) {
    out[threadIdx.x] = *(const unsigned *)(bytes + 4 * threadIdx.x + 4); // BUG: thread 1 reads bytes 8 .. 11
}

__global__ void rows_of_height(const float *in, float *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = in[y * height + x]; // BUG: rows are width long; the guard is right
}

__global__ void guarded(float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = 1.0f;
}

__global__ void early_return_before_barrier(float *c, int n) {
    __shared__ float s[64];
    int i = threadIdx.x;
    if (i >= n) return; // BUG: the rest of the block waits at the barrier below
    s[i] = (float)i;
    __syncthreads();
    c[i] = s[n - 1 - i];
}

__global__ void barrier_inside_if(float *c, int n) {
    __shared__ float s[64];
    int i = threadIdx.x;
    if (i < n) {
        s[i] = (float)i;
        __syncthreads(); // BUG: the threads with i >= n skip the barrier
        c[i] = s[n - 1 - i];
    }
}

__global__ void barrier_in_branches(float *c) {
    if (threadIdx.x < 16) {
        c[threadIdx.x] = 1;
        __syncthreads(); // BUG: two different barriers
    } else {
        c[threadIdx.x] = 2;
        __syncthreads();
    }
}

__global__ void warp_waits_for_barrier(float *c) {
    if (threadIdx.x == 0) {
        __syncthreads(); // BUG: lane 0 waits here, the other lanes wait for lane 0 in the shuffle
    } else {
        c[threadIdx.x] = __shfl_sync(0xffffffffu, 1.0f, 0);
    }
}

__global__ void shuffle_after_return(float *c, int n) {
    int i = threadIdx.x;
    if (i >= n) return; // BUG: the full mask names lanes that left
    float v = __shfl_down_sync(0xffffffffu, (float)i, 1);
    c[i] = v;
}

__global__ void lane_not_in_mask(float *c) {
    c[threadIdx.x] = __shfl_sync(0x0000ffffu, 1.0f, 0); // BUG: lanes 16..31 call with a mask without them
}

__global__ void dynamic_shared_overrun(float *c) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = 1.0f; // BUG: launched with 16 bytes of dynamic shared memory
    __syncthreads();
    c[threadIdx.x] = buf[0];
}

__global__ void asserts_positive(const float *a, int n) {
    int i = threadIdx.x;
    if (i < n) assert(a[i] > 0.0f);
}

/* Shared memory read before any thread wrote it: the simulator fills shared memory with NaN bytes. */
__global__ void reads_unwritten_shared(float *c) {
    __shared__ float s[32];
    if (threadIdx.x < 16) s[threadIdx.x] = 1.0f;
    __syncthreads();
    c[threadIdx.x] = s[threadIdx.x]; // BUG: s[16..31] was never written
}

/* Reverses each block through shared memory without the barrier: correct only if every thread's
   neighbour happens to run first, so the result depends on the schedule. */
__global__ void reverse_without_barrier(const float *in, float *out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    // BUG: missing __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t];
}

/* A static __shared__ array read one past its end: an illegal address on a GPU ("Invalid __shared__
   read" under compute-sanitizer). */
__global__ void static_shared_overrun(float *c) {
    __shared__ float s[256];
    s[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    c[threadIdx.x] = s[threadIdx.x + 1]; // BUG: thread 255 reads s[256]
}

static float *device_floats(int n, float value) {
    float *h = (float *)malloc(n * sizeof(float)), *d = nullptr;
    for (int i = 0; i < n; i++) h[i] = value + i;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    return d;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: planted_bugs MODE\n");
        return 2;
    }
    const char *m = argv[1];
    float *c = device_floats(256, 0.0f);
    float *a = device_floats(100, 1.0f);
    float h[256];
    if (!strcmp(m, "clean")) {
        guarded<<<2, 64>>>(c, 100);
        dynamic_shared_overrun<<<1, 4, 16>>>(c);
        asserts_positive<<<1, 128>>>(a, 100);
    } else if (!strcmp(m, "oob-write")) write_all<<<2, 64>>>(c + 156, 100);
    else if (!strcmp(m, "oob-read")) read_past_end<<<2, 64>>>(a, c, 100);
    else if (!strcmp(m, "oob-straddle")) {
        unsigned char *bytes;
        cudaMalloc(&bytes, 10);
        word_over_the_end<<<1, 2>>>(bytes, (unsigned *)c);
    }
    else if (!strcmp(m, "oob-row-length")) rows_of_height<<<dim3(3, 5), dim3(16, 16)>>>(device_floats(45 * 70, 1.0f), device_floats(45 * 70, 0.0f), 45, 70);
    else if (!strcmp(m, "early-return")) early_return_before_barrier<<<1, 64>>>(c, 50);
    else if (!strcmp(m, "barrier-in-if")) barrier_inside_if<<<1, 64>>>(c, 50);
    else if (!strcmp(m, "two-barriers")) barrier_in_branches<<<1, 32>>>(c);
    else if (!strcmp(m, "deadlock")) warp_waits_for_barrier<<<1, 32>>>(c);
    else if (!strcmp(m, "exited-lane")) shuffle_after_return<<<1, 32>>>(c, 20);
    else if (!strcmp(m, "bad-mask")) lane_not_in_mask<<<1, 32>>>(c);
    else if (!strcmp(m, "dyn-shared")) dynamic_shared_overrun<<<1, 32, 16>>>(c);
    else if (!strcmp(m, "static-shared")) static_shared_overrun<<<1, 256>>>(c);
    else if (!strcmp(m, "assert")) {
        cudaMemset(a + 50, 0, sizeof(float));
        asserts_positive<<<1, 128>>>(a, 100);
    } else if (!strcmp(m, "host-pointer")) {
        write_all<<<1, 32>>>(h, 32);
    } else if (!strcmp(m, "host-reads-device")) {
        printf("%f\n", c[3]);
    } else if (!strcmp(m, "unwritten-shared")) {
        reads_unwritten_shared<<<1, 32>>>(c);
        cudaMemcpy(h, c, 32 * sizeof(float), cudaMemcpyDeviceToHost);
        printf("c[20] = %f\n", h[20]);
    } else if (!strcmp(m, "missing-barrier")) {
        float *in = device_floats(128, 0.0f);
        reverse_without_barrier<<<2, 64>>>(in, c);
        cudaMemcpy(h, c, 128 * sizeof(float), cudaMemcpyDeviceToHost);
        int wrong = 0;
        for (int i = 0; i < 128; i++) wrong += h[i] != (float)((i / 64) * 64 + 63 - i % 64);
        printf("%d of 128 wrong\n", wrong);
    } else {
        fprintf(stderr, "unknown mode %s\n", m);
        return 2;
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("finished: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1; /* a device-side assert: the program goes on, and the error says so */
}
