# tools/gpu/bench_twice.sh -- sourced by hist_sweep.sh and sgemm_sweep.sh, which both start from
# lesson 18's reference benchmark: it run twice (two runs, so that the best row is not one lucky
# run), and the best row of one of its step tables. Both need $out (the log folder) and $mk (make
# with the GPU build's variables) set first.

# bench_twice SECONDS FIRST SECOND: make bench LESSON=18 SOLUTION=1 twice, each within SECONDS, into
# $out/bench-1.log and $out/bench-2.log; prints run 1's lines matching FIRST and run 2's matching SECOND.
bench_twice() {
  for r in 1 2; do
    timeout "$1" $mk bench LESSON=18 SOLUTION=1 >"$out/bench-$r.log" 2>&1
  done
  grep -hE "$2" "$out/bench-1.log"
  echo "-- run 2:"
  grep -hE "$3" "$out/bench-2.log"
}

# best_row ROWS RATIO_WORD [PATTERN]: the 0-based index, among the rows matching ROWS (a step table's
# rows, in order), of the one (matching PATTERN too, when given) whose ratio (the number before
# RATIO_WORD) summed over the runs is highest; nothing when no such row was timed.
best_row() {
  awk -v rows="$1" -v word="$2" -v pat="${3:-}" '
    FNR == 1 { k = 0 }
    $0 ~ rows { if ($0 ~ pat && $NF == word) sum[k] += $(NF - 2); k++ }
    END { for (i in sum) if (best == "" || sum[i] > sum[best]) best = i; if (best != "") print best }' "$out"/bench-*.log
}
