#!/usr/bin/env bash
# test_batch_grading.sh BACKEND -- `make grade` on a class of generated submissions for lesson 02:
#   solved       the reference solution, as a folder holding a copy of lessons/, with a changed
#                header that must be ignored (only the student's .cu is graded)
#   half-done    the solution without its grid-stride loop (02.3 fails), as a .tar.gz of a checkout
#   broken       a file that does not compile, as a .zip
#   forger       a file that tries to write full points into the grader's result, as a folder
# and checks gradebook.csv, every student's result.json (one schema, whatever happened) and
# Gradescope's results.json. Then the same class with attackers added (hostile_submissions.py:
# names with shell syntax, the gradebook's own names, archives that climb out, links to a
# classmate's files, bombs, lying zip headers): the run still exits 0, every other student's row is
# exactly what it was without them, every attacker gets 0 points and a status that says why, and
# nothing was written outside the gradebook. Then a submission that never returns, stopped at
# GRADE_BATCH_TIMEOUT with nothing left running; the unpacker (in the sandbox and without it) and
# the names under both Pythons (with and without tarfile.data_filter); `make student-release`, and
# `make check` inside it. Everything lives under a 0700 temporary folder, as under a 0700 home: the
# sandbox's uids reach it only through what the sandbox stages for them.
# Ends with "grading: N passed, M failed".
set -u
backend=$1
. tests/grade/checks.sh   # root, tmp (removed at exit), check DESCRIPTION COMMAND

l=02-vector-add
subs=$tmp/submissions
. tests/grade/class_02.sh   # the four files: class_files
f=$tmp/files
class_files "$f"
mk() { mkdir -p "$1/$l" && cp -r lessons/$l/. "$1/$l/"; }
mk "$subs/solved" && cp "$f/solved.cu" "$subs/solved/$l/vector_add.cu" && echo '#define vector_add_gpu cheat' >>"$subs/solved/$l/vector_add.h"
mkdir -p "$tmp/half/repo/lessons" && mk "$tmp/half/repo/lessons" && cp "$f/half.cu" "$tmp/half/repo/lessons/$l/vector_add.cu" &&
  tar -C "$tmp/half" -czf "$subs/half-done.tar.gz" repo
mk "$tmp/broken" && cp "$f/broken.cu" "$tmp/broken/$l/vector_add.cu" && (cd "$tmp/broken" && python3 -m zipfile -c "$subs/broken.zip" $l >/dev/null)
mk "$subs/forger" && cp "$f/malicious.cu" "$subs/forger/$l/vector_add.cu"

# The same class, attacked.
class=$tmp/class
mkdir -p "$class" && cp -a "$subs/." "$class/"
markers="/tmp/cuda-workbook-attack-name /tmp/cuda-workbook-zipslip-abs /cuda-workbook-zipslip $tmp/cuda-workbook-zipslip $root/cuda-workbook-zipslip"
rm -f $markers
python3 tests/grade/hostile_submissions.py "$class" lessons/$l "$class/solved/$l" "$tmp/hostile.json"
classmate() { (cd "$class/solved" && find . -type f -exec sha256sum {} + | sort | sha256sum); }
before=$(classmate)

export GRADE_SEED=20270115   # both gradings of the class grade the same inputs
out=$tmp/gradebook
start=$SECONDS
make -s grade BACKEND="$backend" SUBMISSIONS="$subs" LESSON=02 GRADEBOOK="$out" JOBS=2 >"$tmp/grade.log" 2>&1
rc=$?
check "make grade ran (exit 0, $((SECONDS - start)) s)" '[ $rc -eq 0 ] || { cat "$tmp/grade.log"; false; }'
out2=$tmp/gradebook-attacked
start=$SECONDS
make -s grade BACKEND="$backend" SUBMISSIONS="$class" LESSON=02 GRADEBOOK="$out2" JOBS=2 >"$tmp/grade-attacked.log" 2>&1
rc=$?
check "make grade of the class with $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/hostile.json") attackers ran (exit 0, $((SECONDS - start)) s)" \
  '[ $rc -eq 0 ] || { cat "$tmp/grade-attacked.log"; false; }'
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

