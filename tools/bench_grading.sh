#!/usr/bin/env bash
# bench_grading.sh BUILD_DIR WHO LESSON... -- how long grading takes, per lesson: the judge run on
# WHO's runner (solution or student), as `make check` runs it, timed from the judge's start to its
# verdict (the programs are built beforehand: building is not grading). Prints a Markdown table
# with the backend, the machine, and per lesson the wall time and the points; then the total. `make bench-grading` runs it on the reference solutions.
# BENCH_GRADING_RUNS=N: the median of N runs per lesson (default 1); BENCH_GRADING_LOGS=DIR keeps
# each lesson's grading output there.
set -u
b=$1 who=$2
shift 2
backend=$(basename "$b")
runs=${BENCH_GRADING_RUNS:-1}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
machine="$(nproc) cores ($cpu)${gpu:+, $gpu}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "Grading times: $who, backend $backend, on $machine, $(date -u +%Y-%m-%d)"
echo
echo "| lesson | seconds | points | where the time went (GRADE_TIMES) |"
echo "|---|---:|---|---|"
total=0
status=0
for l in "$@"; do
  walls=()
  for ((r = 0; r < runs; r++)); do
    rm -f "$tmp/result.json" "$tmp/times"
    start=$(date +%s.%N)
    GRADE_TIMES=$tmp/times GRADE_LESSON=$l GRADE_JSON=$tmp/result.json GRADE_RUNNER=$b/$who/$l/runner "$b/judge/$l/judge" >"$tmp/log" 2>&1
    echo $? >"$tmp/rc"
    end=$(date +%s.%N)
    [ -z "${BENCH_GRADING_LOGS:-}" ] || { cp "$tmp/log" "$BENCH_GRADING_LOGS/$l.log"; cp "$tmp/times" "$BENCH_GRADING_LOGS/$l.times" 2>/dev/null
      for x in "$tmp"/times.*.xml; do [ -e "$x" ] && mv "$x" "$BENCH_GRADING_LOGS/$l.${x#"$tmp"/times.}"; done; }
    rm -f "$tmp"/times.*.xml
    walls+=("$(awk "BEGIN { print $end - $start }")")
  done
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
  points=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%s/%s" % (d.get("points"), d.get("total_points")))' "$tmp/result.json" 2>/dev/null || echo "no result")
  [ "$(cat "$tmp/rc")" = 0 ] || { status=1; points="$points (failed: see make check LESSON=${l%%-*})"; }
  # the last run's phases, added up over the exercises: "tests 3.1 (in the runner 2.2, the judge 0.9;
  # ncu passes 1.2), sanitizer 20.4; 9 runner starts 4.0": the runner's part is the student's
  # functions, kernels and copies; the judge's, making inputs and references and comparing
  where=$(awk '{ if ($2 ~ /^starts-/) { n += substr($2, 8); st += $3 } else if ($2 ~ /^sanitizer-/) san += $3; else t[$2] += $3 }
    END { printf "tests %.1f (in the runner %.1f, the judge %.1f", t["tests"], t["runner-calls"], t["tests"] - t["runner-calls"];
          if (t["ncu"] > 0) printf "; ncu passes %.1f", t["ncu"]; printf ")"; if (san > 0) printf ", sanitizer %.1f", san;
          printf "; %d runner starts %.1f", n, st }' "$tmp/times" 2>/dev/null)
  printf '| %s | %.1f | %s | %s |\n' "$l" "$wall" "$points" "$where"
  total=$(awk "BEGIN { print $total + $wall }")
done
printf '| **all %d** | **%.1f** | | |\n' "$#" "$total"
exit $status
