/* libraries.cu -- Thrust and CUB as ordinary CUDA programs use them, with the values of the
 * libraries' documented examples. Usage: libraries cub|thrust; prints "MODE: PASS" or FAIL lines.
 * Build: tools/simcc -o libraries libraries.cu (or nvcc -o libraries libraries.cu on a GPU). */
#include <cub/cub.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_malloc.h>
#include <thrust/device_free.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include "expect.h"
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>


template <class T>
static T *to_device(const std::vector<T> &h) {
    T *d = nullptr;
    cudaMalloc(&d, h.size() * sizeof(T) + 1);
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}
template <class T>
static std::vector<T> to_host(const T *d, size_t n) {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}

/* ---- CUB: device-wide algorithms with the two-call temporary-storage protocol ---- */
struct LessThan7 {
    __host__ __device__ bool operator()(int x) const { return x < 7; }
};

__global__ void block_and_warp(int *out) {
    typedef cub::BlockReduce<int, 128> BlockReduce;
    typedef cub::BlockScan<int, 128> BlockScan;
    typedef cub::WarpReduce<int> WarpReduce;
    typedef cub::WarpReduce<int, 16> HalfWarpReduce;
    __shared__ typename BlockReduce::TempStorage reduce_storage;
    __shared__ typename BlockScan::TempStorage scan_storage;
    __shared__ typename WarpReduce::TempStorage warp_storage[4];
    __shared__ typename HalfWarpReduce::TempStorage half_storage[4];
    int t = threadIdx.x;
    int sum = BlockReduce(reduce_storage).Sum(t);
    if (t == 0) out[0] = sum; /* valid in thread 0 */
    int excl, aggregate;
    BlockScan(scan_storage).ExclusiveSum(1, excl, aggregate);
    out[1 + t] = excl;
    if (t == 0) out[129] = aggregate;
    __syncthreads();
    int items[4] = {1, 1, 1, 1}, scanned[4];
    BlockScan(scan_storage).ExclusiveSum(items, scanned);
    out[130 + t] = scanned[3];
    int warp_sum = WarpReduce(warp_storage[t / 32]).Sum(t % 32);
    if (t % 32 == 0) out[260 + t / 32] = warp_sum;
    int half_sum = HalfWarpReduce(half_storage[t / 32]).Sum(t % 16);
    if (t % 16 == 0) out[270 + t / 16] = half_sum;
}

