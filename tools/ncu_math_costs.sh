#!/usr/bin/env bash
# ncu_math_costs.sh OUT_DIR -- on a machine with an NVIDIA GPU and Nsight Compute: what one call of
# each maths function costs in executed GPU instructions (tests/sim/profile/math_costs.cu). Writes
#   OUT_DIR/ncu-math-costs.csv   ncu's raw figures, one row per kernel
#   OUT_DIR/math-costs.txt       per function: thread instructions per call, less the baseline's,
#                                as the table in sim/src/prof/gpu_instruction_costs.h takes them
set -u
out=${1:?usage: ncu_math_costs.sh OUT_DIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvcc -O2 -arch=sm_90 -lineinfo -o "$out/math_costs" "$here/../tests/sim/profile/math_costs.cu" || exit 1
"$ncu" --clock-control none --csv --page raw --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum "$out/math_costs" >"$out/ncu-math-costs.csv" 2>&1
rm -f "$out/math_costs"
python3 "$here/ncu_math_costs.py" "$out/ncu-math-costs.csv" | tee "$out/math-costs.txt"