check "the attackers change no classmate's row, get 0 points and a status that says why" "python3 - '$out' '$out2' '$tmp/hostile.json' '$class' <<'PY'
import csv, json, os, re, sys
base, att, hostile, cls = sys.argv[1:5]
read = lambda d: list(csv.reader(open(os.path.join(d, 'gradebook.csv'), newline='')))
b, a = read(base), read(att)
ok = True
if b[0] != a[0]: print('    headers differ: %s / %s' % (b[0], a[0])); ok = False
brows, arows = {r[0]: r for r in b[1:]}, {r[0]: r for r in a[1:]}
for s, r in brows.items():
    if arows.get(s) != r: print('    %s: %s without the attackers, %s with them' % (s, r, arows.get(s))); ok = False
    lb = json.load(open(os.path.join(base, s, 'result.json')))['lessons']['02-vector-add']
    la = json.load(open(os.path.join(att, s, 'result.json')))['lessons']['02-vector-add']
    if [(e['id'], e['status']) for e in lb['exercises']] != [(e['id'], e['status']) for e in la['exercises']]:
        print('    %s: exercises differ with the attackers' % s); ok = False
entries = [n for n in os.listdir(os.fsencode(cls)) if not n.startswith(b'.')]
if len(a) - 1 != len(entries): print('    %d rows for %d entries' % (len(a) - 1, len(entries))); ok = False
by_entry = {}
for s in arows:
    if not re.fullmatch(r'[A-Za-z0-9_][A-Za-z0-9._@+-]*', s): print('    unsafe name in the gradebook: %r' % s); ok = False
    by_entry[json.load(open(os.path.join(att, s, 'result.json')))['entry']] = arows[s]
for entry, words in json.load(open(hostile)):
    r = by_entry.get(entry)
    if not r or r[1:4] != ['0', '0', '10'] or words not in r[4]:
        print('    %r: row %s, expected 0 / 10 and a status with %r' % (entry, r, words)); ok = False
for row in a:
    for cell in row:
        if cell[:1] in ('=', '+', '-', '@'): print('    a cell a spreadsheet reads as a formula: %r' % cell); ok = False
extra = set(os.listdir(att)) - set(arows) - {'gradebook.csv', 'lms.csv', 'trees', '.grade-batch'}
if extra: print('    unexpected files in the gradebook folder: %s' % extra); ok = False
if set(os.listdir(os.path.join(att, 'trees'))) - set(arows): print('    unexpected trees'); ok = False
sys.exit(0 if ok else 1)
PY"
check "nothing written outside the gradebook, the classmate's folder untouched" \
  'left=$(ls -d $markers 2>/dev/null); [ -z "$left" ] && [ "$(classmate)" = "$before" ] || { echo "    left: $left"; false; }'

# A submission that never returns (its host code spins): stopped at GRADE_BATCH_TIMEOUT, and
# nothing it or the grader started keeps running (a snapshot of the grading's processes, taken
# shortly before the timeout, is dead afterwards).
mkdir -p "$tmp/slow/slow/$l" &&
  sed 's/^extern "C" cudaError_t vector_add_host(.*{$/&\n    for (volatile unsigned long spin = 1; spin; spin++) {}/' solutions/$l/vector_add.cu >"$tmp/slow/slow/$l/vector_add.cu"
