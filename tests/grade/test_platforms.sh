#!/usr/bin/env bash
# test_platforms.sh BACKEND -- grading where instructors already grade (make test-platforms), on
# lesson 02 and four submissions: solved, half done (no grid-stride loop: 02.3 fails), not compiling,
# malicious (the reference with attack_forge_results.patch, which also writes forged results.json
# files into every autograder's results folder and a file into the autograder's workbook).
#   Gradescope   make autograder LESSON=02: setup.sh and run_autograder at the zip's root, setup.sh
#                installing the README's student line, no solutions; the zip unpacked as Gradescope
#                does, run_autograder run for each submission (as Gradescope shows them: a file alone,
#                a checkout, a lesson folder) with its own AUTOGRADER_ROOT, two at a time: every
#                results.json fits Gradescope's specification (check_gradescope.py, which first checks
#                itself), has one test per exercise, and gives each exercise the points make grade
#                gives the same submissions with the same GRADE_SEED; the malicious one 0, nothing
#                forged anywhere, the unpacked autograder unchanged.
#   LMS          make grade's lms.csv: Canvas's identifying columns, one column of points per lesson,
#                the gradebook's points, no cell a spreadsheet reads as a formula.
#   Classroom    .github/classroom/autograding.yml is current, parses (PyYAML, and a structural check
#                without it), has one command-grader step per exercise, each `make check LESSON=NN
#                EX=NN.k` with the exercise's points, adding up to each lesson's total, and a reporter
#                that reads every step; `make classroom` writes lesson 02's into a graded tree, where
#                its commands give the solved submission all 10 points and the malicious one none.
#   similarity   make similarity on five students: a copy with other names and layout is the top pair,
#                a different solution and the untouched skeleton are not, a link is not compared;
#                without sim_c, one line naming the apt-get command.
#   Slurm        test_slurm.sh: make grade-slurm of the same class on a single-node cluster it starts,
#                against make grade's gradebook (skipped in one line without slurm-wlm and munge).
# Ends with "platforms: N passed, M failed".
set -u
backend=$1
. tests/grade/checks.sh   # root, tmp (removed at exit), check DESCRIPTION COMMAND
started=$SECONDS
l=02-vector-add
export GRADE_SEED=20270115   # make grade and the autograder grade the same inputs
unset AUTOGRADER_ROOT

# The four submissions' files (tests/grade/class_02.sh), the malicious one also forging
# Gradescope's results wherever it can.
. tests/grade/class_02.sh
f=$tmp/files
marker=/tmp/cuda-workbook-attack-gradescope-$$
rm -f "$marker"
targets="$tmp/ag/solved/results/results.json $tmp/ag/half/results/results.json $tmp/ag/broken/results/results.json"
targets="$targets $tmp/ag/malicious/results/results.json $tmp/ag-src/workbook/tools/forged.py $tmp/gradebook/solved/results.json"
class_files "$f" "$marker" $targets $(slurm_targets "$tmp/slurm")

# make grade on the class: a lesson folder, a checkout, a zip, a lesson folder.
subs=$tmp/submissions
class_folder "$subs" "$f"
book=$tmp/gradebook
t=$SECONDS
make -s grade BACKEND="$backend" SUBMISSIONS="$subs" LESSON=02 GRADEBOOK="$book" JOBS=2 >"$tmp/grade.log" 2>&1
rc=$?
check "make grade of the four ran (exit 0, $((SECONDS - t)) s)" '[ $rc -eq 0 ] || { cat "$tmp/grade.log"; false; }'

# Gradescope: the zip.
zip=$tmp/autograder.zip
make -s autograder LESSON=02 AUTOGRADER_ZIP="$zip" >"$tmp/zip.log" 2>&1
rc=$?
check "make autograder LESSON=02 wrote the zip" '[ $rc -eq 0 ] && [ -f "$zip" ] || { cat "$tmp/zip.log"; false; }'
check "the zip: setup.sh and run_autograder at its root (executable), the README's student line in setup.sh, no solutions" "python3 - '$zip' <<'PY'
import json, re, sys, zipfile
sys.path.insert(0, 'tools')
from test_install_line import readme_lines
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
ok = True
def bad(why):
    global ok
    print('    ' + why); ok = False
for n in ('setup.sh', 'run_autograder'):
    if n not in names: bad('no %s at the root' % n)
    elif not (z.getinfo(n).external_attr >> 16) & 0o100: bad('%s is not executable' % n)
