#!/usr/bin/env bash
# gpu_check_whole.sh OUT_DIR -- on a machine with an NVIDIA GPU: the whole workbook, solved, graded
# the way a student grades it (`make check`, compute-sanitizer and Nsight Compute on), one lesson at
# a time and side by side (CHECK_GRADE_JOBS=4, tools/grade_lessons.sh), with each run's time and
# every exercise's verdict compared: side by side must give what one at a time gives (here: every
# exercise passed). The reference solutions are copied over lessons/ for the runs and the
# student's files put back afterwards. Logs in OUT_DIR, a line per run in OUT_DIR/summary.txt.
# CHECK_WHOLE_RUNS: the runs' CHECK_GRADE_JOBS, in order (default "1 4 4": one at a time, then twice
# side by side); every run is compared with the first.
set -u
out=${1:?usage: gpu_check_whole.sh OUT_DIR}
mkdir -p "$out"
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
keep=$(mktemp -d)
trap 'cp -a "$keep"/lessons/. lessons/; rm -rf "$keep"' EXIT
mkdir -p "$keep/lessons"
for d in solutions/*/; do
  l=$(basename "$d")
  mkdir -p "$keep/lessons/$l"
  for f in "$d"*.cu "$d"*.py; do
    [ -f "$f" ] || continue
    cp -p "lessons/$l/$(basename "$f")" "$keep/lessons/$l/" 2>/dev/null
    cp "$f" "lessons/$l/"
  done
done
# the build first, so that the runs time grading only
make -s -k -j"$(nproc)" BACKEND=gpu $(for l in $(ls lessons); do echo build/gpu/judge/$l/judge build/gpu/student/$l/runner; done) >"$out/build.log" 2>&1
n=0
for jobs in ${CHECK_WHOLE_RUNS:-1 4 4}; do
  n=$((n + 1))
  t=$SECONDS
  make -s BACKEND=gpu check CHECK_GRADE_JOBS="$jobs" >"$out/check-$n-jobs$jobs.log" 2>&1
  rc=$?
  python3 - "$out/verdicts-$n.txt" build/gpu/results/*.json <<'EOF'
import json, sys
with open(sys.argv[1], "w") as out:
    for path in sys.argv[2:]:
        r = json.load(open(path))
        for e in r["exercises"]:
            out.write("%s %s\n" % (e["id"], e["status"]))
EOF
  passed=$(grep -c ' passed$' "$out/verdicts-$n.txt")
  total=$(wc -l <"$out/verdicts-$n.txt")
  same=$([ $n = 1 ] && echo "" || { cmp -s "$out/verdicts-1.txt" "$out/verdicts-$n.txt" && echo ", the same verdicts as run 1" || echo ", OTHER verdicts than run 1: $(diff "$out/verdicts-1.txt" "$out/verdicts-$n.txt" | grep '^>' | head -3 | tr '\n' ' ')"; })
  say "run $n: make check CHECK_GRADE_JOBS=$jobs: $((SECONDS - t)) s, exit $rc, $passed of $total exercises passed$same"
  grep -E '^[0-9]{2}\.[0-9]+ +(FAIL|UNCHECKED)' "$out/check-$n-jobs$jobs.log" | head -5 | tee -a "$out/summary.txt"
done
