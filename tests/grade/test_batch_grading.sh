#!/usr/bin/env bash
# test_batch_grading.sh BACKEND -- `make grade` on a class of generated submissions for lesson 02:
#   solved       the reference solution, as a folder holding a copy of lessons/, with a changed
#                header that must be ignored (only the student's .cu is graded)
#   half-done    the solution without its grid-stride loop (02.3 fails), as a .tar.gz of a checkout
#   broken       a file that does not compile, as a .zip
#   forger       a file that tries to write full points into the grader's result, as a folder
# and checks gradebook.csv, every student's result.json (one schema, whatever happened) and
# Gradescope's results.json. Then `make student-release`, and `make check` inside it.
# Ends with "grading: N passed, M failed".
set -u
backend=$1
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { if eval "$2"; then pass=$((pass + 1)); echo "  ok    $1"; else fail=$((fail + 1)); echo "  FAIL  $1"; fi; }

l=02-vector-add
subs=$tmp/submissions
mk() { mkdir -p "$1/$l" && cp -r lessons/$l/. "$1/$l/"; }
mk "$subs/solved" && cp solutions/$l/vector_add.cu "$subs/solved/$l/" && echo '#define vector_add_gpu cheat' >>"$subs/solved/$l/vector_add.h"
mkdir -p "$tmp/half/repo/lessons" && mk "$tmp/half/repo/lessons" && cp solutions/$l/vector_add.cu "$tmp/half/repo/lessons/$l/" &&
  patch -s "$tmp/half/repo/lessons/$l/vector_add.cu" < tests/wrong/$l/no_grid_stride_loop.patch &&
  tar -C "$tmp/half" -czf "$subs/half-done.tar.gz" repo
mk "$tmp/broken" && echo "this is not C++;" >>"$tmp/broken/$l/vector_add.cu" && (cd "$tmp/broken" && python3 -m zipfile -c "$subs/broken.zip" $l >/dev/null)
mk "$subs/forger" && cp solutions/$l/vector_add.cu "$subs/forger/$l/" && patch -s "$subs/forger/$l/vector_add.cu" < tests/wrong/$l/attack_forge_results.patch

out=$tmp/gradebook
make -s grade BACKEND="$backend" SUBMISSIONS="$subs" LESSON=02 GRADEBOOK="$out" JOBS=2 >"$tmp/grade.log" 2>&1
check "make grade ran (exit 0)" '[ $? -eq 0 ] || { cat "$tmp/grade.log"; false; }'
sleep 1.5  # anything the forger left behind would have rewritten its result by now
check "gradebook.csv and every student's files are right" "python3 - '$out' <<'PY'
import csv, json, os, sys
out = sys.argv[1]
rows = {r['student']: r for r in csv.DictReader(open(os.path.join(out, 'gradebook.csv')))}
want = {'solved': (10, 'graded'), 'half-done': (7, 'graded'), 'broken': (0, 'compile error in 02-vector-add'),
        'forger': (0, 'graded')}
ok = True
for s, (points, status) in want.items():
    r = rows.get(s)
    if not r or int(r['total']) != points or r['status'] != status or int(r['max']) != 10 or int(r['02-vector-add']) != points:
        print('    gradebook row for %s: %s, expected %d points, status %s' % (s, r, points, status)); ok = False
    d = json.load(open(os.path.join(out, s, 'result.json')))
    lesson = d['lessons']['02-vector-add']
    for key in ('schema', 'lesson', 'status', 'backend', 'seed', 'exercises', 'points', 'total_points', 'files', 'grader_commit', 'timestamp'):
        if key not in lesson: print('    %s: result.json lacks %s' % (s, key)); ok = False
    if len(lesson['exercises']) != 4 or lesson['points'] != points: print('    %s: %s' % (s, lesson)); ok = False
    if not lesson['files'] or len(lesson['files'][0]['sha256']) != 64: print('    %s: no file hash' % s); ok = False
    g = json.load(open(os.path.join(out, s, 'results.json')))
    if g['score'] != points or len(g['tests']) != 4 or any(set(t) < {'name', 'score', 'max_score', 'output'} for t in g['tests']):
        print('    %s: Gradescope results.json: %s' % (s, g)); ok = False
sys.exit(0 if ok else 1)
PY"

rel=build/student-release/cuda-workbook
make -s student-release >"$tmp/release.log" 2>&1
check "make student-release leaves out solutions/ and tests/wrong/" '[ -d $rel/lessons ] && [ ! -e $rel/solutions ] && [ ! -e $rel/tests/wrong ] && [ -f $rel.tar.gz ]'
if [ "$backend" = sim ]; then mkdir -p $rel/build && ln -sfn "$root/build/simlib" $rel/build/simlib; fi
(cd $rel && make -s check LESSON=02 BACKEND="$backend" >"$tmp/release-check.log" 2>&1)
check "make check works in the student release (the skeleton fails, with a valid result)" \
  '[ $? -ne 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"points\"] == 0 and len(d[\"exercises\"]) == 4 else 1)" '"$rel/build/$backend/results/02-vector-add.json"' || { tail -20 "$tmp/release-check.log"; false; }'
echo "grading: $pass passed, $fail failed"
[ $fail -eq 0 ]