if any(n.startswith(('workbook/solutions/', 'workbook/tests/wrong/', 'workbook/build')) or '__pycache__' in n for n in names):
    bad('solutions, wrong variants, a build or caches in the zip')
for n in ('workbook/Makefile', 'workbook/tools/grade_batch.py', 'workbook/tests/test_02_vector_add.c', 'workbook/lessons/02-vector-add/vector_add.cu'):
    if n not in names: bad('no ' + n)
config = json.loads(z.read('workbook/autograder.json'))
if config.get('lesson') != '02-vector-add' or config.get('seed') != 20270115: bad('autograder.json: %s' % config)
setup = z.read('setup.sh').decode()
installs = [re.sub(r'^\s*apt-get install (-y )?', '', line).split() for line in setup.splitlines() if re.match(r'\s*apt-get install', line)]
student = readme_lines(open('README.md').read())[0]
def installs_readme_line(installs):
    return installs[-1:] == [student]
if not installs_readme_line(installs): bad('setup.sh installs %s, the README line is %s' % (installs, student))
if installs_readme_line(installs[:-1] + [installs[-1][:-1]]): bad('the package check cannot fail')
if 'graders' not in setup or 'simlib' not in setup: bad('setup.sh does not build the simulator and the graders')
sys.exit(0 if ok else 1)
PY"

# Gradescope: the zip unpacked as Gradescope does (modes and times kept), shared by four
# AUTOGRADER_ROOTs; each submission as Gradescope shows it; two at a time.
python3 - "$zip" "$tmp/ag-src" <<'PY'
import os, sys, time, zipfile
z = zipfile.ZipFile(sys.argv[1])
for i in z.infolist():
    p = z.extract(i, sys.argv[2])
    os.chmod(p, (i.external_attr >> 16) & 0o777 or 0o644)
    t = time.mktime(i.date_time + (0, 0, -1))
    os.utime(p, (t, t))
PY
tree_sum() { (cd "$tmp/ag-src" && find . -type f -exec sha256sum {} + | sort | sha256sum); }
src_before=$(tree_sum)
for s in solved half broken malicious; do
  mkdir -p "$tmp/ag/$s/submission" "$tmp/ag/$s/results"
  ln -s "$tmp/ag-src" "$tmp/ag/$s/source"
  cp "$tmp/ag-src/run_autograder" "$tmp/ag/$s/run_autograder"
done
cp "$f/solved.cu" "$tmp/ag/solved/submission/vector_add.cu"
mkdir -p "$tmp/ag/half/submission/lessons/$l" && cp "$f/half.cu" "$tmp/ag/half/submission/lessons/$l/vector_add.cu" && cp README.md "$tmp/ag/half/submission/"
mkdir -p "$tmp/ag/broken/submission/$l" && cp "$f/broken.cu" "$tmp/ag/broken/submission/$l/vector_add.cu"
cp "$f/malicious.cu" "$tmp/ag/malicious/submission/vector_add.cu"
autograde() { (cd "$tmp/ag/$1" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS AUTOGRADER_ROOT="$tmp/ag/$1" ./run_autograder >stdout 2>&1; echo $? >rc); }
t=$SECONDS
autograde solved & autograde malicious & wait
autograde half & autograde broken & wait
ran_all() { local s; for s in solved half broken malicious; do [ "$(cat "$tmp/ag/$s/rc")" = 0 ] || { echo "    $s:"; tail -n 20 "$tmp/ag/$s/stdout"; return 1; }; done; }
check "run_autograder for the four (exit 0, $((SECONDS - t)) s)" ran_all
check "check_gradescope.py catches what it checks" 'python3 tests/grade/check_gradescope.py --self-test >/dev/null'
sleep 1.5  # anything the malicious one left behind would have written by now
check "every results.json fits Gradescope's specification" \
  "python3 tests/grade/check_gradescope.py $tmp/ag/solved/results/results.json $tmp/ag/half/results/results.json $tmp/ag/broken/results/results.json $tmp/ag/malicious/results/results.json"
