// cuda_graph_capture.cu - CUDA Graphs by stream capture: a short chain of kernels and an async
// copy is captured between cudaStreamBeginCapture and cudaStreamEndCapture, instantiated once with
// cudaGraphInstantiate, and replayed many times with cudaGraphLaunch; the same chain issued
// directly gives the reference. Also checks that nothing ran during the capture.
// Build and run: nvcc -o cuda_graph_capture cuda_graph_capture.cu && ./cuda_graph_capture
#include <vector>
#include "sample_helpers.h"

__global__ void scaleAdd(float* v, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * a + b;
}

__global__ void accumulate(const float* v, float* acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += v[i];
}

static void issueStep(cudaStream_t s, float* dV, float* dAcc, float* dSnapshot, int n)
{
    int blocks = (n + 255) / 256;
    scaleAdd<<<blocks, 256, 0, s>>>(dV, 0.5f, 1.0f, n);
    accumulate<<<blocks, 256, 0, s>>>(dV, dAcc, n);
    scaleAdd<<<blocks, 256, 0, s>>>(dV, -1.0f, 0.25f, n);
    checkCuda(cudaMemcpyAsync(dSnapshot, dV, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
}

int main()
{
    pickDevice(3);
    const int n = 5000, replays = 20;
    std::vector<float> v0(n);
    Lcg rng(8);
    for (float& x : v0) x = rng.nextFloat(-4.0f, 4.0f);

    float *dV, *dAcc, *dSnap;
    checkCuda(cudaMalloc(&dV, n * sizeof(float)));
    checkCuda(cudaMalloc(&dAcc, n * sizeof(float)));
    checkCuda(cudaMalloc(&dSnap, n * sizeof(float)));
    cudaStream_t s;
    // A blocking stream: the cudaMemcpy/cudaMemset calls below (legacy default stream) are ordered
    // before its work. With cudaStreamNonBlocking they would race with it.
    checkCuda(cudaStreamCreate(&s));

    // Reference: the steps issued directly.
    checkCuda(cudaMemcpy(dV, v0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemset(dAcc, 0, n * sizeof(float)));
    for (int r = 0; r < replays; ++r) issueStep(s, dV, dAcc, dSnap, n);
    checkCuda(cudaStreamSynchronize(s));
    std::vector<float> refAcc(n), refSnap(n), acc(n), snap(n);
    checkCuda(cudaMemcpy(refAcc.data(), dAcc, n * sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(refSnap.data(), dSnap, n * sizeof(float), cudaMemcpyDeviceToHost));

    // The same steps captured once into a graph.
    checkCuda(cudaMemcpy(dV, v0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemset(dAcc, 0, n * sizeof(float)));
    checkCuda(cudaMemset(dSnap, 0, n * sizeof(float)));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    checkCuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    issueStep(s, dV, dAcc, dSnap, n);
    checkCuda(cudaStreamEndCapture(s, &graph));
    size_t numNodes = 0;
    checkCuda(cudaGraphGetNodes(graph, NULL, &numNodes));
    // Captured work does not run: the accumulator is still zero.
    float first = -1.0f;
    checkCuda(cudaMemcpy(&first, dAcc, sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < replays; ++r) checkCuda(cudaGraphLaunch(exec, s));
    checkCuda(cudaStreamSynchronize(s));
    checkCuda(cudaMemcpy(acc.data(), dAcc, n * sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(snap.data(), dSnap, n * sizeof(float), cudaMemcpyDeviceToHost));

    printf("graph of %zu nodes replayed %d times; accumulator after capture: %g\n", numNodes,
           replays, first);
    // Same kernels, same order: bit-identical results.
    int bad = compareNear("acc", acc.data(), refAcc.data(), n, 0.0, 0.0);
    bad += compareNear("snapshot", snap.data(), refSnap.data(), n, 0.0, 0.0);
    checkCuda(cudaGraphExecDestroy(exec));
    checkCuda(cudaGraphDestroy(graph));
    checkCuda(cudaStreamDestroy(s));
    freeDevice(dV, dAcc, dSnap);
    return finish(bad == 0 && numNodes == 4 && first == 0.0f);
}
