#!/usr/bin/env bash
# tools/gpu/l18_verify.sh -- lesson 18 and its simulator features on an H200 in one command (logs under
# $OUT, default ./l18-gpu): the simulator's test program built with nvcc (the GPU must agree with the
# simulator on every correct mode and on the launch errors), then make test-lessons BACKEND=gpu
# LESSON=18 (solution, skeleton, wrong variants), the demo and the benchmark of the reference, and
# Nsight Compute's view of what the grader's property relies on: the GEMM kernels' global load
# requests (0 with cp.async: LDGSTS is not counted as op_ld) next to their LDGSTS and shared stores.
# Usage: OUT=/some/dir bash tools/gpu/l18_verify.sh
set -u
out=${OUT:-l18-gpu}
mkdir -p "$out"
[ -f tools/gpu_debs.sh ] && . tools/gpu_debs.sh
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
# 1. the simulator's program on the GPU: its correct modes and the launch errors (cudaErrorInvalidClusterSize)
nvcc -O2 -arch=sm_90 -std=c++17 -Itests/sim/programs -o /tmp/async_copies tests/sim/programs/async_copies.cu >"$out/parity-build.log" 2>&1
for m in pipeline cuda-pipeline barrier cg cluster cluster-errors; do
  echo "== $m"; /tmp/async_copies $m
done >"$out/parity.log" 2>&1
echo "parity: $(grep -c ': PASS' "$out/parity.log") of 6 modes pass on the GPU"
# 2. the lesson (ARCH=sm_90: clusters need compute capability 9.0)
{ time make -j16 BACKEND=gpu BUILD=build-gpu ARCH=sm_90 test-lessons LESSON=18; } >"$out/test-lessons.log" 2>&1
echo "test-lessons: $(grep '^lessons:' "$out/test-lessons.log")"
make BACKEND=gpu BUILD=build-gpu ARCH=sm_90 run LESSON=18 SOLUTION=1 >"$out/run.log" 2>&1
make BACKEND=gpu BUILD=build-gpu ARCH=sm_90 bench LESSON=18 SOLUTION=1 >"$out/bench.log" 2>&1
cat "$out/bench.log"
# 3. the property's metrics on the GPU (one launch of each GEMM at 1024^3)
if command -v ncu >/dev/null; then
  ncu --clock-control none --kernel-name regex:'sgemm_(double_buffered|pipelined)_kernel|cluster_histogram_kernel' --launch-count 3 \
      --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_ldgsts.sum,launch__cluster_dim_x,gpu__time_duration.sum \
      build-gpu/gpu/solution/18-async-copies/bench 1024 $((1 << 24)) >"$out/ncu.txt" 2>&1
fi
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