static void mode_cub() {
    std::vector<int> keys = {8, 6, 7, 5, 3, 0, 9}, vals = {0, 1, 2, 3, 4, 5, 6};
    int n = (int)keys.size();
    int *d_in = to_device(keys), *d_vals = to_device(vals), *d_out, *d_vals_out, *d_num;
    cudaMalloc(&d_out, 16 * sizeof(int));
    cudaMalloc(&d_vals_out, 16 * sizeof(int));
    cudaMalloc(&d_num, sizeof(int));
    void *temp = nullptr;
    size_t temp_bytes = 0;
    /* DeviceReduce::Sum: first call sizes the temporary storage */
    EXPECT(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n) == cudaSuccess, "size query");
    EXPECT(temp_bytes > 0, "temp_storage_bytes %zu", temp_bytes);
    cudaMalloc(&temp, temp_bytes);
    cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
    EXPECT(to_host(d_out, 1)[0] == 38, "DeviceReduce::Sum gave %d", to_host(d_out, 1)[0]);
    cub::DeviceReduce::Max(temp, temp_bytes, d_in, d_out, n);
    EXPECT(to_host(d_out, 1)[0] == 9, "DeviceReduce::Max gave %d", to_host(d_out, 1)[0]);
    cub::DeviceReduce::Min(temp, temp_bytes, d_in, d_out, n);
    EXPECT(to_host(d_out, 1)[0] == 0, "DeviceReduce::Min gave %d", to_host(d_out, 1)[0]);
    /* DeviceScan */
    cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n);
    std::vector<int> ex = to_host(d_out, n), want_ex = {0, 8, 14, 21, 26, 29, 29};
    EXPECT(ex == want_ex, "ExclusiveSum gave %d %d %d ... %d", ex[0], ex[1], ex[2], ex[6]);
    cub::DeviceScan::InclusiveSum(temp, temp_bytes, d_in, d_out, n);
    EXPECT(to_host(d_out, n)[6] == 38, "InclusiveSum's last is %d", to_host(d_out, n)[6]);
    /* DeviceRadixSort::SortPairs */
    size_t sort_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, d_in, d_out, d_vals, d_vals_out, n);
    void *sort_temp;
    cudaMalloc(&sort_temp, sort_bytes);
    cub::DeviceRadixSort::SortPairs(sort_temp, sort_bytes, d_in, d_out, d_vals, d_vals_out, n);
    std::vector<int> sk = to_host(d_out, n), sv = to_host(d_vals_out, n), want_k = {0, 3, 5, 6, 7, 8, 9}, want_v = {5, 4, 3, 1, 2, 0, 6};
    EXPECT(sk == want_k && sv == want_v, "SortPairs gave keys %d %d %d, values %d %d %d", sk[0], sk[1], sk[2], sv[0], sv[1], sv[2]);
    cub::DeviceRadixSort::SortKeysDescending(sort_temp, sort_bytes, d_in, d_out, n);
    EXPECT(to_host(d_out, n)[0] == 9, "SortKeysDescending's first is %d", to_host(d_out, n)[0]);
    /* DeviceSelect */
    std::vector<int> dup = {0, 2, 2, 9, 5, 5, 5, 8};
    int *d_dup = to_device(dup);
    size_t sel_bytes = 0;
    cub::DeviceSelect::Unique(nullptr, sel_bytes, d_dup, d_out, d_num, 8);
    void *sel_temp;
    cudaMalloc(&sel_temp, sel_bytes);
    cub::DeviceSelect::Unique(sel_temp, sel_bytes, d_dup, d_out, d_num, 8);
    std::vector<int> uq = to_host(d_out, 5), want_u = {0, 2, 9, 5, 8};
    EXPECT(to_host(d_num, 1)[0] == 5 && uq == want_u, "Unique kept %d", to_host(d_num, 1)[0]);
    cub::DeviceSelect::If(sel_temp, sel_bytes, d_in, d_out, d_num, n, LessThan7());
    EXPECT(to_host(d_num, 1)[0] == 4 && to_host(d_out, 4)[0] == 6, "If selected %d", to_host(d_num, 1)[0]);
    /* DeviceHistogram::HistogramEven: 7 levels, 6 bins of width 2 over [0, 12) */
    std::vector<float> samples = {2.2f, 6.1f, 7.1f, 2.9f, 3.5f, 0.3f, 2.9f, 2.1f, 6.1f, 999.5f};
    float *d_samples = to_device(samples);
    int *d_hist;
    cudaMalloc(&d_hist, 6 * sizeof(int));
    size_t hist_bytes = 0;
    cub::DeviceHistogram::HistogramEven(nullptr, hist_bytes, d_samples, d_hist, 7, 0.0f, 12.0f, 10);
    void *hist_temp;
    cudaMalloc(&hist_temp, hist_bytes);
    cub::DeviceHistogram::HistogramEven(hist_temp, hist_bytes, d_samples, d_hist, 7, 0.0f, 12.0f, 10);
    std::vector<int> hist = to_host(d_hist, 6), want_h = {1, 5, 0, 3, 0, 0};
    EXPECT(hist == want_h, "histogram %d %d %d %d %d %d", hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]);
    /* block and warp collectives */
    int *d_bw;
    cudaMalloc(&d_bw, 300 * sizeof(int));
    block_and_warp<<<1, 128>>>(d_bw);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess, "block_and_warp failed");
    std::vector<int> bw = to_host(d_bw, 300);
    EXPECT(bw[0] == 8128, "BlockReduce::Sum gave %d", bw[0]);
    EXPECT(bw[1] == 0 && bw[1 + 77] == 77 && bw[129] == 128, "BlockScan::ExclusiveSum gave %d %d, aggregate %d", bw[1], bw[78], bw[129]);
    EXPECT(bw[130 + 5] == 23, "BlockScan over 4 items per thread: thread 5's last is %d", bw[135]);
    EXPECT(bw[260] == 496 && bw[263] == 496, "WarpReduce::Sum gave %d %d", bw[260], bw[263]);
    EXPECT(bw[270] == 120 && bw[271] == 120, "WarpReduce<int, 16>::Sum gave %d %d", bw[270], bw[271]);
    cudaFree(temp);
    cudaFree(sort_temp);
    cudaFree(sel_temp);
    cudaFree(hist_temp);
}

