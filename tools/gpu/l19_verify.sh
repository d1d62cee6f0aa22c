#!/usr/bin/env bash
# tools/gpu/l19_verify.sh -- lesson 19 on an H200 in one command (logs under $OUT, default ./l19-gpu):
# build with nvcc, grade the solution, the skeleton and every wrong variant (make test-lessons
# BACKEND=gpu LESSON=19), then the demo and the benchmark of the reference, and one Nsight Compute
# look at the fused row kernels' DRAM traffic. Usage: OUT=/some/dir bash tools/gpu/l19_verify.sh
set -u
out=${OUT:-l19-gpu}
mkdir -p "$out"
[ -f tools/gpu_debs.sh ] && . tools/gpu_debs.sh
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
{ time make -j16 BACKEND=gpu BUILD=build-gpu test-lessons LESSON=19; } >"$out/test-lessons.log" 2>&1
echo "test-lessons: $(grep '^lessons:' "$out/test-lessons.log")"
make BACKEND=gpu BUILD=build-gpu run LESSON=19 SOLUTION=1 >"$out/run.log" 2>&1
make BACKEND=gpu BUILD=build-gpu bench LESSON=19 SOLUTION=1 >"$out/bench.log" 2>&1
cat "$out/bench.log"
# DRAM bytes of the fused kernels at 8192 x 8192 (one launch each): read + write should be ~2 x 256 MiB
if command -v ncu >/dev/null; then
  ncu --clock-control none --kernel-name regex:'softmax_kernel|layernorm_kernel|attention_flash_kernel' --launch-count 3 \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
      build-gpu/gpu/solution/19-fused-kernels/bench >"$out/ncu.txt" 2>&1
fi
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
