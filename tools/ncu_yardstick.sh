#!/usr/bin/env bash
# ncu_yardstick.sh OUT_DIR [PROGRAM ...] -- on a machine with an NVIDIA GPU and Nsight Compute: the
# profiler's yardstick (tests/sim/profile/yardstick.cu, the program the simulator's Check suite
# profiles) and the lessons' kernels (tests/sim/profile/lesson_kernels.cu: the solutions of 05, 06
# and 07 at small sizes) built with nvcc -lineinfo and measured by ncu with the metrics the
# simulator reports, so the two can be compared line for line (docs/results/profiler.md records the
# outcome). Each further PROGRAM (a lesson's demo built with `make BACKEND=gpu`, which compiles
# with -lineinfo) gets the same source view, for its first 40 launches.
#   OUT_DIR/ncu-<name>.csv           one row per kernel: requests, sectors, bank conflicts, threads
#                                    per instruction, branch targets and divergent ones
#   OUT_DIR/<name>-source.ncu-rep    the SourceCounters section with the CUDA source imported
#   OUT_DIR/<name>-lines.csv         per kernel and source line, its instruction-level counters
#                                    (tools/ncu_source_lines.py)
set -u
out=${1:?usage: ncu_yardstick.sh OUT_DIR [PROGRAM ...]}
shift
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets.sum,smsp__sass_branch_targets_threads_divergent.sum,smsp__sass_branch_targets_threads_uniform.sum
root="$here/.."
nvcc -O2 -arch=sm_90 -lineinfo -o "$out/yardstick" "$root/tests/sim/profile/yardstick.cu" || exit 1
nvcc -O2 -arch=sm_90 -lineinfo -std=c++17 -o "$out/lesson_kernels" "$root/tests/sim/profile/lesson_kernels.cu" "$root/solutions/05-matmul-tiled/matmul_tiled.cu" \
    "$root/solutions/06-reduction/reduce.cu" "$root/solutions/07-coalescing/coalescing.cu" -I"$root/lessons/05-matmul-tiled" -I"$root/lessons/06-reduction" \
    -I"$root/lessons/07-coalescing" || exit 1
for name in yardstick lesson_kernels; do
    "$ncu" --clock-control none --csv --page raw --metrics "$metrics" "$out/$name" >"$out/ncu-$name.csv" 2>&1
done
# the source view: -lineinfo attributes each SASS instruction to a line; ncu counts per instruction
source_view() { # name program [args...]
    local name=$1
    shift
    "$ncu" --clock-control none --section SourceCounters --import-source yes --launch-count "$limit" -o "$out/$name-source" -f "$@" >"$out/$name-ncu.log" 2>&1
    python3 "$here/ncu_source_lines.py" "$out/$name-source.ncu-rep" >"$out/$name-lines.csv" 2>"$out/$name-lines.err" ||
        "$ncu" --import "$out/$name-source.ncu-rep" --page source --csv --print-source sass >"$out/$name-sass.csv" 2>&1
}
limit=1000
source_view yardstick "$out/yardstick"
source_view lesson_kernels "$out/lesson_kernels"
limit=40
for program in "$@"; do
    source_view "$(basename "$(dirname "$program")")" "$program"
done
rm -f "$out/yardstick" "$out/lesson_kernels"
grep -E '"(coalesced|strided|shared_|divergent|warp_uniform|contended)' "$out/ncu-yardstick.csv" | cut -c1-200 | head -20
