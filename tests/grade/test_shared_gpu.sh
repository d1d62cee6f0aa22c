#!/usr/bin/env bash
# test_shared_gpu.sh BACKEND [LOG_DIR] -- gradings that share one GPU give the gradebook that
# gradings one at a time give. A class of four -- three students with the reference solutions,
# one with a wrong variant in each lesson (02: no grid-stride loop; 07: an uncoalesced index, which
# the profiler must catch) -- is graded with `make grade JOBS=1` and with `make grade JOBS=4`, for
# each of lessons 02 and 07 (SHARED_GPU_LESSONS="02 07" chooses others), and:
#   * every solution passes every exercise and the wrong variant fails exactly its exercise, in
#     both gradebooks (no UNCHECKED, no "called exit()" in any check.log);
#   * both gradebooks hold the same points and statuses per student, and every result.json the same
#     status per exercise (times and paths aside);
#   * the profiler passes took turns: the GPU's lock (GRADE_GPU_LOCK_LOG, common/judge_gpu_lock.c)
#     was never held by an Nsight Compute pass (exclusive) beside any other pass (sanitizer passes
#     share it). On a GPU every passed exercise runs compute-sanitizer
#     and lesson 07 Nsight Compute, in four gradings at once on one GPU; on the simulator, which
#     needs neither, the lock is idle and the rest still holds.
# LOG_DIR (optional) receives the gradebooks, a check.log of each grading and the lock's log.
# Ends with "shared gpu: N passed, M failed".
set -u
backend=$1
logs=${2:-}
. tests/grade/checks.sh   # root, tmp (removed at exit), check DESCRIPTION COMMAND
[ -n "$logs" ] && mkdir -p "$logs"

lessons=${SHARED_GPU_LESSONS:-02 07}
declare -A wrong=([02]=no_grid_stride_loop [07]=copy_uncoalesced_index)
declare -A wrong_ex=([02]=02.3 [07]=07.1)

# The class: each student a folder with a copy of lessons/ holding the graded files.
subs=$tmp/submissions
for n in solved-1 solved-2 solved-3 wrong; do
  for l in $lessons; do
    d=$(cd lessons && ls -d "$l"-*)
    mkdir -p "$subs/$n/$d"
    cp "solutions/$d"/*.cu "$subs/$n/$d/"
    if [ "$n" = wrong ]; then
      for f in "$subs/$n/$d"/*.cu; do patch -s "$f" <"tests/wrong/$d/${wrong[$l]}.patch" || exit 1; done
    fi
  done
done

export GRADE_SEED=20270201 # every grading grades the same inputs
for l in $lessons; do
  d=$(cd lessons && ls -d "$l"-*)
  for jobs in 1 4; do
    out=$tmp/gradebook-$l-jobs$jobs
    start=$SECONDS
    GRADE_GPU_LOCK_LOG=$tmp/lock-$l-jobs$jobs.log make -s grade BACKEND="$backend" SUBMISSIONS="$subs" LESSON="$l" GRADEBOOK="$out" \
      JOBS=$jobs >"$tmp/grade-$l-$jobs.log" 2>&1
    rc=$?
    check "make grade LESSON=$l JOBS=$jobs ran (exit 0, $((SECONDS - start)) s)" '[ $rc -eq 0 ] || { cat "$tmp/grade-$l-$jobs.log"; false; }'
    if [ -n "$logs" ]; then
      cp "$out/gradebook.csv" "$logs/gradebook-$l-jobs$jobs.csv" 2>/dev/null
      cat "$out"/*/check.log >"$logs/check-$l-jobs$jobs.log" 2>/dev/null
      cp "$tmp/lock-$l-jobs$jobs.log" "$logs/" 2>/dev/null
    fi
    check "lesson $l, JOBS=$jobs: the solutions pass everything, the wrong variant fails ${wrong_ex[$l]} only" "python3 - '$out' '$d' '${wrong_ex[$l]}' <<'PY'
import json, os, sys
out, lesson, bad = sys.argv[1:4]
ok = True
for s in ('solved-1', 'solved-2', 'solved-3', 'wrong'):
    r = json.load(open(os.path.join(out, s, 'result.json')))
    ex = (r['lessons'].get(lesson) or {}).get('exercises', [])
    want = {e['id']: ('failed' if s == 'wrong' and e['id'] == bad else 'passed') for e in ex}
    got = {e['id']: e['status'] for e in ex}
    if not ex or got != want or r['status'] != 'graded':
        print('    %s: %s (%s), expected %s' % (s, got, r['status'], want)); ok = False
        for e in ex:
            if e['status'] != want[e['id']]: print('      %s: %s' % (e['id'], e['message'][:600].replace('\n', ' ')))
    log = open(os.path.join(out, s, 'check.log'), errors='replace').read()
    if 'called exit()' in log or 'UNCHECKED' in log:
        print('    %s: check.log blames a profiler\'s end on the student or leaves something unchecked' % s); ok = False
sys.exit(0 if ok else 1)
PY"
  done
  check "lesson $l: JOBS=4 gives JOBS=1's gradebook (points and statuses per student and exercise)" "python3 - '$tmp/gradebook-$l-jobs1' '$tmp/gradebook-$l-jobs4' '$d' <<'PY'
import csv, json, os, sys
a, b, lesson = sys.argv[1:4]
def book(d):
    rows = {r[0]: r for r in list(csv.reader(open(os.path.join(d, 'gradebook.csv'))))[1:]}
    ex = {s: [(e['id'], e['status'], e['passed'], e['points']) for e in json.load(open(os.path.join(d, s, 'result.json')))['lessons'][lesson]['exercises']]
          for s in rows}
    return rows, ex
(ra, ea), (rb, eb) = book(a), book(b)
ok = ra == rb and ea == eb
if not ok:
    print('    JOBS=1: %s\n    JOBS=4: %s' % (sorted(ra.values()), sorted(rb.values())))
    for s in ea:
        if ea[s] != eb.get(s): print('    %s: %s / %s' % (s, ea[s], eb.get(s)))
sys.exit(0 if ok else 1)
PY"
  check "lesson $l: no Nsight Compute pass held the GPU beside another pass ($(cat "$tmp"/lock-$l-jobs*.log 2>/dev/null | wc -l) passes)" "python3 - '$tmp/lock-$l-jobs4.log' '$backend' <<'PY'
import os, sys
path, backend = sys.argv[1:3]
held = [tuple(l.split()) for l in open(path)] if os.path.exists(path) else []
held = [(float(a), float(b), pid, how) for a, b, pid, _gpu, how in held]
if backend == 'gpu' and not held:
    print('    no pass took the GPU lock: were compute-sanitizer and ncu found?'); sys.exit(1)
# sanitizer passes share the GPU (shared); an ncu pass (exclusive) overlaps nothing
bad = [(x, y) for i, x in enumerate(held) for y in held[i + 1:]
       if 'exclusive' in (x[3], y[3]) and x[0] < y[1] and y[0] < x[1]]
for x, y in bad[:5]: print('    pids %s (%s) and %s (%s) held GPU at once: %s / %s' % (x[2], x[3], y[2], y[3], x[:2], y[:2]))
sys.exit(1 if bad else 0)
PY"
done
waits=$(cat "$tmp"/gradebook-*-jobs4/*/check.log 2>/dev/null | grep -c "waiting for another grading's profiler pass")
echo "  (JOBS=4: $waits long wait(s) for the GPU's lock announced)"
echo "shared gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]