/* ---- Thrust ---- */
__global__ void twice(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 2;
}
struct Square {
    __host__ __device__ int operator()(int x) const { return x * x; }
};
struct IsOdd {
    __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};

static void mode_thrust() {
    const int n = 1000;
    thrust::device_vector<int> d(n);
    thrust::sequence(d.begin(), d.end());
    /* a device_vector's storage is device memory: its raw pointer goes to a kernel */
    twice<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d.data()), n);
    EXPECT(cudaGetLastError() == cudaSuccess, "launch on a device_vector failed");
    long sum = thrust::reduce(d.begin(), d.end(), 0L);
    EXPECT(sum == (long)n * (n - 1), "reduce gave %ld after the kernel doubled 0..999", sum);
    thrust::transform(d.begin(), d.end(), d.begin(), Square());
    thrust::sort(d.begin(), d.end(), thrust::greater<int>());
    thrust::host_vector<int> h = d;
    EXPECT(h[0] == 1998 * 1998 && h[n - 1] == 0, "sorted squares %d ... %d", (int)h[0], (int)h[n - 1]);
    thrust::device_vector<int> keys(4), vals(4);
    keys[0] = 3, keys[1] = 1, keys[2] = 2, keys[3] = 0;
    thrust::sequence(vals.begin(), vals.end());
    thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
    EXPECT(vals[0] == 3 && vals[3] == 0, "sort_by_key gave %d %d", (int)vals[0], (int)vals[3]);
    thrust::device_vector<int> scan(5, 1);
    thrust::exclusive_scan(scan.begin(), scan.end(), scan.begin());
    EXPECT(scan[4] == 4, "exclusive_scan gave %d", (int)scan[4]);
    thrust::device_vector<int> seq(10);
    thrust::sequence(seq.begin(), seq.end());
    EXPECT(thrust::count_if(seq.begin(), seq.end(), IsOdd()) == 5, "count_if");
    /* thrust::device_malloc gives device memory too */
    thrust::device_ptr<int> p = thrust::device_malloc<int>(64);
    thrust::fill(p, p + 64, 7);
    twice<<<1, 64>>>(thrust::raw_pointer_cast(p), 64);
    cudaDeviceSynchronize();
    int back = 0;
    cudaMemcpy(&back, thrust::raw_pointer_cast(p) + 63, sizeof back, cudaMemcpyDeviceToHost);
    EXPECT(back == 14, "device_malloc'd memory after the kernel: %d", back);
    thrust::device_free(p);
    /* an allocation larger than the device throws std::bad_alloc */
    bool threw = false;
    try {
        thrust::device_vector<char> huge(1ull << 50);
    } catch (std::bad_alloc &) {
        threw = true;
    }
    cudaGetLastError();
    EXPECT(threw, "a 2^50-byte device_vector did not throw std::bad_alloc");
}

static int run_cub() { return mode_cub(), 0; }
static int run_thrust() { return mode_thrust(), 0; }

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"cub", run_cub}, {"thrust", run_thrust}};
    return run_mode(argc, argv, modes);
}
