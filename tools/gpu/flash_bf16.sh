#!/usr/bin/env bash
# tools/gpu/flash_bf16.sh -- lesson 19's bf16 flash attention (solutions/19-fused-kernels/steps/
# flash_bf16.cu, WMMA, and flash_mma.cu, mma.sync) on a GPU in one command, beside PyTorch's
# scaled_dot_product_attention (first, on the CPU: flash_mma_check.cpp, mma.sync's fragments emulated):
# build with nvcc (ptxas' registers and spills in build.log), check every tile configuration against
# a CPU reference in double on small cases (B H = 2; n = 256, 200, 17; with and without the causal
# mask) and on one (b, h) slice of the large case, time the large case (B 8, H 16, N 4096, d 64,
# median of 20, CUDA events), time SDPA on the same shapes, print both and the ratio, and the scratch
# memory against the naive form's N x N scores; then Nsight Compute on the fastest configuration.
# Configurations 0-3: the first WMMA version; 4-6: WMMA, scores padded by 8 floats; 7-: mma.sync.
# Logs under ${OUT:-flash-gpu}/. Usage: OUT=/some/dir bash tools/gpu/flash_bf16.sh  (about 1-2 min)
set -u
out=${OUT:-flash-gpu}
mkdir -p "$out"
src=solutions/19-fused-kernels/steps
bin=$out/flash_bf16_bench
start=$SECONDS
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

echo "== mma.sync's fragment arithmetic emulated on the CPU (flash_mma_check.cpp)"
if g++ -O2 -std=c++17 -o "$out/flash_mma_check" "$src/flash_mma_check.cpp" >"$out/mma_check.log" 2>&1; then
  "$out/flash_mma_check" >>"$out/mma_check.log" 2>&1; tail -1 "$out/mma_check.log"
else
  echo "  (flash_mma_check did not build: see $out/mma_check.log)"
fi

if ! nvcc -O3 -arch=sm_90 -Xptxas -v -o "$bin" "$src/flash_bf16_bench.cu" "$src/flash_bf16.cu" "$src/flash_mma.cu" >"$out/build.log" 2>&1; then
  cat "$out/build.log"; echo "flash_bf16: build failed"; exit 1
fi
echo "== build ($((SECONDS - start)) s): registers and spills per kernel"
echo "  (flash_bf16_kernel<warps, 16-row fragments a warp, BK, pad>, flash_mma_kernel<warps, 16-row groups a warp, blocks/SM asked, Q in registers, stages>)"
grep -E "Compiling entry|registers|spill" "$out/build.log" | grep -v "^$" | sed 's/ptxas info    : //' | paste - - - | \
  sed -E 's/.*_Z[0-9]+(flash_[a-z0-9]+_kernel)I(.*)EEvPK.*stack frame, (.*)\tUsed ([0-9]+) registers.*/  \1<\2>: \4 registers, \3/' | \
  sed -E 's/Li([0-9]+)E?/\1,/g; s/Lb([01])E?/\1,/g; s/,>/>/'

echo "== small cases against the CPU"
timeout 60 "$bin" check >"$out/check.log" 2>&1; rc_check=$?
grep -E "WRONG|^check:" "$out/check.log"; [ $rc_check -eq 0 ] || echo "  (check failed, rc $rc_check: see $out/check.log)"

echo "== the large case: each configuration checked on one slice, then timed"
timeout 100 "$bin" time 8 16 4096 20 >"$out/time.log" 2>&1; rc_time=$?
cat "$out/time.log"; [ $rc_time -eq 0 ] || echo "  (time: rc $rc_time)"

echo "== PyTorch scaled_dot_product_attention, bf16, same shapes"
timeout 60 python3 tools/gpu/sdpa_time.py 8 16 4096 64 >"$out/sdpa.log" 2>&1 || echo "  (sdpa_time.py failed: see $out/sdpa.log)"
cat "$out/sdpa.log" | tail -6

echo "== summary"
python3 - "$out/time.log" "$out/sdpa.log" <<'PY' | tee "$out/summary.txt"
import re, sys
ours, sdpa = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"RESULT config (\d+) \((.*?)\) causal (\d) tflops ([\d.]+) ms ([\d.]+) .* scratch (\d+) naive_scratch (\d+)", line)
    if m:
        k, name, c, t = int(m[1]), m[2], int(m[3]), float(m[4])
        if c not in ours or t > ours[c][1]:
            ours[c] = (k, t, name, int(m[6]), int(m[7]))
for line in open(sys.argv[2]):
    m = re.match(r"SDPA causal (\d) tflops ([\d.]+) ms [\d.]+ backend (\w+)", line)
    if m:
        c, t, b = int(m[1]), float(m[2]), m[3]
        if c not in sdpa or t > sdpa[c][0]:
            sdpa[c] = (t, b)
best = None
for c in (0, 1):
    if c not in ours:
        print("causal %d: no timed configuration" % c); continue
    k, t, name, scratch, naive = ours[c]
    if c == 0: best = k
    line = "causal %d: ours %.1f TFLOP/s (config %d: %s)" % (c, t, k, name)
    if c in sdpa:
        line += "; SDPA %.1f TFLOP/s (%s): ratio %.2f (goal >= 0.30)" % (sdpa[c][0], sdpa[c][1], t / sdpa[c][0])
    print(line)
    print("  scratch %d bytes vs the naive form's %.0f MiB of bf16 scores: %.4f (goal <= 0.01)" % (scratch, naive / 2**20, scratch / naive))
print("best %s" % ("none" if best is None else best))
PY
best=$(sed -n 's/^best \([0-9]*\)$/\1/p' "$out/summary.txt")

if [ -n "$best" ] && command -v ncu >/dev/null; then
  echo "== Nsight Compute, configuration $best, non-causal, one launch"
  timeout 60 ncu --clock-control none --kernel-name regex:"flash_(bf16|mma)_kernel" --launch-count 1 \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_pipe_lsu.sum,gpu__time_duration.sum \
    "$bin" once "$best" 0 >"$out/ncu.txt" 2>&1 || echo "  (ncu failed: see $out/ncu.txt)"
  grep -E "^\s+(sm__|launch__|l1tex__|smsp__|gpu__)" "$out/ncu.txt"
fi
echo "== done in $((SECONDS - start)) s; logs in $out/"
