// nbody_tiles.cu - all-pairs gravitational n-body step: positions and masses in float4, each block
// stages a tile of bodies in __shared__ memory, rsqrtf for 1/r, softening, then a leapfrog update.
// Build and run: nvcc -o nbody_tiles nbody_tiles.cu && ./nbody_tiles
// Prints PASS (exit 0) when the accelerations and new positions match a CPU reference in double.
#include <vector>
#include "sample_helpers.h"

#define TILE 128
#define SOFTENING2 0.01f

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING2;
    float invDist = rsqrtf(distSqr);
    float invDist3 = invDist * invDist * invDist;
    float s = bj.w * invDist3;  // w holds the mass
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void computeAccelerations(const float4* pos, float4* acc, int n)
{
    __shared__ float4 tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start < n; start += TILE) {
        int j = start + threadIdx.x;
        // bodies past n get zero mass: they add nothing
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TILE; ++k) a = bodyBodyInteraction(me, tile[k], a);
        __syncthreads();
    }
    if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

__global__ void integrate(float4* pos, float4* vel, const float4* acc, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i], a = acc[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p;
    vel[i] = v;
}

int main()
{
    pickDevice(3);
    const int n = 1000;  // not a multiple of TILE
    const float dt = 0.01f;
    std::vector<float4> pos(n), vel(n), acc(n), newPos(n);
    Lcg rng(31337);
    for (int i = 0; i < n; ++i) {
        pos[i] = make_float4(rng.nextFloat(-1, 1), rng.nextFloat(-1, 1), rng.nextFloat(-1, 1),
                             rng.nextFloat(0.5f, 1.5f) / n);
        vel[i] = make_float4(rng.nextFloat(-0.1f, 0.1f), rng.nextFloat(-0.1f, 0.1f),
                             rng.nextFloat(-0.1f, 0.1f), 0.0f);
    }

    float4 *dPos, *dVel, *dAcc;
    checkCuda(cudaMalloc(&dPos, n * sizeof(float4)));
    checkCuda(cudaMalloc(&dVel, n * sizeof(float4)));
    checkCuda(cudaMalloc(&dAcc, n * sizeof(float4)));
    checkCuda(cudaMemcpy(dPos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dVel, vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    int blocks = (n + TILE - 1) / TILE;
    computeAccelerations<<<blocks, TILE>>>(dPos, dAcc, n);
    checkLastKernel();
    integrate<<<blocks, TILE>>>(dPos, dVel, dAcc, dt, n);
    checkLastKernel();
    checkCuda(cudaMemcpy(acc.data(), dAcc, n * sizeof(float4), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(newPos.data(), dPos, n * sizeof(float4), cudaMemcpyDeviceToHost));

    // CPU reference in double; rsqrtf is accurate to 2 ulp, and the float sums round differently.
    std::vector<double> refAcc(3 * n), refPos(3 * n), gotAcc(3 * n), gotPos(3 * n);
    double accScale = 0;
    for (int i = 0; i < n; ++i) {
        double ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; ++j) {
            double rx = pos[j].x - pos[i].x, ry = pos[j].y - pos[i].y, rz = pos[j].z - pos[i].z;
            double d2 = rx * rx + ry * ry + rz * rz + (double)SOFTENING2;
            double s = pos[j].w / (d2 * sqrt(d2));
            ax += rx * s; ay += ry * s; az += rz * s;
        }
        double vx = vel[i].x + ax * dt, vy = vel[i].y + ay * dt, vz = vel[i].z + az * dt;
        refAcc[3 * i] = ax; refAcc[3 * i + 1] = ay; refAcc[3 * i + 2] = az;
        refPos[3 * i] = pos[i].x + vx * dt;
        refPos[3 * i + 1] = pos[i].y + vy * dt;
        refPos[3 * i + 2] = pos[i].z + vz * dt;
        gotAcc[3 * i] = acc[i].x; gotAcc[3 * i + 1] = acc[i].y; gotAcc[3 * i + 2] = acc[i].z;
        gotPos[3 * i] = newPos[i].x; gotPos[3 * i + 1] = newPos[i].y; gotPos[3 * i + 2] = newPos[i].z;
        accScale = fmax(accScale, fabs(ax) + fabs(ay) + fabs(az));
    }
    int bad = compareNear("acc", gotAcc.data(), refAcc.data(), 3 * n, 1e-3, 1e-4 * accScale);
    bad += compareNear("pos", gotPos.data(), refPos.data(), 3 * n, 1e-5, 1e-6);
    printf("%d bodies, largest |a| = %g\n", n, accScale);
    checkCuda(cudaFree(dPos));
    checkCuda(cudaFree(dVel));
    checkCuda(cudaFree(dAcc));
    return finish(bad == 0);
}
