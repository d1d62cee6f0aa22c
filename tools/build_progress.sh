#!/usr/bin/env bash
# build_progress.sh LOG MAKE ARG... -- runs a build (make with its arguments) with its output in
# LOG, and shows one progress line instead of its compile lines: "building: 12/140". make check
# runs it before grading, so that a first run (which builds the simulator and every lesson) says
# what it is doing and how far it got. The steps are counted beforehand with `make -n`: each
# step's recipe prints one "  CXX     file" line (the Makefile's `say`). Exits with make's status.
set -u
log=$1
shift
total=$("$@" -n 2>/dev/null | grep -c "^printf '  %-7s %s")
if [ "$total" -eq 0 ]; then
  "$@" >"$log" 2>&1
  exit
fi
first=$([ -e "${SIMCC_LIBDIR:-/nonexistent}/libsimcuda-asan.a" ] || echo " (the simulator and every lesson: about a minute the first time; then only what changed)")
steps_done() { grep -c '^  [A-Z][A-Z]* ' "$log" 2>/dev/null; }
start=$(date +%s)
"$@" >"$log" 2>&1 &
pid=$!
if [ -t 1 ]; then
  while kill -0 "$pid" 2>/dev/null; do
    printf '\r  building%s: %d/%d ' "$first" "$(steps_done)" "$total"
    sleep 0.5
  done
  # the count once more: the last steps may have ended since the last look
  printf '\r  building%s: %d/%d \n' "$first" "$(steps_done)" "$total"
else
  echo "  building $total steps$first"
fi
wait "$pid"
status=$?
echo "  built in $(($(date +%s) - start)) s$([ $status = 0 ] || echo ": some of it failed (below, lesson by lesson); the whole log: $log")"
exit $status
