#!/usr/bin/env bash
# ncu_yardstick.sh OUT_DIR -- on a machine with an NVIDIA GPU and Nsight Compute: the profiler's
# yardstick (tests/sim/profile/yardstick.cu, the program the simulator's Check suite profiles) built
# with nvcc -lineinfo and measured by ncu with the metrics the simulator reports, so the two can be
# compared line for line (docs/results/profiler.md records the outcome).
#   OUT_DIR/ncu-yardstick.csv   one row per kernel: requests, sectors, bank conflicts, threads per
#                               instruction, branch targets and divergent ones
#   OUT_DIR/ncu-source.csv      per CUDA source line of the `divergent` kernel (where ncu can print it)
set -u
out=${1:?usage: ncu_yardstick.sh OUT_DIR}
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets.sum,smsp__sass_branch_targets_threads_divergent.sum,smsp__sass_branch_targets_threads_uniform.sum
nvcc -O2 -arch=sm_90 -lineinfo -o "$out/yardstick" tests/sim/profile/yardstick.cu || exit 1
"$ncu" --clock-control none --csv --page raw --metrics "$metrics" "$out/yardstick" >"$out/ncu-yardstick.csv" 2>&1
"$ncu" --clock-control none --section SourceCounters --import-source yes -k divergent -o "$out/divergent" -f "$out/yardstick" >/dev/null 2>&1 &&
  "$ncu" --import "$out/divergent.ncu-rep" --page source --print-source cuda --csv >"$out/ncu-source.csv" 2>&1
rm -f "$out/yardstick" "$out/divergent.ncu-rep"
grep -E '"(coalesced|strided|shared_|divergent|warp_uniform|contended)' "$out/ncu-yardstick.csv" | cut -c1-200 | head -20
