#!/usr/bin/env bash
# gpu_grading_speed.sh OUT -- on a GPU machine: how long grading takes, and that the faster
# sanitizer passes still catch what they are for. Builds the judges, the reference solutions and
# the wrong variants marked `sanitize: yes` (nvcc, every core), then:
#   1. make bench-grading: every lesson's reference graded alone, with where the time went;
#   2. each `sanitize: yes` variant graded on its whole lesson: it must fail on its own exercise,
#      named by the sanitizer (the variant's exercise from tools/patch_exercise.py), and no other
#      exercise of the lesson may fail.
# Logs and a summary (OUT/summary.txt) under OUT. The results are in docs/results/grading-speed.md.
set -u
out=${1:?usage: gpu_grading_speed.sh OUT}
mkdir -p "$out/logs"
b=build/gpu
lessons=$(ls lessons)
variants=$(grep -l '^sanitize: yes' tests/wrong/*/*.patch)
targets=
for l in $lessons; do targets="$targets $b/judge/$l/judge $b/solution/$l/runner"; done
for p in $variants; do l=$(basename "$(dirname "$p")"); targets="$targets $b/wrong-$(basename "$p" .patch)/$l/runner"; done
t0=$(date +%s)
make -j"$(nproc)" -k -s BACKEND=gpu $targets >"$out/build.log" 2>&1
rc=$?
echo "build: $(($(date +%s) - t0)) s (make's status $rc)" | tee "$out/summary.txt"
BENCH_GRADING_LOGS=$out/logs make -s BACKEND=gpu bench-grading 2>&1 | tee -a "$out/summary.txt"
export GRADE_SANITIZER=${GRADE_SANITIZER:-$(command -v compute-sanitizer)} GRADE_NCU=${GRADE_NCU:-$(command -v ncu)}
echo "== sanitize: yes variants, each graded on its whole lesson" | tee -a "$out/summary.txt"
for p in $variants; do
  l=$(basename "$(dirname "$p")") name=$(basename "$p" .patch)
  ex=$(python3 tools/patch_exercise.py "$p" solutions/"$l"/*.cu 2>/dev/null)
  log=$out/logs/wrong-$name.log
  start=$(date +%s.%N)
  GRADE_LESSON=$l GRADE_RUNNER=$b/wrong-$name/$l/runner "$b/judge/$l/judge" >"$log" 2>&1
  secs=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
  failed=$(grep -E '^[0-9]{2}\.[0-9]+ +FAIL' "$log" | awk '{ print $1 }' | tr '\n' ' ')
  by=$(grep -o -m1 'compute-sanitizer --tool [a-z]*' "$log" || echo "not the sanitizer")
  # its own exercise fails (any one, where tools/patch_exercise.py cannot tell which), and any
  # other that fails is one its description names ("10.1 (and 10.2, which uses it)")
  verdict=ok
  named=$(sed -n '1,/^--- /p' "$p" | grep -oE '\b[0-9]{2}\.[0-9]+\b' | tr '\n' ' ')
  if [ -z "$failed" ]; then verdict="WRONG (nothing failed)"
  elif [ -n "$ex" ] && [[ " $failed" != *" $ex "* ]]; then verdict="WRONG (expected $ex to fail)"
  else for f in $failed; do [ "$f" = "$ex" ] || [[ " $named " == *" $f "* ]] || [ -z "$ex" ] || verdict="WRONG ($f failed too; expected $ex)"; done; fi
  echo "$l $name: failed [${failed% }] by $by in $secs s: $verdict" | tee -a "$out/summary.txt"
done
