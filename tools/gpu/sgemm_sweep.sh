#!/usr/bin/env bash
# tools/gpu/sgemm_sweep.sh -- issue #31's SGEMM goal on an H200 in one command, in under 90 s (logs
# under $OUT, default ./sgemm-gpu):
#   1. ptxas's registers and spills of every SGEMM step kernel (-O3, beside the build);
#   2. the reference's benchmark (make bench LESSON=18 SOLUTION=1), twice: cuBLAS, 18.1, 18.2 and
#      the steps of solutions/18-async-copies/steps/sgemm_steps.cu, each checked against the CPU
#      before it is timed at 4096^3;
#   3. Nsight Compute on the best step 4 configuration (the 128-outputs-a-thread kernels): FMA pipe
#      busy, issue slots used, instructions, shared-load bank conflicts, registers, occupancy, warp
#      stall reasons; its instruction mix from its SASS; and the same metrics on cuBLAS's kernel
#      when time is left (skipped past 65 s: its numbers are in docs/results/steps-h200.md).
# The best step is the one with the highest "x cuBLAS" summed over both runs; its kernel is found
# from its row in the step table (the K-th launcher named there, with its template arguments).
# Usage: OUT=/some/dir bash tools/gpu/sgemm_sweep.sh
set -u
out=${OUT:-sgemm-gpu}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
mk="make BACKEND=gpu BUILD=build-gpu ARCH=sm_90"
. tools/gpu/bench_twice.sh
bench=build-gpu/gpu/solution/18-async-copies/bench
steps=solutions/18-async-copies/steps/sgemm_steps.cu
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

# ---- 1. registers and spills, 2. build and benchmark ---------------------------------------------
nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -Ilessons/18-async-copies -Icommon -c "$steps" -o /tmp/sgemm_steps_O3.o \
  >"$out/ptxas.txt" 2>&1 &
if ! timeout 75 $mk -j16 "$bench" >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  exit 1
fi
wait
grep -hE "Compiling entry|spill|Used" "$out/ptxas.txt" | sed -E 's/ptxas info *: //' | paste - - - | grep sgemm_wide |
  sed -E 's/Compiling entry function .(_Z[0-9]+)?([a-z_]+kernel)([^ ]*). for .sm_90.\s*/\2\3: /' >"$out/ptxas-summary.txt"
echo "built in ${SECONDS}s; step 4 kernels (-O3):"
cat "$out/ptxas-summary.txt"
bench_twice 20 'x cuBLAS|GFLOP/s|WRONG' 'x cuBLAS|WRONG'

# step_kernel K: the kernel of the K-th (0-based) launcher of the step table as a mangled-name prefix:
# sgemm_wide_launch<256, 128, 8, 3, 0> -> sgemm_wide_kernelILi256ELi128ELi8ELi3ELi0EE (the layouts'
# names of steps 1-3 are their values).
step_kernel() {
  grep -oE "sgemm_[a-z]+_launch<[^>]*>" "$steps" | sed -n "$(($1 + 1))p" |
    sed -e 's/_launch</_kernel /' -e 's/>$//' -e 's/SG_LESSON05/0/' -e 's/SG_WARPS/1/' | tr -d ',' |
    awk '{ s = $1 "I"; for (i = 2; i <= NF; i++) s = s "Li" $i "E"; print s "E" }'
}

# ---- 3. Nsight Compute: the best step 4 configuration and cuBLAS at 4096^3 -----------------------
metrics=gpu__time_duration.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,\
smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_ldgsts.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,\
launch__shared_mem_per_block_dynamic,smsp__average_warp_latency_issue_stalled_barrier.ratio,\
smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,\
smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio
profile() { # profile NAME LATEST ARGS...: unless past LATEST seconds, the report as text in $out/ncu-NAME.txt, its main lines printed
  local name=$1 latest=$2
  shift 2
  if [ $SECONDS -gt "$latest" ]; then echo "ncu $name: skipped (${SECONDS}s used)"; return; fi
  timeout $((88 - SECONDS)) "$ncu" --clock-control none --metrics "$metrics" "$@" >"$out/ncu-$name.txt" 2>&1
  grep -E 'Context [0-9]+, Stream|gpu__time|pipe_fma_cycles|issue_active|inst_executed|bank_conflicts|warps_active|registers|stalled' \
    "$out/ncu-$name.txt" | sed -E 's/ +/ /g' | head -30
}
k=$(best_row '^  step [0-9]+:' cuBLAS '^  step 4:')
if [ -n "$k" ]; then
  kernel=$(step_kernel "$k")
  echo "best step 4: row $k, $kernel" | tee "$out/best.txt"
  # its 3 checks on small sizes come first, then the warm-up at 4096^3
  profile step 80 --kernel-name-base mangled --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 "$bench" 4096 16
  # the instruction mix of its SASS (as built for the benchmark, -O2)
  if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$bench" 2>/dev/null | awk -v k="$kernel" '/Function :/ { on = index($0, k) > 0 } on' >"$out/sass-step.txt"
    echo "SASS of the best step (opcode: count): $(grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' "$out/sass-step.txt" |
      awk '{ print $NF }' | sort | uniq -c | sort -rn | head -12 | awk '{ printf "%s %s, ", $2, $1 }')"
  fi
fi
# cuBLAS runs first in the benchmark: the first kernel with gemm in its name is its warm-up
profile cublas 65 --kernel-name regex:gemm --launch-count 1 "$bench" 4096 16

echo "done in ${SECONDS}s; logs in $out/"