check "the autograder's points are make grade's, exercise by exercise (10, 7, 0, 0; malicious 0)" "python3 - '$tmp' <<'PY'
import json, os, sys
tmp = sys.argv[1]
ok = True
for s, total in (('solved', 10), ('half', 7), ('broken', 0), ('malicious', 0)):
    g = json.load(open(os.path.join(tmp, 'ag', s, 'results', 'results.json')))
    b = json.load(open(os.path.join(tmp, 'gradebook', s, 'result.json')))['lessons']['02-vector-add']
    mine = [(t['number'], t['score'], t['max_score']) for t in g['tests']]
    theirs = [(e['id'], e['points'] if e['passed'] else 0, e['points']) for e in b['exercises']]
    if mine != theirs or g['score'] != total or b['points'] != total:
        print('    %s: autograder %s (score %s), make grade %s (points %s), want %d' % (s, mine, g['score'], theirs, b['points'], total)); ok = False
out = json.load(open(os.path.join(tmp, 'ag', 'broken', 'results', 'results.json')))
if 'does not compile' not in out['tests'][0]['output'] or 'compile error' not in out.get('output', ''):
    print('    the compile error is not in the broken one\'s output: %s' % out['tests'][0]['output'][:200]); ok = False
half = json.load(open(os.path.join(tmp, 'ag', 'half', 'results', 'results.json')))
if 'grid-stride' not in half['tests'][2]['output'] or half['tests'][2]['status'] != 'failed':
    print('    the half-done one\'s 02.3 lacks its diagnosis: %s' % half['tests'][2]); ok = False
sys.exit(0 if ok else 1)
PY"
check "the malicious submission touched nothing: no forged results, the autograder's files unchanged" \
  '[ ! -e "$marker" ] && [ ! -e "$tmp/ag-src/workbook/tools/forged.py" ] && [ "$(tree_sum)" = "$src_before" ] || { rm -f "$marker"; false; }'
mkdir -p "$tmp/ag/empty/submission" && ln -s "$tmp/ag-src" "$tmp/ag/empty/source" && echo hello >"$tmp/ag/empty/submission/notes.txt"
(cd "$tmp/ag/empty" && AUTOGRADER_ROOT="$tmp/ag/empty" "$tmp/ag-src/run_autograder" >stdout 2>&1)
check "a submission without the lesson's file: 0 of 10 in a valid results.json, the fix named" \
  "python3 tests/grade/check_gradescope.py $tmp/ag/empty/results/results.json && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"score\"] == 0 and len(d[\"tests\"]) == 4 and \"upload lessons/02-vector-add/vector_add.cu\" in d[\"output\"] else 1)' $tmp/ag/empty/results/results.json"

# LMS: lms.csv beside the gradebook.
check "lms.csv: Canvas's identifying columns, then the gradebook's points per lesson" "python3 - '$book' <<'PY'
import csv, os, sys
book = sys.argv[1]
grades = {r['student']: r for r in csv.DictReader(open(os.path.join(book, 'gradebook.csv'), newline=''))}
rows = list(csv.reader(open(os.path.join(book, 'lms.csv'), newline='', encoding='utf-8')))
ok = rows[0] == ['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', '02-vector-add']
if not ok: print('    header: %s' % rows[0])
if len(rows) - 1 != len(grades): print('    %d rows for %d students' % (len(rows) - 1, len(grades))); ok = False
for r in rows[1:]:
    g = grades.get(r[0])
    if not g or r[3] != r[0] or r[1:3] != ['', ''] or r[4] != '' or r[5] != g['02-vector-add'] or not r[5].isdigit():
        print('    row %s, gradebook %s' % (r, g)); ok = False
    if any(c[:1] in ('=', '+', '-', '@') for c in r): print('    a formula cell: %s' % r); ok = False
want = {'solved': '10', 'half': '7', 'broken': '0', 'malicious': '0'}
if {r[0]: r[5] for r in rows[1:]} != want: print('    points: %s' % rows[1:]); ok = False
sys.exit(0 if ok else 1)
PY"

# GitHub Classroom: the template, its structure, and its commands run here.
check "the Classroom template .github/classroom/autograding.yml is current" 'python3 tools/classroom.py check >/dev/null'
all_lessons=$(ls -d lessons/[0-9][0-9]-* | xargs -n1 basename | tr '\n' ' ')
check "the template parses (PyYAML), one step per exercise with its points, every lesson's total" \
  "CAN_FAIL=1 python3 tests/grade/check_classroom.py .github/classroom/autograding.yml $all_lessons"
check "the template passes the structural check without PyYAML too" \
  "CAN_FAIL=1 python3 tests/grade/check_classroom.py .github/classroom/autograding.yml $all_lessons --no-yaml"