descendants() {  # the processes below pid $1
  ps -eo pid=,ppid= | awk -v root="$1" '{ up[$1] = $2 } END { for (p in up) { x = p; while (x in up && x != root && x > 1) x = up[x]; if (x == root && p != root) print p } }'
}
start=$SECONDS
GRADE_BATCH_TIMEOUT=12 make -s grade BACKEND="$backend" SUBMISSIONS="$tmp/slow" LESSON=02 GRADEBOOK="$tmp/slow-gradebook" >"$tmp/slow.log" 2>&1 &
grader=$!
sleep 10
seen=$(descendants $grader)
seen_names=$(for p in $seen; do cat /proc/$p/comm 2>/dev/null; done | sort -u | tr '\n' ' ')
wait $grader
rc=$?
took=$((SECONDS - start))
sleep 0.5
left=$(for p in $seen; do [ -e /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && echo "$p"; done)
check "a submission that never returns is stopped at GRADE_BATCH_TIMEOUT (exit 0, $took s), nothing left running (of: $seen_names)" \
  '[ $rc -eq 0 ] && [ $took -lt 40 ] && grep -q "^slow,0,0,10,error: grading took longer than 12 s" "$tmp/slow-gradebook/gradebook.csv" && [ -n "$seen" ] && [ -z "$left" ] ||
   { cat "$tmp/slow.log"; echo "    left running: $left"; for p in $left; do kill -9 "$p" 2>/dev/null; done; false; }'

# The unpacker and the names, under the Python on PATH and the system's (3.11.2: no tarfile.data_filter):
# every archive kind and a folder, read in the sandbox where it can box here and in the plain child;
# the box's command line (the system's Python, a copy of the archive under a name of ours, the
# unpacker's two modules) and its time limit; then the names, the CSV cells and make check's
# environment.
for py in python3 /usr/bin/python3; do
  command -v $py >/dev/null || continue
  check "unpacking and names under $py ($($py -c 'import sys, tarfile; print(sys.version.split()[0], "with" if hasattr(tarfile, "data_filter") else "without", "data_filter")'))" \
    "$py -B - '$tmp' '$class' <<'PY'
import os, shutil, sys, tarfile, zipfile
sys.path.insert(0, 'tools')
import grade_batch   # the driver imports under this Python too
import batch_gather as bg, batch_names as bn, batch_processes as bp, batch_workbook as bw
from batch_refused import Refused
tmp, cls = sys.argv[1:3]
ok = True
lesson = '02-vector-add'
wanted = bw.wanted_files([lesson])
src = open('solutions/%s/vector_add.cu' % lesson, 'rb').read()
d = os.path.join(tmp, 'unit-%d' % sys.version_info[2])
os.makedirs(os.path.join(d, 'repo', 'lessons', lesson))
open(os.path.join(d, 'repo', 'lessons', lesson, 'vector_add.cu'), 'wb').write(src)
os.symlink('/usr/bin/python3', os.path.join(d, 'repo', 'python'))   # a link elsewhere: skipped, no harm
for ext, mode in (('.tar.xz', 'w:xz'), ('.tar.bz2', 'w:bz2'), ('.tgz', 'w:gz'), ('.tar', 'w')):
    with tarfile.open(os.path.join(d, 's' + ext), mode) as t:
        t.add(os.path.join(d, 'repo'), 'repo')
with zipfile.ZipFile(os.path.join(d, 's.zip'), 'w') as z:
    z.writestr('repo\\\\lessons\\\\%s\\\\vector_add.cu' % lesson, src)   # a Windows zip tool's separators
sandbox, why_not = bg.find_sandbox()
if why_not: print('    (no sandbox here: %s)' % why_not)
commands = []
run_child = bg.run_child
def spy(cmd, fds, limit):
    commands.append(cmd)
    return run_child(cmd, fds, limit)
bg.run_child = spy
for box in [sandbox, None] if sandbox else [None]:
    for name, kind in [('s.tar.xz', 'archive'), ('s.tar.bz2', 'archive'), ('s.tgz', 'archive'), ('s.tar', 'archive'), ('s.zip', 'archive'), ('repo', 'folder')]:
        try:
            got = bg.gather(os.path.join(d, name), kind, wanted, box)
            if got != {(lesson, 'vector_add.cu'): src}: print('    %s: %s' % (name, got)); ok = False
        except Refused as e:
            print('    %s refused (sandbox: %s): %s' % (name, box, e)); ok = False
    for name, words in [('shadow.tar', 'is a link'), ('slip.zip', '..'), ('bomb.tar.bz2', '256 MiB')]:
        try:
            bg.gather(os.path.join(cls, name), 'archive', wanted, box); print('    %s not refused' % name); ok = False
        except Refused as e:
            if words not in str(e): print('    %s: %s' % (name, e)); ok = False
if sandbox:
    boxed = [c for c in commands if c[0] == sandbox]
    if len(boxed) != 8 or any(c[c.index('--') + 1] != '/usr/bin/python3' or os.path.basename(c[c.index('--ro') + 1]) != 'archive'
                              or any(d in a for a in c) or sorted(os.path.basename(c[i + 1]) for i, a in enumerate(c) if a == '--ro')
                              != ['archive', 'batch_refused.py', 'batch_unpack.py'] for c in boxed):
        print('    the box\'s commands: %s' % boxed); ok = False
    bg.UNPACK_TIMEOUT = 0.2   # the sandbox's own limit, stopping the bomb (most of a second to read)
    try:
        bg.gather(os.path.join(cls, 'bomb.tar.bz2'), 'archive', wanted, sandbox); print('    the slow bomb not stopped'); ok = False
    except Refused as e:
        if 'took longer than 0.2 s' not in str(e): print('    slow bomb: %s' % e); ok = False
names = bn.assign_names(['alice', 'Bob.zip', 'Jos\u00e9 Garc\u00eda.tgz', '-rf', '+1', 'trees', 'carol', 'Carol.tar', '@x'])
for raw, (n, why) in names.items():
    if not bn.SAFE_NAME.match(n) or n.lower() in bn.RESERVED: print('    %r named %r' % (raw, n)); ok = False
if names['alice'] != ('alice', None) or names['Bob.zip'] != ('Bob', None) or not names['Jos\u00e9 Garc\u00eda.tgz'][0].startswith('Jose_Garcia-') \
        or names['carol'][0] == 'carol' or names['Carol.tar'][0] == 'Carol' or names['trees'][0] == 'trees':
    print('    names: %s' % names); ok = False
if bn.csv_cell('=1+1') != \"'=1+1\" or bn.csv_cell('@SUM') != \"'@SUM\" or bn.csv_cell(3) != 3: print('    csv cells'); ok = False
os.environ.update(SECRET_TOKEN='x', GRADE_JSON='/tmp/x', GRADE_BATCH_TIMEOUT='9', GRADE_SANITIZE='0', CK_VERBOSITY='verbose', LC_ALL='C')
env = bp.clean_env('sim')
if 'SECRET_TOKEN' in env or 'GRADE_JSON' in env or 'GRADE_BATCH_TIMEOUT' in env or 'HOME' in env or env.get('GRADE_SANITIZE') != '0' \
        or env.get('CK_VERBOSITY') != 'verbose' or env.get('BACKEND') != 'sim' or env.get('LC_ALL') != 'C':
    print('    environment: %s' % sorted(env)); ok = False
shutil.rmtree(d)
sys.exit(0 if ok else 1)
PY"
done

rel=build/student-release/cuda-workbook
make -s student-release >"$tmp/release.log" 2>&1
check "make student-release leaves out solutions/ and tests/wrong/" '[ -d $rel/lessons ] && [ ! -e $rel/solutions ] && [ ! -e $rel/tests/wrong ] && [ -f $rel.tar.gz ]'
# The release gets a simulator library of its own, never a link to this tree's: its make check would
# write through a link into the library that every other test of make test is linking against (a
# copy onto itself, through such a link, truncated an object inside libsimcuda-asan.a while the Slurm
# and simulator tests linked: "compile error" rows and "out of memory allocating" link errors).
rm -rf "$rel/build/simlib"
# The release's first make check builds the simulator's library, as a student's does. Its sources are
# this tree's, byte for byte (checked), so this tree's build of them is copied in, newer than the
# copies, instead of built again: 70 CPU-seconds of make test on two cores. (Sources that differ, or
# are missing from the release, are built there as before.)
if [ -f build/simlib/libsimcuda-asan.a ] && diff -rq sim "$rel/sim" >/dev/null; then
  mkdir -p "$rel/build/simlib" && tar -C build/simlib --exclude=./pch -cf - . | tar -C "$rel/build/simlib" -xf - &&
    find "$rel/build/simlib" -exec touch {} +
fi
(cd $rel && make -s check LESSON=02 BACKEND="$backend" >"$tmp/release-check.log" 2>&1)
check "make check works in the student release (the skeleton fails, with a valid result)" \
  '[ $? -ne 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"points\"] == 0 and len(d[\"exercises\"]) == 4 else 1)" '"$rel/build/$backend/results/02-vector-add.json"' || { tail -20 "$tmp/release-check.log"; false; }'
echo "grading: $pass passed, $fail failed"
[ $fail -eq 0 ]
