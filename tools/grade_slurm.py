#!/usr/bin/env python3
"""grade_slurm.py -- make grade on a Slurm cluster: one array task per student, then one merge.

    grade_slurm.py SUBMISSIONS_DIR OUT_DIR [--lesson=NN] [--backend=sim|gpu] [--no-wait] [--dry-run]
    (make grade-slurm SUBMISSIONS=dir [LESSON=NN] [GRADEBOOK=out] [BACKEND=gpu]
                      [SLURM_SBATCH_ARGS="--partition=p --account=a --time=60"] [SLURM_WAIT=0])

Everything is tools/grade_batch.py, make grade itself, in three steps (its --plan, --task, --merge):
1. here, on the login node: the arguments are checked, the students named and OUT_DIR prepared as
   make grade does, and the list of students written to OUT_DIR/.slurm/plan.json;
2. `sbatch --array=0-(N-1)`: task K grades student K of the plan in its own tree and sandbox, exactly
   as make grade grades one (grade_one), and writes that student's result.json, results.json and
   check.log (--gres=gpu:1 per task with BACKEND=gpu). A class larger than the cluster's
   MaxArraySize goes in several arrays;
3. a job that depends on them (--dependency=afterany: it runs however they ended) merges the
   students' results into gradebook.csv and lms.csv. A student whose task left no result (its time
   limit, a node that failed, scancel) gets an error row with 0 points, naming the task's output.

A task is given only its number: no student's name reaches sbatch, the job's script or a shell. The
job's script is one `exec` line of the workbook's own paths, each quoted (shlex.quote).

By default this waits for the merge and prints the gradebook's lines (polling the job with scontrol:
sbatch --wait polls every 30 s or so); --no-wait (SLURM_WAIT=0) returns once the jobs are queued.
Ctrl-C while waiting cancels the jobs. SLURM_SBATCH_ARGS (split as a shell would, never run by one)
is given to every sbatch: the partition, account, time limit, CPUs or memory per task your cluster
wants. The workbook with its build folder, SUBMISSIONS and GRADEBOOK must be on a filesystem that
every node sees at the same path. The tasks' outputs are OUT_DIR/.slurm/task-<job>_<index>.out, the
merge's OUT_DIR/.slurm/merge-<job>.out. --dry-run prepares OUT_DIR and prints the sbatch command
lines instead of running them.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import grade_batch
from batch_workbook import ROOT

# Options this tool sets itself: given in SLURM_SBATCH_ARGS they would break the arrays or the merge.
OURS = {"-a": "--array", "--array": "--array", "-o": "--output", "--output": "--output", "-e": "--error", "--error": "--error",
        "-D": "--chdir", "--chdir": "--chdir", "-d": "--dependency", "--dependency": "--dependency", "--wrap": "--wrap",
        "-W": "--wait", "--wait": "--wait", "--parsable": "--parsable", "-J": "--job-name", "--job-name": "--job-name"}
DONE = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "DEADLINE", "BOOT_FAIL",
        "SPECIAL_EXIT", "REVOKED"}
APT = "sudo apt-get install slurm-client"


def fail(words):
    sys.stderr.write("error: %s\n" % words)
    return 2


def slurm(cmd):
    """Runs a Slurm command; returns its output, or raises RuntimeError with its own words."""
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        raise RuntimeError("%s: %s" % (cmd[0], e.strerror))
    if p.returncode != 0:
        words = " ".join(p.stderr.split()) or "exit status %d" % p.returncode
        raise RuntimeError(words if words.startswith(cmd[0] + ":") else "%s: %s" % (cmd[0], words))
    return p.stdout


def max_array_size(config):
    """The cluster's MaxArraySize (array indices run below it) from `scontrol show config`; Slurm's
    default 1001 if it does not say."""
    m = re.search(r"^MaxArraySize\s*=\s*(\d+)", config, re.M)
    return max(1, int(m.group(1))) if m else 1001


def job_state(job):
    """(state, exit code) of a job, or (None, None) once Slurm no longer knows it."""
    try:
        out = slurm(["scontrol", "show", "job", "-o", job])
    except RuntimeError:
        return None, None
    state = re.search(r"\bJobState=(\S+)", out)
    code = re.search(r"\bExitCode=(\d+):(\d+)", out)
    return (state.group(1) if state else None), (int(code.group(1)) if code else None)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    flags = {a[2:] for a in argv if a.startswith("--") and "=" not in a}
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.reconfigure(line_buffering=True)   # the job ids as soon as they are known, even into a file
    dry = "dry-run" in flags
    if not dry and not shutil.which("sbatch"):
        return fail("sbatch not found: make grade-slurm runs where Slurm's commands are (a cluster's login node; %s)" % APT)
    try:
        extra = shlex.split(os.environ.get("SLURM_SBATCH_ARGS", ""))
    except ValueError as e:
        return fail("SLURM_SBATCH_ARGS: %s: quote it as you would for a shell" % e)
    for a in extra:
        if a.split("=", 1)[0] in OURS:
            return fail("SLURM_SBATCH_ARGS has %s, which make grade-slurm sets itself: leave it out" % OURS[a.split("=", 1)[0]])
    subs, out = os.path.abspath(args[0]), os.path.abspath(args[1])
    if re.search(r"[%\\\x00-\x1f\x7f]", out):
        return fail("GRADEBOOK=%s: sbatch reads %%, \\ and control characters in a folder's name its own way: give a plainer path" % args[1])
    checked = grade_batch.setup(args[0], args[1], opts)
    if isinstance(checked, int):
        return checked
    _lessons, selected, backend, _jobs, timeout = checked
    config = ""
    if not dry:
        try:
            config = slurm(["scontrol", "show", "config"])
        except RuntimeError as e:   # its last words say it best ("fatal: Could not establish a configuration source")
            return fail("no Slurm controller answers here (%s): run make grade-slurm on the cluster's login node" % str(e).split("fatal: ")[-1])
    planned = grade_batch.plan(subs, out, args[0], selected, backend, timeout)
    if isinstance(planned, int):
        return planned
    students, entries, skipped = planned
    n = len(students)

    # The jobs' script: the workbook's own paths, quoted; the task finds its student by number.
    run = "exec %s %s" % (shlex.quote(sys.executable), shlex.quote(os.path.join(ROOT, "tools", "grade_batch.py")))
    common = ["--parsable", "--chdir=" + out, "--export=ALL"]
    gres = ["--gres=gpu:1"] if backend == "gpu" else []
    name = "grade-" + (selected[:2] if selected else "all")
    size = max_array_size(config)
    arrays, commands = [], []
    for first in range(0, n, size):
        count = min(size, n - first)
        commands.append(["sbatch", "--array=0-%d" % (count - 1), "--job-name=" + name, "--output=.slurm/task-%A_%a.out"]
                        + common + gres + extra + ["--wrap=%s --task --offset=%d %s" % (run, first, shlex.quote(out))])
    merge = ["sbatch", "--job-name=%s-merge" % name, "--output=.slurm/merge-%j.out", "--kill-on-invalid-dep=yes"] + common + extra
    merge_wrap = "%s --merge --slurm-arrays=%s %s"
    if dry:
        for c in commands:
            print(shlex.join(c))
        print(shlex.join(merge + ["--dependency=afterany:<arrays>", "--wrap=" + merge_wrap % (run, "<arrays>", shlex.quote(out))]))
        return 0

    print("grading %d submission(s) on Slurm, one array task each, backend %s%s" % (n, backend, ", lesson " + selected if selected else ""))
    grade_batch.tell_names(entries, skipped)
    try:
        for first, c in zip(range(0, n, size), commands):
            arrays.append((slurm(c).strip().split(";")[0], first))
        ids = ",".join("%s@%d" % a for a in arrays)
        merge_id = slurm(merge + ["--dependency=afterany:" + ":".join(j for j, _ in arrays),
                                  "--wrap=" + merge_wrap % (run, ids, shlex.quote(out))]).strip().split(";")[0]
    except RuntimeError as e:
        for job, _ in arrays:
            subprocess.run(["scancel", job], stderr=subprocess.DEVNULL)
        return fail("submitting the jobs failed (%s): give SLURM_SBATCH_ARGS the partition, account and time your cluster wants" % e)
    print("  array job%s %s (%s/.slurm/task-<job>_<index>.out), merge job %s" % (
        "s" if len(arrays) > 1 else "", " ".join(j for j, _ in arrays), args[1], merge_id))
    by_hand = "python3 %s --merge --slurm-arrays=%s %s" % (os.path.relpath(os.path.join(ROOT, "tools", "grade_batch.py")), ids, shlex.quote(out))
    if "no-wait" in flags:
        print("queued: the gradebook will be %s once job %s has run (squeue -j %s; to merge by hand: %s)" % (
            os.path.join(args[1], "gradebook.csv"), merge_id, merge_id, by_hand))
        return 0
    try:
        pause, state, code = 0.5, None, None
        while True:
            state, code = job_state(merge_id)
            if state is None or state in DONE:
                break
            time.sleep(pause)
            pause = min(pause * 1.3, 5)
    except KeyboardInterrupt:
        subprocess.run(["scancel", merge_id] + [j for j, _ in arrays], stderr=subprocess.DEVNULL)
        sys.stderr.write("interrupted: jobs %s %s cancelled\n" % (" ".join(j for j, _ in arrays), merge_id))
        return 130
    log = os.path.join(out, ".slurm", "merge-%s.out" % merge_id)
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            sys.stdout.write(f.read())
    except OSError:
        pass
    if state not in (None, "COMPLETED") or code:
        return fail("the merge job %s ended %s (exit %s; see %s): merge by hand with %s" % (merge_id, state, code, log, by_hand))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
