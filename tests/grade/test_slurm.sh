#!/usr/bin/env bash
# test_slurm.sh BACKEND [WORK SUBMISSIONS GRADEBOOK MARKER] -- make grade-slurm on a real single-node
# Slurm cluster that this test starts and stops (as root, with Debian's slurm-wlm and munge: without
# them, or not as root, one line says it is skipped and how to install them).
#   test_platforms.sh (make test-platforms) runs it at its end with its folder WORK, its class
#   (SUBMISSIONS: tests/grade/class_02.sh's four, the malicious one also aiming at slurm_targets WORK,
#   and creating MARKER when a write succeeds) and make grade's GRADEBOOK of it, so that the class is
#   graded once without Slurm; alone (make test-slurm) it makes all of them itself.
#   The cluster: its own MUNGE key and socket (munged), its own slurm.conf in WORK/cluster
#   (SLURM_CONF: SlurmctldHost=localhost, proctrack/linuxproc, task/none, no cgroups, free ports, a
#   partition that is not the default, so a job reaches it only through SLURM_SBATCH_ARGS, and
#   MaxArraySize=4, so the class goes in two arrays); slurmctld and slurmd in the background, all
#   three stopped on exit. On BACKEND=gpu the node has one GPU (gres gpu:1, /dev/nvidia0).
#   Slurm grades the class and two more: a copy of the solved one whose name is shell syntax, and
#   one that never returns, whose task is cancelled while it grades.
#   Checked: make grade-slurm exits 0 with one array task per student; gradebook.csv and lms.csv are
#   make grade's for the same GRADE_SEED, row for row (the two more aside), and so are every
#   student's points per exercise in result.json and results.json (the odd name's are the solved
#   one's); the cancelled student has an error row with 0 points naming its task's output, and
#   nothing its task started still runs; the malicious one has 0 and wrote nowhere; the name never
#   ran. Then, without a cluster: sbatch's command lines (--gres=gpu:1 on BACKEND=gpu only,
#   SLURM_SBATCH_ARGS split as a shell would, no student's name), an option make grade-slurm sets
#   itself refused, and no sbatch said in one line.
# Ends with "slurm: N passed, M failed".
set -u
backend=$1
work=${2:-} subs=${3:-} lbook=${4:-} marker=${5:-}
missing=
for c in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
  command -v $c >/dev/null 2>&1 || missing="$missing $c"
