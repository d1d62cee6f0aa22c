#!/usr/bin/env bash
# tools/gpu/gemm17_sweep.sh -- lesson 17's GEMM steps on an H200 in one command (logs under $OUT,
# default ./gemm17-gpu; about 2 minutes on 16 cores): ptxas's registers and spills of every step
# kernel, the reference's benchmark built with nvcc and run twice (17.2, the WMMA steps and the
# mma.sync kernels, each checked against cuBLAS bf16 and timed beside it: TFLOP/s, x cuBLAS), then
# Nsight Compute on the fastest mma.sync configuration and on cuBLAS's kernel: tensor-pipe activity,
# issue activity, shared-load bank conflicts, registers, achieved occupancy, duration.
# Usage: OUT=/some/dir bash tools/gpu/gemm17_sweep.sh
set -u
out=${OUT:-gemm17-gpu}
mkdir -p "$out"
start=$SECONDS
mk=(BACKEND=gpu BUILD=build-gpu ARCH=sm_90)
bench=build-gpu/gpu/solution/17-tensor-cores/bench
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

# Registers and spills of the step kernels (the Makefile builds them with -O2 -lineinfo; the same at -O3).
for f in wmma_steps mma_sync_gemm; do
  nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -Ilessons/17-tensor-cores -Icommon -c solutions/17-tensor-cores/steps/$f.cu \
       -o /tmp/gemm17_$f.o >"$out/ptxas-$f.txt" 2>&1
done
grep -hE "Compiling entry|spill|Used" "$out"/ptxas-*.txt | sed -E 's/ptxas info *: //' >"$out/ptxas-summary.txt"

# Only what make bench needs (make's default goal is help): the lesson's benchmark with its steps.
{ time make -j16 "${mk[@]}" "$bench"; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for run in 1 2; do
  timeout 60 make bench LESSON=17 SOLUTION=1 "${mk[@]}" >"$out/bench-$run.log" 2>&1
  echo "== bench run $run (rc $?, ${SECONDS}s)"; cat "$out/bench-$run.log"
done

# The fastest mma.sync configuration of both runs: its name says its template arguments
# ("mma.sync BMxBNxBK, W warps of WMxWN, S stages[, 2/SM]" -> mma_gemm_kernel<BM, BN, BK, WM, WN, S, blocks>).
best=$(grep -h '^  mma.sync ' "$out"/bench-[12].log |
       awk '{for (i = 2; i <= NF; i++) if ($i == "TFLOP/s" && $(i-1) + 0 > m) { m = $(i-1) + 0; line = $0 }} END { print line }')
echo "fastest mma.sync: ${best:-none}" | tee "$out/best.txt"
metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
if command -v ncu >/dev/null; then
  if [ -n "$best" ]; then
    args=$(echo "$best" | sed -E 's/.*mma\.sync ([0-9]+)x([0-9]+)x([0-9]+), [0-9]+ warps of ([0-9]+)x([0-9]+), ([0-9]+) st.*/\1, *\2, *\3, *\4, *\5, *\6/')
    blocks=1; case "$best" in *2/SM*) blocks=2 ;; esac
    # one warm launch (the first is the correctness check), the kernel named by its template arguments
    timeout 45 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:mma_gemm_kernel<$args, *$blocks>" \
        --launch-skip 1 --launch-count 1 --metrics "$metrics" "$bench" >"$out/ncu-mma.txt" 2>&1
    echo "== ncu, mma_gemm_kernel<$args, $blocks> (rc $?, ${SECONDS}s)"; grep -E 'mma_gemm_kernel|sm__|smsp__|l1tex__|launch__|gpu__' "$out/ncu-mma.txt"
    # ldmatrix's own conflicts (shared loads through ldmatrix are op_ldsm, not op_ld); apart, in case
    # this ncu does not know the metric
    timeout 30 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:mma_gemm_kernel<$args, *$blocks>" \
        --launch-skip 1 --launch-count 1 \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum \
        "$bench" >"$out/ncu-mma-ldsm.txt" 2>&1
    grep -E 'l1tex__' "$out/ncu-mma-ldsm.txt"
  fi
  # cuBLAS bf16 is the benchmark's first product: its first three launches (two warm-ups, one timed)
  timeout 30 ncu --clock-control none --launch-count 3 --metrics "$metrics" "$bench" >"$out/ncu-cublas.txt" 2>&1
  echo "== ncu, cuBLAS's first launches (rc $?, ${SECONDS}s)"; grep -E '^  [a-zA-Z_].*\(|sm__|smsp__|l1tex__|launch__|gpu__' "$out/ncu-cublas.txt" | head -30
fi
echo "done in $((SECONDS - start)) s; logs in $out/"
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