make -s classroom CLASSROOM="$tmp/not-a-workbook" LESSON=02 >"$tmp/classroom-bad.log" 2>&1
rc=$?
check "make classroom into a folder that is not a workbook: one line naming the fix" \
  '[ $rc -ne 0 ] && grep -q "^error: CLASSROOM=.*not a workbook.*give the student repository template" "$tmp/classroom-bad.log"'
ok_install=1
for s in solved malicious; do
  make -s classroom CLASSROOM="$book/trees/$s" LESSON=02 >"$tmp/classroom-$s.log" 2>&1 || ok_install=0
done
check "make classroom LESSON=02 writes lesson 02's workflow into a student tree" \
  '[ $ok_install = 1 ] && python3 tests/grade/check_classroom.py "$book/trees/solved/.github/workflows/classroom.yml" $l || { cat "$tmp"/classroom-*.log; false; }'
classroom_points() {  # runs each step's command in the tree as the runner would; the points its passing steps give
  local tree=$1 points=0 max cmd
  while IFS=$'\t' read -r max cmd; do
    if (cd "$tree" && env -i PATH="$PATH" LANG=C.UTF-8 HOME="$tmp" timeout 300 bash -c "$cmd") >>"$tmp/classroom-run-$2.log" 2>&1; then
      points=$((points + max))
    fi
  done < <(python3 tests/grade/check_classroom.py "$tree/.github/workflows/classroom.yml" --commands)
  echo $points >"$tmp/classroom-$2.points"
}
t=$SECONDS
classroom_points "$book/trees/solved" solved & classroom_points "$book/trees/malicious" malicious & wait
check "the workflow's commands run here: the solved tree gets 10 of 10, the malicious one 0 ($((SECONDS - t)) s)" \
  '[ "$(cat $tmp/classroom-solved.points)" = 10 ] && [ "$(cat $tmp/classroom-malicious.points)" = 0 ] || { tail -n 30 "$tmp"/classroom-run-*.log; false; }'

# Similarity: alice, bob (alice's code renamed, comments and layout changed, in a .tar.gz), carol (a
# different solution), dave (the skeleton untouched), eve (a link to alice's folder).
c=$tmp/class
mkdir -p "$c/alice/$l" "$c/dave/$l" "$tmp/bob/lessons/$l" "$c/carol/$l"
cp solutions/$l/vector_add.cu "$c/alice/$l/"
cp lessons/$l/vector_add.cu "$c/dave/$l/"
sed -E -e 's/\bi\b/k/g; s/stride/step/g; s/\bbytes\b/nbytes/g; s/\berr\b/status/g' -e '/TODO\(/!s|//.*$||' -e 's/^    /  /' \
  solutions/$l/vector_add.cu >"$tmp/bob/lessons/$l/vector_add.cu"
tar -C "$tmp/bob" -czf "$c/bob.tar.gz" lessons
ln -s "$c/alice" "$c/eve"
python3 - lessons/$l/vector_add.cu "$c/carol/$l/vector_add.cu" <<'PY'
import re, sys
skeleton, out = sys.argv[1:3]
mine = {
 "02.1": """__global__ void vector_add_kernel(const float *a, const float *b, float *c, size_t n) {
    unsigned long long gid = blockDim.x;
    gid = gid * blockIdx.x + threadIdx.x;
    if (gid >= n)
        return;
    float sum = a[gid];
    sum += b[gid];
    c[gid] = sum;
}

extern "C" cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
    if (n == 0) return cudaSuccess;
    unsigned grid = n / block;
    if (grid * (size_t)block < n) ++grid;
    vector_add_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}""",
 "02.2": """extern "C" cudaError_t vector_add_host(const float *h_a, const float *h_b, float *h_c, size_t n) {
    float *dev[3] = {0, 0, 0};
    cudaError_t status = cudaSuccess;
    for (int k = 0; k < 3 && status == cudaSuccess; ++k) status = cudaMalloc((void **)&dev[k], n * sizeof *h_a);
    const float *src[2] = {h_a, h_b};
    for (int k = 0; k < 2 && status == cudaSuccess; ++k) status = cudaMemcpy(dev[k], src[k], n * sizeof *h_a, cudaMemcpyHostToDevice);
    if (!status) status = vector_add_gpu(dev[0], dev[1], dev[2], n, 256);
    if (!status) status = cudaMemcpy(h_c, dev[2], n * sizeof *h_c, cudaMemcpyDeviceToHost);
    for (int k = 2; k >= 0; --k) cudaFree(dev[k]);
    return status;
}""",
 "02.3": """__global__ void vector_add_grid_stride_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t idx = threadIdx.x + blockIdx.x * (size_t)blockDim.x;
    while (idx < n) {
        c[idx] = b[idx] + a[idx];
        idx += blockDim.x * (size_t)gridDim.x;
    }
}""",
 "02.4": """__global__ void vector_add_float4_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t total = blockDim.x * (size_t)gridDim.x;
    size_t me = threadIdx.x + blockIdx.x * (size_t)blockDim.x;
    for (size_t v = me; 4 * v + 3 < n; v += total) {
        float4 p = ((const float4 *)a)[v];
        float4 r = ((const float4 *)b)[v];
        p.x += r.x; p.y += r.y; p.z += r.z; p.w += r.w;
        ((float4 *)c)[v] = p;
    }
    size_t tail = n & ~(size_t)3;
    if (me < n - tail) c[tail + me] = a[tail + me] + b[tail + me];
}"""}
text = open(skeleton).read()
for ex, body in mine.items():   # the kernel replaced; the skeleton's launcher after it stays
    text = re.sub(r"(// TODO\(%s\) begin\n)(.*?\n})" % re.escape(ex), lambda m: m.group(1) + body, text, count=1, flags=re.S)
