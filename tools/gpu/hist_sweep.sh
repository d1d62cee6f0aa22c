#!/usr/bin/env bash
# tools/gpu/hist_sweep.sh -- issue #31's two lesson-18 goals on an H200 in one command, in under 150 s
# (logs under $OUT, default ./hist-gpu):
#   1. the reference's benchmark (make bench LESSON=18 SOLUTION=1), twice: cuBLAS, 18.1, 18.2, the
#      SGEMM steps, CUB's HistogramEven, 18.3 and the histogram steps of
#      solutions/18-async-copies/steps/hist_steps.cu, each step checked against CUB bin for bin;
#   2. Nsight Compute on the best histogram step and on CUB's sweep kernel (DRAM throughput, shared
#      atomics and their bank conflicts, achieved occupancy, duration, warp states);
#   3. Nsight Compute on the best SGEMM step and on cuBLAS's kernel at 4096^3 (FMA pipe busy, issue
#      slots used, registers, shared-memory bank conflicts, warp states): where the step loses.
# The best step of each kind is the one with the highest ratio summed over the benchmark's runs; its
# kernel is found by its template arguments, read from the step tables in order.
# Usage: OUT=/some/dir bash tools/gpu/hist_sweep.sh
set -u
out=${OUT:-hist-gpu}
mkdir -p "$out"
[ -f tools/gpu_debs.sh ] && . tools/gpu_debs.sh
export PATH=$PATH:/usr/local/cuda/bin
mk="make BACKEND=gpu BUILD=build-gpu ARCH=sm_90"
. tools/gpu/bench_twice.sh
bench=build-gpu/gpu/solution/18-async-copies/bench
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

# ---- 1. build and benchmark ----------------------------------------------------------------------
if ! timeout 90 $mk -j16 "$bench" >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  exit 1
fi
echo "built in ${SECONDS}s"
bench_twice 25 'x cuBLAS|x CUB|GB/s|GFLOP/s|WRONG' 'x cuBLAS|x CUB|WRONG'

# template_args FILE LAUNCHER K: the template arguments of the K-th (0-based) LAUNCHER<...> of FILE's
# step table, as a mangled suffix: <256, 32, 4, 6, 2> -> ILi256ELi32ELi4ELi6ELi2EE (the layouts'
# names in sgemm_steps.cu are their values).
template_args() {
  grep -o "$2<[^>]*>" "$1" | sed -n "$(($3 + 1))p" | sed -e "s/^$2<//" -e 's/>$//' -e 's/SG_LESSON05/0/' -e 's/SG_WARPS/1/' |
    tr -d ' ' | awk -F, '{ s = "I"; for (i = 1; i <= NF; i++) s = s "Li" $i "E"; print s "E" }'
}
# known_metrics LIST: the metrics of the comma-separated LIST that this ncu knows, by full name or,
# where the query lists base names only, by the name before the first dot (launch__ ones are launch
# attributes, not in the query, and kept): one unknown name would stop the whole profile.
"$ncu" --query-metrics-mode all --query-metrics >"$out/ncu-metrics-known.txt" 2>&1
known_metrics() {
  local m kept=
  for m in ${1//,/ }; do
    if [[ $m == launch__* ]] || grep -qF -- "$m" "$out/ncu-metrics-known.txt" ||
      { ! grep -q '__[a-z_]*\.[a-z]' "$out/ncu-metrics-known.txt" && grep -qw -- "${m%%.*}" "$out/ncu-metrics-known.txt"; }; then
      kept=$kept${kept:+,}$m
    fi
  done
  echo "$kept"
}
# profile NAME ARGS...: ncu with the clocks as the benchmark saw them, the sections that always
# exist plus the known metrics of $metrics; the report as text in $out/ncu-NAME.txt.
profile() {
  local name=$1
  shift
  local m
  m=$(known_metrics "$metrics")
  if [ $SECONDS -gt 135 ]; then echo "ncu $name: skipped (${SECONDS}s used)"; return; fi
  timeout $((145 - SECONDS)) "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats ${m:+--metrics "$m"} "$@" >"$out/ncu-$name.txt" 2>&1
  echo "ncu $name: $(grep -cE 'Context [0-9]+, Stream' "$out/ncu-$name.txt") kernels profiled ($out/ncu-$name.txt)"
  grep -E 'Context [0-9]+, Stream|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|shared_op_atom|pipe_fma|issue_active' "$out/ncu-$name.txt" | head -24
}

# ---- 2. the best histogram step and CUB ----------------------------------------------------------
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_atom.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,\
l1tex__throughput.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,\
launch__shared_mem_per_block_dynamic,launch__cluster_dim_x
k=$(best_row '^  hist [0-9]+:' CUB)
if [ -n "$k" ]; then
  kernel=hist_cluster_kernel$(template_args solutions/18-async-copies/steps/hist_steps.cu hist_cluster_launch "$k")
  echo "best histogram step: row $k, $kernel"
  # its launches in the benchmark: 32 edge checks (36 sizes x offsets, 4 of them empty), then the
  # whole photo checked against CUB, then the warm-up: those two are the full-size ones
  profile hist-step --kernel-name-base mangled --kernel-name "regex:$kernel" --launch-skip 32 --launch-count 2 "$bench" 128
fi
# CUB's first launches: its warm-ups, full size, each an init kernel and a sweep kernel (18.3's
# cluster_histogram_kernel runs before but has no capital H)
profile hist-cub --kernel-name regex:Histogram --launch-count 4 "$bench" 128

# ---- 3. the best SGEMM step and cuBLAS at 4096^3 -------------------------------------------------
metrics=gpu__time_duration.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.sum,\
sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed_pipe_fmalite.sum,smsp__inst_executed.sum,\
smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_ldgsts.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,\
smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,\
smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,\
smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,\
launch__grid_size,launch__block_size,launch__registers_per_thread,launch__occupancy_limit_registers,\
launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static
k=$(best_row '^  step [0-9]+:' cuBLAS)
if [ -n "$k" ]; then
  # the step table names two launchers (steps 1-3: sgemm_async_launch, step 4: sgemm_wide_launch),
  # each of its own kernel
  launcher=$(grep -oE 'sgemm_[a-z]+_launch<' solutions/18-async-copies/steps/sgemm_steps.cu | sed -n "$((k + 1))p" | tr -d '<')
  nth=$(grep -oE 'sgemm_[a-z]+_launch<' solutions/18-async-copies/steps/sgemm_steps.cu | head -$((k + 1)) | grep -c "^$launcher<")
  kernel=${launcher%_launch}_kernel$(template_args solutions/18-async-copies/steps/sgemm_steps.cu "$launcher" $((nth - 1)))
  echo "best SGEMM step: row $k, $kernel"
  # 3 checks on small sizes, then the warm-up at 4096^3
  profile sgemm-step --kernel-name-base mangled --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 "$bench" 4096 16
fi
# cuBLAS runs first in the benchmark: the first kernel with gemm in its name is its warm-up
profile sgemm-cublas --kernel-name regex:gemm --launch-count 1 "$bench" 4096 16

echo "done in ${SECONDS}s; logs in $out/"
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