done
if [ -n "$missing" ]; then
  echo "  (make grade-slurm's test skipped: no$missing here; sudo apt-get install slurm-wlm munge)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "  (make grade-slurm's test skipped: starting slurmd takes root; run the test as root)"
  exit 0
fi
root=$(pwd)
if [ -n "$work" ]; then
  tmp=$work && mkdir -p "$tmp"
else
  tmp=$(mktemp -d)  # 0700: the sandbox stages what its own uid cannot reach
fi
pids=
stop_cluster() {
  if [ -n "$pids" ]; then
    scancel --quiet --user=root >/dev/null 2>&1
    kill $pids 2>/dev/null
    for p in $pids; do wait "$p" 2>/dev/null; done
  fi
  if [ -z "$work" ]; then rm -rf "$tmp"; fi
}
trap stop_cluster EXIT
pass=0
fail=0
check() { local what=$1; if eval "$2"; then pass=$((pass + 1)); echo "  ok    $what"; else fail=$((fail + 1)); echo "  FAIL  $what"; fi; }
started=$SECONDS
l=02-vector-add
export GRADE_SEED=20270115   # make grade and make grade-slurm grade the same inputs
unset SLURM_SBATCH_ARGS SLURM_WAIT

# The cluster.
c=$tmp/cluster
mkdir -p "$c/munge" "$c/state" "$c/spool" "$c/log" && chmod 700 "$c/munge"
mungekey --create --keyfile="$c/munge/munge.key" >/dev/null 2>&1
# (--force: its socket sits in this 0700 folder, which only root, who runs everything here, reaches)
munged --foreground --force --socket="$c/munge/socket" --key-file="$c/munge/munge.key" --pid-file="$c/munge/munged.pid" \
  --seed-file="$c/munge/seed" --log-file="$c/log/munged.log" >/dev/null 2>&1 &
pids="$!"
set -- $(python3 -c 'import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
gres= nodegres=
if [ "$backend" = gpu ]; then
  gres="GresTypes=gpu" nodegres="Gres=gpu:1"
  echo "NodeName=wb Name=gpu File=/dev/nvidia0" >"$c/gres.conf"
fi
cat >"$c/slurm.conf" <<EOF
ClusterName=workbook
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$c/munge/socket
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/log/slurmctld.log
SlurmdLogFile=$c/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MaxArraySize=4
$gres
NodeName=wb NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 $nodegres State=UNKNOWN
PartitionName=graders Nodes=wb Default=NO MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$c/slurm.conf
for i in $(seq 50); do [ -S "$c/munge/socket" ] && break; sleep 0.1; done
[ -S "$c/munge/socket" ] || echo "  (munged did not start: $(tail -n 1 "$c/log/munged.log" 2>/dev/null))"
slurmctld -D -i -f "$SLURM_CONF" >>"$c/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N wb -f "$SLURM_CONF" >>"$c/log/slurmd.out" 2>&1 &
pids="$pids $!"
t=$SECONDS
up=
while [ $((SECONDS - t)) -lt 20 ]; do
  [ "$(timeout 3 sinfo -h -p graders -o %T 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.2
done
check "a single-node Slurm started here (munged, slurmctld, slurmd: idle after $((SECONDS - t)) s)" \
  '[ -n "$up" ] || { tail -n 5 "$c"/log/*; false; }'
[ -n "$up" ] || { echo "slurm: $pass passed, $((fail + 1)) failed"; exit 1; }

# The class and make grade's gradebook of it (made here when not given); for Slurm, two more: a copy
# of the solved one under a name that is shell syntax, and one that never returns.
. tests/grade/class_02.sh
sbook=$tmp/gradebook-slurm
if [ -z "$subs" ]; then
  subs=$tmp/submissions lbook=$tmp/gradebook-local marker=/tmp/cuda-workbook-attack-slurm-$$
  rm -f "$marker"
  class_files "$tmp/files" "$marker" $(slurm_targets "$tmp") && class_folder "$subs" "$tmp/files"
  t=$SECONDS
  make -s grade BACKEND="$backend" SUBMISSIONS="$subs" LESSON=02 GRADEBOOK="$lbook" JOBS=2 >"$tmp/grade.log" 2>&1
  rc=$?
  check "make grade of the four ran (exit 0, $((SECONDS - t)) s)" '[ $rc -eq 0 ] || { cat "$tmp/grade.log"; false; }'
fi
odd='$(touch named)`touch named`;x'
mkdir -p "$tmp/slurm-subs" && cp -a "$subs/." "$tmp/slurm-subs/" && mkdir -p "$tmp/slurm-subs/$odd" "$tmp/slurm-subs/slow/$l" &&
  cp -a "$subs/solved/." "$tmp/slurm-subs/$odd/" &&
  sed 's/^extern "C" cudaError_t vector_add_host(.*{$/&\n    for (volatile unsigned long spin = 1; spin; spin++) {}/' \
    solutions/$l/vector_add.cu >"$tmp/slurm-subs/slow/$l/vector_add.cu"

# make grade-slurm of the six; the slow one's task cancelled once its grading runs.
descendants() {  # the processes below pid $1
  ps -eo pid=,ppid= | awk -v root="$1" '{ up[$1] = $2 } END { for (p in up) { x = p; while (x in up && x != root && x > 1) x = up[x]; if (x == root && p != root) print p } }'
}
t=$SECONDS
GRADE_BATCH_TIMEOUT=300 SLURM_SBATCH_ARGS="--partition=graders --time=10 --comment 'lesson 02, my class'" \
  make -s grade-slurm BACKEND="$backend" SUBMISSIONS="$tmp/slurm-subs" LESSON=02 GRADEBOOK="$sbook" >"$tmp/slurm.log" 2>&1 &
grader=$!
slow= seen= cancelled=
while kill -0 $grader 2>/dev/null && [ $((SECONDS - t)) -lt 900 ]; do
  if [ -z "$slow" ] && [ -f "$sbook/.slurm/plan.json" ] && grep -q "merge job" "$tmp/slurm.log"; then
    # the slow student's task: its index in the plan, in the array that holds it (4 per array)
    slow=$(python3 -c 'import json, sys
k = [s["student"] for s in json.load(open(sys.argv[1]))["students"]].index("slow")
arrays = sys.argv[2].split()
print("%s_%d" % (arrays[k // 4], k % 4))' "$sbook/.slurm/plan.json" "$(sed -n 's/^  array jobs\{0,1\} \([0-9 ]*\) (.*/\1/p' "$tmp/slurm.log")")
  fi
  if [ -n "$slow" ] && [ -z "$cancelled" ] && [ "$(squeue -h -j "$slow" -o %T 2>/dev/null)" = RUNNING ] && [ -d "$sbook/trees/slow/lessons" ]; then
    sleep 2   # its make check under way
    task=$(python3 - "${slow%_*}" "${slow#*_}" <<'PY'
import os, sys
want = {b"SLURM_ARRAY_JOB_ID=" + sys.argv[1].encode(), b"SLURM_ARRAY_TASK_ID=" + sys.argv[2].encode()}
found = []
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        if want <= set(open("/proc/%s/environ" % p, "rb").read().split(b"\0")):
            found.append(int(p))
    except OSError:
        pass
print(min(found) if found else "")
PY
)
    seen=$([ -n "$task" ] && { echo "$task"; descendants "$task"; })
    seen_names=$(for p in $seen; do cat /proc/$p/comm 2>/dev/null; done | sort -u | tr '\n' ' ')
    scancel "$slow" && cancelled=1
  fi
  sleep 0.2
done
kill -0 $grader 2>/dev/null && kill $grader   # (past 15 minutes: stopped, and failed below)
wait $grader
rc=$?
took=$((SECONDS - t))
sleep 1.5   # anything the malicious one left behind would have written by now
check "make grade-slurm of the six ran (exit 0, $took s)" '[ $rc -eq 0 ] || { cat "$tmp/slurm.log"; false; }'
arrays=$(sed -n 's/^  array jobs\{0,1\} \([0-9 ]*\) (.*/\1/p' "$tmp/slurm.log")
check "one array task per student, in two arrays (MaxArraySize=4): $(ls "$sbook/.slurm" | grep -c '^task-') task outputs" \
  '[ "$(echo $arrays | wc -w)" = 2 ] && [ "$(ls "$sbook/.slurm" | grep -c "^task-")" = 6 ] && set -- $arrays &&
   [ -f "$sbook/.slurm/task-$1_3.out" ] && [ -f "$sbook/.slurm/task-$2_1.out" ] || { ls "$sbook/.slurm"; cat "$tmp/slurm.log"; false; }'
check "gradebook.csv and lms.csv are make grade's, row for row (the two more aside)" \
  'diff <(grep -v "^slow,\|^_touch_named" "$sbook/gradebook.csv") "$lbook/gradebook.csv" &&
   diff <(grep -v "^slow,\|^_touch_named" "$sbook/lms.csv") "$lbook/lms.csv" && [ "$(grep -c . "$sbook/gradebook.csv")" = 7 ]'
check "every student's result.json and results.json: make grade's points per exercise (the odd name's: the solved one's)" "python3 - '$lbook' '$sbook' <<'PY'
import csv, json, os, sys
lbook, sbook = sys.argv[1:3]
ok = True
rows = {r['student']: r for r in csv.DictReader(open(os.path.join(sbook, 'gradebook.csv'), newline=''))}
odd = [s for s in rows if s.startswith('_touch_named')]
if len(odd) != 1 or rows[odd[0]]['status'] != 'graded; renamed (unsafe name)':
    print('    the odd name: %s' % odd); ok = False
pairs = [(s, s, p) for s, p in (('solved', 10), ('half', 7), ('broken', 0), ('malicious', 0))] + [('solved', o, 10) for o in odd]
for mine, theirs, points in pairs:
    a, b = json.load(open(os.path.join(lbook, mine, 'result.json'))), json.load(open(os.path.join(sbook, theirs, 'result.json')))
    ea = [(e['id'], e['status'], e['points']) for e in a['lessons']['02-vector-add']['exercises']]
    eb = [(e['id'], e['status'], e['points']) for e in b['lessons']['02-vector-add']['exercises']]
    if ea != eb or a['points'] != points or b['points'] != points or b['seed'] != '20270115' or (mine == theirs and (a['status'], a['entry']) != (b['status'], b['entry'])):
        print('    %s: make grade %s %s, Slurm %s %s' % (theirs, a['points'], ea, b['points'], eb)); ok = False
    ga, gb = json.load(open(os.path.join(lbook, mine, 'results.json'))), json.load(open(os.path.join(sbook, theirs, 'results.json')))
    if [(t['name'], t['score']) for t in ga['tests']] != [(t['name'], t['score']) for t in gb['tests']] or ga['score'] != gb['score']:
        print('    %s: results.json differs' % theirs); ok = False
sys.exit(0 if ok else 1)
PY"
row() { tr -d '\r' <"$sbook/gradebook.csv" | grep -x "$1"; }
check "the cancelled task's student: an error row with 0 naming its output (task-$slow.out), its result.json saying so" \
  'row "slow,0,0,10,error: its Slurm task did not finish (cancelled); see .slurm/task-$slow.out" >/dev/null &&
   python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"points\"] == 0 and d[\"lessons\"] == {\"02-vector-add\": None} and \"did not finish\" in d[\"status\"] else 1)" "$sbook/slow/result.json" &&
   [ -f "$sbook/slow/results.json" ] || { cat "$sbook/gradebook.csv" "$sbook/.slurm/task-$slow.out"; false; }'
sleep 0.5
left=$(for p in $seen; do [ -e /proc/$p ] && ! grep -q "^State:.*Z" /proc/$p/status 2>/dev/null && echo "$p"; done)
check "nothing the cancelled task started still runs (of: ${seen_names:-nothing seen})" \
  '[ -n "$seen" ] && [ -z "$left" ] || { for p in $left; do kill -9 "$p" 2>/dev/null; done; false; }'
check "the malicious one has 0 and wrote nowhere (gradebook, plan, a classmate, Slurm's folders, slurm.conf)" \
  'row "malicious,0,0,10,graded" >/dev/null && [ ! -e "$marker" ] && [ ! -e "$sbook/.slurm/forged.out" ] &&
   [ ! -e "$c/spool/forged" ] && [ ! -e "$root/forged-by-a-student" ] && grep -qx "MaxArraySize=4" "$SLURM_CONF" ||
   { ls -la "$marker" "$sbook/.slurm" "$c/spool" "$root/forged-by-a-student"; rm -f "$marker"; false; }'
check "the name that is shell syntax never ran" \
  'named=$(ls -d "$root/named" "$sbook/named" "$sbook/.slurm/named" "$tmp/named" "$c/spool/named" "$lbook/named" 2>/dev/null); [ -z "$named" ] || { echo "    made: $named"; false; }'

# sbatch's command lines, without submitting (--dry-run), and the mistakes said in one line.
dry() { python3 tools/grade_slurm.py "$tmp/slurm-subs" "$tmp/dry-$1" --lesson=02 --backend="$1" --dry-run; }
check "the command lines: --gres=gpu:1 on BACKEND=gpu only, SLURM_SBATCH_ARGS split as a shell would, no student's name" \
  "SLURM_SBATCH_ARGS=\"--account='my class' --time=30\" dry gpu >'$tmp/dry-gpu.log' && dry sim >'$tmp/dry-sim.log' && python3 - '$tmp' <<'PY'
import shlex, sys
tmp = sys.argv[1]
gpu = [shlex.split(l) for l in open(tmp + '/dry-gpu.log')]
sim = [shlex.split(l) for l in open(tmp + '/dry-sim.log')]
ok = len(gpu) == 2 and len(sim) == 2 and '--array=0-5' in gpu[0] and '--array=0-5' in sim[0]
ok = ok and '--gres=gpu:1' in gpu[0] and not any('--gres' in a for a in sim[0] + sim[1] + gpu[1])
ok = ok and gpu[0].count('--account=my class') == 1 and '--time=30' in gpu[1] and not any('account' in a for a in sim[0])
ok = ok and not any('slow' in a or 'touch' in a for a in sum(gpu + sim, []))
if not ok: print(open(tmp + '/dry-gpu.log').read() + open(tmp + '/dry-sim.log').read())
sys.exit(0 if ok else 1)
PY"
SLURM_SBATCH_ARGS="--partition=graders --array=0-99" python3 tools/grade_slurm.py "$tmp/slurm-subs" "$tmp/dry-x" --lesson=02 >"$tmp/ours.log" 2>&1
rc=$?
check "SLURM_SBATCH_ARGS with --array, which make grade-slurm sets itself: one line" \
  '[ $rc -ne 0 ] && [ "$(grep -c . "$tmp/ours.log")" = 1 ] && grep -q "^error: SLURM_SBATCH_ARGS has --array, which make grade-slurm sets itself" "$tmp/ours.log" || { cat "$tmp/ours.log"; false; }'
mkdir -p "$tmp/nobin" && ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/nobin/python3"
PATH=$tmp/nobin python3 tools/grade_slurm.py "$tmp/slurm-subs" "$tmp/dry-y" --lesson=02 >"$tmp/nobin.log" 2>&1
rc=$?
check "without Slurm's commands: one line naming the install" \
  '[ $rc -ne 0 ] && [ "$(grep -c . "$tmp/nobin.log")" = 1 ] && grep -q "^error: sbatch not found: .*apt-get install slurm-client" "$tmp/nobin.log" || { cat "$tmp/nobin.log"; false; }'

echo "slurm: $pass passed, $fail failed ($((SECONDS - started)) s)"
[ $fail -eq 0 ]