open(out, "w").write(text)
PY
if [ -n "$(command -v sim_c)" ]; then
  t=$SECONDS
  make -s similarity SUBMISSIONS="$c" LESSON=02 SIMILARITY_OUT="$tmp/sim" >"$tmp/sim.log" 2>&1
  rc=$?
  check "make similarity ran (exit 0, $((SECONDS - t)) s)" '[ $rc -eq 0 ] || { cat "$tmp/sim.log"; false; }'
  check "the renamed copy is the top pair; the different solution, the skeleton and the link are not" "python3 - '$tmp/sim' <<'PY'
import csv, os, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, 'similarity.csv'), newline='')))
page = open(os.path.join(out, 'similarity.html'), encoding='utf-8').read()
ok = True
if not rows or {rows[0]['student_a'], rows[0]['student_b']} != {'alice', 'bob'} or min(int(rows[0]['a_in_b_percent']), int(rows[0]['b_in_a_percent'])) < 80:
    print('    top pair: %s' % (rows[:1],)); ok = False
for r in rows:
    pair = {r['student_a'], r['student_b']}
    if 'dave' in pair or 'eve' in pair: print('    compared: %s' % r); ok = False
    if 'carol' in pair and max(int(r['a_in_b_percent']), int(r['b_in_a_percent'])) >= 40: print('    carol: %s' % r); ok = False
    if r['lesson'] != '02-vector-add' or int(r['rank']) != rows.index(r) + 1: print('    row %s' % r); ok = False
if rows and not all(part.split(':')[0] in ('02.1', '02.2', '02.3', '02.4') for part in rows[0]['regions_a'].replace(';', ' ').split()):
    print('    regions: %s' % rows[0]['regions_a']); ok = False
if 'eve' not in page or 'symbolic link' not in page or 'c[i] = a[i] + b[i]' not in page or '&lt;' not in page:
    print('    the HTML page lacks the link, or the code side by side'); ok = False
sys.exit(0 if ok else 1)
PY"
else
  echo "  (sim_c not installed: make similarity's comparisons skipped; sudo apt-get install similarity-tester)"
fi
# (make's own lines, "Error 1" and a parent's jobserver warning, are not the tool's)
SIM_C=/nonexistent/sim_c make -s similarity SUBMISSIONS="$c" LESSON=02 SIMILARITY_OUT="$tmp/sim-none" >"$tmp/sim-none.log" 2>&1
rc=$?
check "without sim_c: one line naming the apt-get command" \
  '[ $rc -ne 0 ] && [ "$(grep -v "^make" "$tmp/sim-none.log" | grep -c .)" -eq 1 ] && grep -q "^error: sim_c .*not installed: run .sudo apt-get install similarity-tester." "$tmp/sim-none.log" || { cat "$tmp/sim-none.log"; false; }'

# Slurm: make grade-slurm of the same class on a cluster of its own, against make grade's gradebook.
bash tests/grade/test_slurm.sh "$backend" "$tmp/slurm" "$subs" "$book" "$marker"
slurm_rc=$?
echo "platforms: $pass passed, $fail failed ($((SECONDS - started)) s)"
[ $fail -eq 0 ] && [ $slurm_rc -eq 0 ]
