#!/usr/bin/env bash
# tools/gpu/gemm17_sweep.sh -- lesson 17's GEMM steps on an H200 in one command (logs under $OUT,
# default ./gemm17-gpu; about 80 s on 16 cores): ptxas's registers and spills of every step kernel,
# the reference's benchmark built with nvcc and run twice (17.2, the WMMA steps and the mma.sync
# kernels, each checked against cuBLAS bf16 and timed beside it: TFLOP/s, x cuBLAS), issue #30's
# WMMA goal (the fastest WMMA step >= 0.35 x cuBLAS), then Nsight Compute on the fastest ldmatrix
# WMMA step, the fastest mma.sync configuration and cuBLAS's kernel: tensor-pipe activity, issue
# activity, shared-load bank conflicts (LDS and ldmatrix), registers, achieved occupancy, duration.
# Usage: OUT=/some/dir bash tools/gpu/gemm17_sweep.sh
set -u
out=${OUT:-gemm17-gpu}
mkdir -p "$out"
start=$SECONDS
mk=(BACKEND=gpu BUILD=build-gpu ARCH=sm_90)
bench=build-gpu/gpu/solution/17-tensor-cores/bench
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

# Registers and spills of the step kernels (the Makefile builds them with -O2 -lineinfo; the same at
# -O3), in the background while make builds the benchmark.
for f in wmma_steps mma_sync_gemm; do
  nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -Ilessons/17-tensor-cores -Icommon -c solutions/17-tensor-cores/steps/$f.cu \
       -o /tmp/gemm17_$f.o >"$out/ptxas-$f.txt" 2>&1 &
done

# Only what make bench needs (make's default goal is help): the lesson's benchmark with its steps.
{ time make -j16 "${mk[@]}" "$bench"; } >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
wait
grep -hE "Compiling entry|spill|Used" "$out"/ptxas-*.txt | sed -E 's/ptxas info *: //' >"$out/ptxas-summary.txt"
echo "== ptxas -O3 sm_90, the ldmatrix WMMA and mma.sync kernels (registers, spills):"
awk '/Compiling entry/ { k = ""; if (match($0, /(wmma_ldm|mma_gemm)_kernelI[^E]*(E[^E]*)*EEv/)) k = substr($0, RSTART, RLENGTH) }
     k != "" && /spill stores/ { sp = $0; sub(/^ +/, "", sp) }
     k != "" && /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); print "  " k ": " substr($0, RSTART, RLENGTH) ", " sp; k = "" }' "$out/ptxas-summary.txt" |
  sed -E 's/_kernelI/_kernel</; s/EEv:/>:/; s/ELi|ELb/, /g; s/<Li/</'

for run in 1 2; do
  timeout 60 make bench LESSON=17 SOLUTION=1 "${mk[@]}" >"$out/bench-$run.log" 2>&1
  echo "== bench run $run (rc $?, ${SECONDS}s)"; cat "$out/bench-$run.log"
done

# The fastest line of a family over both runs ("... BMxBNxBK, W warps of WMxWN, S st[ages][, 2/SM] ... R TFLOP/s").
fastest() { grep -hE "$1" "$out"/bench-[12].log |
            awk '{for (i = 2; i <= NF; i++) if ($i == "TFLOP/s" && $(i-1) + 0 > m) { m = $(i-1) + 0; line = $0 }} END { print line }'; }
best_wmma=$(fastest '^  step [0-9]+: ')
best_ldm=$(fastest '^  step [0-9]+: ldmatrix ')
best_mma=$(fastest '^  mma\.sync ')
ratio=$(echo "$best_wmma" | grep -oE '[0-9.]+ x cuBLAS' | cut -d' ' -f1)
echo "fastest WMMA step: ${best_wmma:-none}" | tee "$out/best.txt"
echo "issue #30's WMMA goal, >= 0.35 x cuBLAS bf16: ${ratio:-?} x -> $(awk -v r="${ratio:-0}" 'BEGIN { print (r >= 0.35 ? "met" : "NOT met") }')" | tee -a "$out/best.txt"
echo "fastest mma.sync: ${best_mma:-none}" | tee -a "$out/best.txt"

metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
# ldmatrix's own conflicts (shared loads through ldmatrix are op_ldsm, not op_ld); dropped on a retry
# in case this ncu does not know them
ldsm=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
# --kill: end the benchmark once the one launch is profiled (dropped if this ncu refuses the option)
kill=(--kill yes)
command -v ncu >/dev/null && { ncu "${kill[@]}" --version >/dev/null 2>&1 || kill=(); }

# profile LABEL KERNEL LINE FAMILY: Nsight Compute on the instance of template KERNEL that bench
# line LINE names, one warm launch (the first is the correctness check). The instance is picked by
# its mangled name, which spells the template arguments (mma_gemm_kernel<128, 256, 32, 64, 64, 4, 1>
# is _Z15mma_gemm_kernelILi128ELi256ELi32ELi64ELi64ELi4ELi1EEv...; the demangled form's spacing and
# casts are ncu's choice, and the last sweep's regex on it matched nothing). Should the mangled name
# match nothing too, the fallback counts the launches of the lines of FAMILY before LINE in bench
# run 1 and picks the launch by number among all instances (--kernel-name regex:KERNEL).
profile() {
  local label=$1 kern=$2 line=$3 fam=$4 a re f="$out/ncu-$1.txt"
  a=($(echo "$line" | sed -E 's/.* ([0-9]+)x([0-9]+)x([0-9]+), [0-9]+ warps of ([0-9]+)x([0-9]+), ([0-9]+) st.*/\1 \2 \3 \4 \5 \6/'))
  local blocks=1; case "$line" in *2/SM*) blocks=2 ;; esac
  re="${kern}ILi${a[0]}ELi${a[1]}ELi${a[2]}ELi${a[3]}ELi${a[4]}ELi${a[5]}ELi${blocks}E"
  local sel=(--kernel-name-base mangled --kernel-name "regex:$re" --launch-skip 1)
  ncu_run() { timeout 40 ncu "${kill[@]}" --clock-control none "${sel[@]}" --launch-count 1 --metrics "$1" "$bench" >"$f" 2>&1; }
  ncu_run "$metrics,$ldsm"
  if ! grep -q gpu__time_duration "$f" && grep -qi "no kernels were profiled" "$f"; then
    # every earlier line of the family launched 1 (check) + 2 (warm-up) + reps (timed) times if
    # timed, once if WRONG, never if refused
    local reps skip name
    reps=$(grep -oE 'median of [0-9]+ runs' "$out/bench-1.log" | grep -oE '[0-9]+')
    name=$(echo "$line" | sed -E 's/^ +//; s/ {2,}.*//')
    skip=$(awk -v name="$name" -v fam="$fam" -v reps="${reps:-20}" '
      index($0, name) { print n + 1; exit }
      $0 ~ fam { if (/TFLOP\/s/) n += 3 + reps; else if (/WRONG/) n += 1 }' "$out/bench-1.log")
    echo "   (the mangled name $re matched nothing: --kernel-name regex:$kern --launch-skip ${skip:-?} instead)"
    sel=(--kernel-name "regex:$kern" --launch-skip "${skip:-0}")
    ncu_run "$metrics,$ldsm"
  fi
  grep -q gpu__time_duration "$f" || ncu_run "$metrics" # without the ldmatrix metrics
  echo "== ncu, $label (${SECONDS}s): $line"
  grep -E "$kern|sm__|smsp__|l1tex__|launch__|gpu__|ERR|rror" "$f" | head -14
}

if command -v ncu >/dev/null; then
  [ -n "$best_ldm" ] && profile wmma-ldm wmma_ldm_kernel "$best_ldm" '^  step [0-9]+: ldmatrix '
  [ -n "$best_mma" ] && profile mma mma_gemm_kernel "$best_mma" '^  mma\.sync '
  # cuBLAS bf16 is the benchmark's first product: its first three launches (two warm-ups, one timed)
  timeout 30 ncu "${kill[@]}" --clock-control none --launch-count 3 --metrics "$metrics" "$bench" >"$out/ncu-cublas.txt" 2>&1
  echo "== ncu, cuBLAS's first launches (rc $?, ${SECONDS}s)"; grep -E '^  [a-zA-Z_].*\(|sm__|smsp__|l1tex__|launch__|gpu__' "$out/ncu-cublas.txt" | head -12
fi
echo "done in $((SECONDS - start)) s; logs in $out/"
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
