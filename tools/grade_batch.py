#!/usr/bin/env python3
"""grade_batch.py -- grade a class: every submission in its own clean tree, in parallel.

    grade_batch.py SUBMISSIONS_DIR OUT_DIR [--lesson NN] [--jobs N] [--backend sim|gpu]

or in three steps, one student per process, as `make grade-slurm` (tools/grade_slurm.py) runs it on
a cluster:

    grade_batch.py --plan SUBMISSIONS_DIR OUT_DIR [--lesson NN] [--backend sim|gpu]
    grade_batch.py --task[=K] [--offset=N] OUT_DIR     (student K; else N + $SLURM_ARRAY_TASK_ID)
    grade_batch.py --merge [--slurm-arrays=JOB@N,...] OUT_DIR

--plan does what a run does before grading (checks the arguments, names the students, prepares
OUT_DIR) and writes the list of students, the lesson, backend, seed, commit, build folder and time
limit to OUT_DIR/.slurm/plan.json. --task grades one of them exactly as a run does (grade_one) and
writes its result.json, results.json and check.log. --merge writes gradebook.csv and lms.csv from
the students' result.json files; a student whose task left none (killed at its time limit, a node
that failed, a cancelled job) gets an error row with 0 points and a result.json saying so.

A submission is an entry of SUBMISSIONS_DIR named after the student: a folder (a copy of
`lessons/`, or a checkout of the whole workbook), or an archive of one (.zip, .tar, .tar.gz, .tgz,
.tar.bz2, .tar.xz). Only the student's own files are taken from it -- each lesson's `<name>.cu`
(and lesson 12's Python files); headers, CPU references, graders and the Makefile come from this
workbook -- and each is graded with `make check` in a fresh copy of the workbook under
OUT_DIR/trees/<student>.

Writes OUT_DIR/gradebook.csv (student, points per lesson, total, max, status), OUT_DIR/lms.csv (the
same points as Canvas's and Moodle's grade import read them) and, per student,
OUT_DIR/<student>/result.json (the lessons' results, one schema whatever happened),
OUT_DIR/<student>/results.json in Gradescope's format and OUT_DIR/<student>/check.log.

Everything in a submission is hostile until checked, each concern in a module of its own beside
this one (this file is the driver: the arguments, the parallel grading, the gradebook):
- batch_names.py: a student's name is the entry's name when it is plainly safe; any other name,
  and names that two entries share, becomes a safe name plus 8 hex digits of a hash (result.json
  keeps the original as "entry"; the status says "renamed"). No name reaches a shell: there is none.
- batch_gather.py, batch_unpack.py: a submission is read by a child process -- an archive in the
  sandbox (build/tools/sandbox), a folder with rlimits -- and only the student's files come back;
  links, devices, absolute or '..' member names, encrypted members and archives past the size
  bounds are refused: that student gets an error, nobody else notices.
- batch_processes.py: `make check` runs in its own session with an environment built from an
  allow-list, and its whole process group is killed when it returns or when GRADE_BATCH_TIMEOUT
  seconds (default 3600) have passed.
- batch_results.py: a result is the grader's JSON in that student's tree, checked against the
  grader (exercise ids and points), the seed, the backend and the hashes of the files graded;
  anything missing or inconsistent is an error with 0 points for that lesson.
- batch_tree.py: the grading trees, and every file written without following a link.
"""
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import traceback

# The modules beside this one, imported without leaving a __pycache__ in the workbook (and so in
# every grading tree copied from it).
sys.dont_write_bytecode = True
from batch_gather import find_sandbox, gather
from batch_names import ARCHIVES, assign_names, csv_cell, split_entry
from batch_processes import STOP, clean_env, kill_all, run_check
from batch_refused import Refused
from batch_results import check_result, gradescope, read_result
from batch_tree import create_file, fresh_dir, make_tree, write_file
from batch_unpack import open_nofollow
from batch_workbook import ROOT, build_dir, lesson_max, lessons_of_workbook, student_files, wanted_files

MARKER = ".grade-batch"   # says OUT_DIR is a gradebook (so students' folders in it may be replaced)


def refuse_kind(kind):
    """Raises Refused for an entry that is neither a folder nor an archive (classify()'s kind)."""
    if kind is None or kind == "special":
        raise Refused("not a folder or an archive (%s)" % ", ".join(ARCHIVES) if kind is None else
                      "not a folder or a regular file")
    if kind == "link":
        raise Refused("the submission is a symbolic link (not followed)")


def grade_one(student, kind, entry, out_fd, trees_fd, trees, lessons, selected, backend, timeout, wanted, sandbox):
    """Grades one submission (entry, of the kind classify() says); returns (per-lesson results,
    status). Never raises: a bad submission costs only its own student."""
    graded = [selected] if selected else lessons
    results = {l: None for l in graded}
    try:
        sdir = os.open(student, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    except OSError as e:
        return results, "error: cannot open the student's output folder (%s)" % os.strerror(e.errno)
    try:
        refuse_kind(kind)
        files = gather(entry, kind, wanted, sandbox)
        tree_fd = fresh_dir(trees_fd, student)
        try:
            tree = os.path.join(trees, student)
            make_tree(tree, backend, graded)
            hashes = {l: {} for l in graded}
            for lesson in lessons:
                ldir = open_nofollow(tree_fd, ("lessons", lesson), True)
                try:
                    for name in student_files(lesson):
                        if (lesson, name) in files:
                            write_file(ldir, name, files[(lesson, name)])
                            data = files[(lesson, name)]
                        else:   # the workbook's skeleton stays
                            with open(os.path.join(ROOT, "lessons", lesson, name), "rb") as f:
                                data = f.read()
                        if lesson in hashes:
                            hashes[lesson][name] = hashlib.sha256(data).hexdigest()
                finally:
                    os.close(ldir)
            if STOP.is_set():
                raise Refused("grading was interrupted")
            cmd = ["make", "-s", "check", "BACKEND=" + backend] + (["LESSON=" + selected] if selected else [])
            log = create_file(sdir, "check.log")
            try:
                timed_out = run_check(cmd, tree, clean_env(backend), log, timeout)
            finally:
                os.close(log)
            status = "graded"
            if timed_out:
                status = "error: grading took longer than %d s (GRADE_BATCH_TIMEOUT)" % timeout
            for lesson in graded:
                try:
                    r = read_result(tree_fd, backend, lesson)
                    check_result(r, lesson, backend, hashes[lesson])
                    results[lesson] = r
                except Refused as e:
                    if status == "graded":
                        status = "error: %s: %s (see %s/check.log)" % (lesson, e, student)
            for lesson in graded:
                r = results[lesson]
                if r and r["status"] == "compile-error" and status == "graded":
                    status = "compile error in %s" % lesson
            return results, status
        finally:
            os.close(tree_fd)
    except Refused as e:
        return results, "error: %s" % e
    except Exception as e:   # never stops the class
        traceback.print_exc()
        return results, "error: internal error while grading (%s)" % type(e).__name__
    finally:
        os.close(sdir)


def classify(subs_fd, raw):
    """'folder', 'archive', 'link', 'special', None (a file that is not an archive) or 'skip'."""
    st = os.stat(raw, dir_fd=subs_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if not stat.S_ISREG(st.st_mode):
        return "special"
    if split_entry(raw)[1]:
        return "archive"
    return "skip" if raw.startswith(".") else None   # .DS_Store and the like


def inside(a, b):
    """Whether path a is b or below it (links resolved)."""
    a, b = os.path.realpath(a), os.path.realpath(b)
    return a == b or a.startswith(b.rstrip(os.sep) + os.sep)


def write_student(out_fd, student, raw, status, results, backend):
    """Writes the student's result.json and Gradescope's results.json; returns (points, maximum,
    status), the status saying so if they could not be written."""
    total = sum(r["points"] for r in results.values() if r)
    maximum = sum(r["total_points"] if r else lesson_max(l) for l, r in results.items())
    record = {"schema": 1, "student": student, "entry": os.fsencode(raw).decode("utf-8", "backslashreplace"),
              "status": status, "points": total, "total_points": maximum,
              "seed": os.environ.get("GRADE_SEED"), "backend": backend, "lessons": results}
    try:
        sdir = os.open(student, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
        try:
            write_file(sdir, "result.json", json.dumps(record, indent=1).encode())
            write_file(sdir, "results.json", json.dumps(gradescope(results, status), indent=1).encode())
        finally:
            os.close(sdir)
    except OSError as e:
        status = "error: cannot write the student's results (%s)" % os.strerror(e.errno)
    return total, maximum, status


def write_csv(out, out_fd, name, header, rows):
    """OUT_DIR/name, written whole beside it and then renamed into place: a reader never sees half
    of it, and a link there is replaced, not followed."""
    fd, tmp = tempfile.mkstemp(prefix="." + name[:-len(".csv")] + "-", suffix=".csv", dir=out)
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows([[csv_cell(c) for c in row] for row in rows])
    os.chmod(tmp, 0o644)
    try:
        st = os.stat(name, dir_fd=out_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):   # left by an older grade_batch that took it for a student
            shutil.rmtree(name, dir_fd=out_fd)
    except FileNotFoundError:
        pass
    os.replace(tmp, os.path.join(out, name))


def write_gradebook(out, out_fd, shown, rows):
    """OUT_DIR/gradebook.csv, one row per student (sorted)."""
    rows.sort()
    write_csv(out, out_fd, "gradebook.csv", ["student"] + shown + ["total", "max", "status"], rows)


# The columns by which Canvas's grade import finds a student (one of them is enough; Moodle's asks
# which column to match on), then one column of points per lesson.
LMS_IDS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def write_lms(out, out_fd, shown, rows):
    """OUT_DIR/lms.csv, the gradebook as a learning-management system imports it (Canvas's and
    Moodle's grade import): per student (the gradebook's name, as Student and as SIS Login ID) the
    points of each lesson, one column per lesson named after it; nothing else, so that no other
    column becomes an assignment."""
    write_csv(out, out_fd, "lms.csv", LMS_IDS + shown,
              [[row[0], "", "", row[0], ""] + row[1:1 + len(shown)] for row in sorted(rows)])


def finish(out_fd, student, why, raw, results, status, backend, shown):
    """Writes a graded student's files; returns their gradebook row (and prints it)."""
    if why:
        status += "; renamed (%s)" % why
    total, maximum, status = write_student(out_fd, student, raw, status, results, backend)
    print("  %-24s %4d / %-4d %s" % (student, total, maximum, status))
    return [student] + [(results.get(l) or {}).get("points", 0) for l in shown] + [total, maximum, status]


def error(words):
    sys.stderr.write("error: %s\n" % words)
    return 2


def setup(subs_arg, out_arg, opts):
    """Checks a run's arguments and environment; returns (lessons, selected, backend, jobs, timeout),
    or the exit status after one line saying what to fix."""
    subs, out = os.path.abspath(subs_arg), os.path.abspath(out_arg)
    if not os.path.isdir(subs):
        return error("SUBMISSIONS=%s is not a folder: give a folder holding one entry per student" % subs_arg)
    if inside(out, subs) or inside(subs, out) or inside(ROOT, out):
        return error("GRADEBOOK=%s and SUBMISSIONS=%s must be apart (neither inside the other, nor holding the workbook)" % (out_arg, subs_arg))
    if os.path.isdir(out) and os.listdir(out) and not any(os.path.lexists(os.path.join(out, m)) for m in (MARKER, "gradebook.csv", "trees")):
        return error("GRADEBOOK=%s holds files that are not a gradebook: give a new or empty folder" % out_arg)
    lessons = lessons_of_workbook()
    selected = next((l for l in lessons if opts.get("lesson") and l.startswith(opts["lesson"])), None)
    if opts.get("lesson") and not selected:
        return error("LESSON=%s: no such lesson; the lessons are: %s" % (opts["lesson"], " ".join(lessons)))
    backend = opts.get("backend", "sim")
    try:
        jobs = max(1, int(opts.get("jobs", os.cpu_count() or 1)))
        timeout = float(os.environ.get("GRADE_BATCH_TIMEOUT") or 3600)
        if not timeout > 0:
            raise ValueError
    except ValueError:
        return error("JOBS must be a whole number and GRADE_BATCH_TIMEOUT a number of seconds above 0")
    if os.environ.get("GRADE_SEED") and not os.environ["GRADE_SEED"].isdigit():
        return error("GRADE_SEED=%s: give a whole number" % os.environ["GRADE_SEED"])
    return lessons, selected, backend, jobs, timeout


def prepare(subs, out, subs_arg):
    """Names the entries of subs and prepares out (its marker, trees/, an empty folder per student,
    last run's trees removed); returns (out_fd, trees_fd, entries: [(student, why, raw, kind)],
    skipped), or the exit status after one line."""
    subs_fd = os.open(subs, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    raws, skipped = [], []
    for raw in sorted(os.listdir(subs_fd)):
        try:
            kind = classify(subs_fd, raw)
        except OSError:
            kind = "special"
        (skipped if kind == "skip" else raws).append((raw, kind))
    os.close(subs_fd)
    if not raws:
        return error("%s holds no submissions (folders or .zip/.tar/.tar.gz archives)" % subs_arg)
    names = assign_names([r for r, _k in raws])

    os.makedirs(out, exist_ok=True)
    out_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    os.close(os.open(MARKER, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644, dir_fd=out_fd))
    try:
        st = os.stat("trees", dir_fd=out_fd, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink("trees", dir_fd=out_fd)
    except FileNotFoundError:
        pass
    try:
        os.mkdir("trees", 0o755, dir_fd=out_fd)
    except FileExistsError:
        pass
    trees_fd = os.open("trees", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    entries = []
    for raw, kind in raws:
        student, why = names[raw]
        os.close(fresh_dir(out_fd, student))
        try:   # last run's tree of this student
            shutil.rmtree(student, dir_fd=trees_fd)
        except FileNotFoundError:
            pass
        entries.append((student, why, raw, kind))
    if "GRADE_COMMIT" not in os.environ:
        try:
            os.environ["GRADE_COMMIT"] = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], stderr=subprocess.DEVNULL,
                                                                 universal_newlines=True).strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    return out_fd, trees_fd, entries, skipped


def tell_names(entries, skipped):
    for raw, _k in skipped:
        print("  skipped %s (a hidden file, not an archive)" % ascii(raw))
    for student, why, raw, _k in entries:
        if why:
            print("  %s is %s (%s)" % (ascii(raw), student, why))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    flags = {a[2:] for a in argv if a.startswith("--") and "=" not in a}
    if "task" in opts or "task" in flags or "merge" in flags:
        if len(args) != 1:
            sys.stderr.write(__doc__)
            return 2
        return task(os.path.abspath(args[0]), opts) if "merge" not in flags else merge(os.path.abspath(args[0]), opts)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    subs, out = os.path.abspath(args[0]), os.path.abspath(args[1])
    checked = setup(args[0], args[1], opts)
    if isinstance(checked, int):
        return checked
    lessons, selected, backend, jobs, timeout = checked
    if "plan" in flags:
        planned = plan(subs, out, args[0], selected, backend, timeout)
        if isinstance(planned, int):
            return planned
        print("planned %d student(s) in %s" % (len(planned[0]), os.path.join(out, PLAN)))
        tell_names(*planned[1:])
        return 0
    prepared = prepare(subs, out, args[0])
    if isinstance(prepared, int):
        return prepared
    out_fd, trees_fd, entries, skipped = prepared
    sandbox, why_not = find_sandbox()   # where archives are read: in the sandbox, or said here why not
    if why_not:
        sys.stderr.write("warning: %s\n" % why_not)
    wanted = wanted_files(lessons)
    print("grading %d submission(s), %d at a time, backend %s%s" % (len(entries), jobs, backend, ", lesson " + selected if selected else ""))
    tell_names(entries, skipped)
    shown = [selected] if selected else lessons
    trees = os.path.join(out, "trees")
    rows = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(grade_one, s, kind, os.path.join(subs, raw), out_fd, trees_fd, trees, lessons, selected,
                               backend, timeout, wanted, sandbox): (s, why, raw) for s, why, raw, kind in entries}
        for fut in concurrent.futures.as_completed(futures):
            student, why, raw = futures[fut]
            try:
                results, status = fut.result()
            except Exception as e:
                results, status = {l: None for l in shown}, "error: internal error (%s)" % type(e).__name__
            rows.append(finish(out_fd, student, why, raw, results, status, backend, shown))
    except BaseException:   # Ctrl-C: what runs is killed, nothing queued starts
        kill_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    write_gradebook(out, out_fd, shown, rows)
    write_lms(out, out_fd, shown, rows)
    print("gradebook: %s (for Canvas or Moodle: lms.csv beside it)" % os.path.join(out, "gradebook.csv"))
    return 0


# ---------------------------------------------------------------------------------------------
# One student per process (make grade-slurm): --plan once, --task per student, --merge at the end.
# The plan names every student here, once; a task is given only its number, so no student's name
# reaches Slurm, a job script or a shell.
PLAN = os.path.join(".slurm", "plan.json")   # in OUT_DIR: a name no student can have (none starts with '.')


def plan(subs, out, subs_arg, selected, backend, timeout):
    """--plan: prepares out as a run does and writes the plan; returns its students, entries and
    skipped entries (for tell_names), or the exit status after one line."""
    prepared = prepare(subs, out, subs_arg)
    if isinstance(prepared, int):
        return prepared
    out_fd, trees_fd, entries, skipped = prepared
    os.close(trees_fd)
    try:
        os.mkdir(".slurm", 0o755, dir_fd=out_fd)
    except FileExistsError:
        pass
    record = {"schema": 1, "submissions": subs, "lesson": selected, "backend": backend, "timeout": timeout,
              "seed": os.environ.get("GRADE_SEED") or None, "commit": os.environ.get("GRADE_COMMIT"), "build": build_dir(),
              "students": [{"student": s, "why": why, "entry": os.fsencode(raw).hex(), "kind": kind} for s, why, raw, kind in entries]}
    slurm_fd = os.open(".slurm", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    try:
        write_file(slurm_fd, "plan.json", json.dumps(record, indent=1).encode())
    finally:
        os.close(slurm_fd)
        os.close(out_fd)
    return record["students"], entries, skipped


def read_plan(out):
    """(the plan, out_fd, its environment set: seed, commit, build folder), or raises Refused."""
    try:
        out_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as e:
        raise Refused("cannot open GRADEBOOK=%s (%s)" % (out, os.strerror(e.errno)))
    try:
        with os.fdopen(open_nofollow(out_fd, PLAN.split(os.sep), False), "rb") as f:
            record = json.loads(f.read().decode("utf-8"))
        if record.get("schema") != 1 or not isinstance(record.get("students"), list):
            raise ValueError
    except (OSError, ValueError, Refused):
        os.close(out_fd)
        raise Refused("%s has no readable plan (%s): grade it again with make grade-slurm" % (out, PLAN))
    for var, key in (("GRADE_SEED", "seed"), ("GRADE_COMMIT", "commit"), ("GRADE_BATCH_BUILD", "build")):
        if record.get(key):
            os.environ[var] = str(record[key])
        else:
            os.environ.pop(var, None)
    return record, out_fd


def task(out, opts):
    """--task: grades the plan's student K (--task=K, or --offset plus $SLURM_ARRAY_TASK_ID)."""
    try:
        record, out_fd = read_plan(out)
    except Refused as e:
        return error(str(e))
    try:
        k = int(opts["task"]) if "task" in opts else int(opts.get("offset", 0)) + int(os.environ["SLURM_ARRAY_TASK_ID"])
        if k < 0:
            raise IndexError
        student = record["students"][k]
    except (KeyError, ValueError):
        return error("--task needs a number (--task=K), or SLURM_ARRAY_TASK_ID in the environment")
    except IndexError:
        return error("no student %s in %s's plan of %d" % (k, out, len(record["students"])))
    # Slurm ends a task (time limit, scancel) with SIGTERM: what it started goes with it.
    signal.signal(signal.SIGTERM, lambda *_: (kill_all(), sys.exit(128 + signal.SIGTERM)))
    lessons = lessons_of_workbook()
    selected, backend = record["lesson"], record["backend"]
    shown = [selected] if selected else lessons
    raw = os.fsdecode(bytes.fromhex(student["entry"]))
    trees_fd = os.open("trees", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    sandbox, why_not = find_sandbox()
    if why_not:
        sys.stderr.write("warning: %s\n" % why_not)
    print("grading student %d of %d, backend %s%s" % (k + 1, len(record["students"]), backend, ", lesson " + selected if selected else ""))
    results, status = grade_one(student["student"], student["kind"], os.path.join(record["submissions"], raw), out_fd, trees_fd,
                                os.path.join(out, "trees"), lessons, selected, backend, float(record["timeout"]),
                                wanted_files(lessons), sandbox)
    finish(out_fd, student["student"], student["why"], raw, results, status, backend, shown)
    return 0


def read_record(out_fd, student, raw, shown):
    """The result.json the student's task wrote (results, status), or None if it wrote none whole."""
    try:
        with os.fdopen(open_nofollow(out_fd, (student, "result.json"), False), "rb") as f:
            r = json.loads(f.read(64 << 20).decode("utf-8"))
    except (OSError, ValueError, Refused):
        return None
    ok = (isinstance(r, dict) and r.get("schema") == 1 and r.get("student") == student and isinstance(r.get("status"), str)
          and r.get("entry") == os.fsencode(raw).decode("utf-8", "backslashreplace")
          and isinstance(r.get("lessons"), dict) and sorted(r["lessons"]) == sorted(shown)
          and all(v is None or (isinstance(v, dict) and isinstance(v.get("points"), int) and isinstance(v.get("total_points"), int))
                  for v in r["lessons"].values()))
    return (r["lessons"], r["status"]) if ok else None


def slurm_end(out, array, index):
    """Why Slurm ended a task, from the last line it wrote into the task's output, if it did."""
    try:
        with open(os.path.join(out, ".slurm", "task-%s_%d.out" % (array, index)), "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().decode("ascii", "replace")
    except OSError:
        return None
    found = re.findall(r"\*\*\* (?:JOB|STEP) [0-9.]+ ON \S+ CANCELLED AT \S+( DUE TO [A-Z][A-Z ]*[A-Z])?[^*\n]*\*\*\*", tail)
    return ("cancelled" + found[-1].lower()) if found else None


def merge(out, opts):
    """--merge: the gradebook from the students' result.json files, as a run writes it."""
    try:
        record, out_fd = read_plan(out)
    except Refused as e:
        return error(str(e))
    arrays = []   # [(job id, first student)] from --slurm-arrays=JOB@N,...
    for part in filter(None, opts.get("slurm-arrays", "").split(",")):
        job, _, first = part.partition("@")
        arrays.append((job, int(first or 0)))
    lessons = lessons_of_workbook()
    selected, backend = record["lesson"], record["backend"]
    shown = [selected] if selected else lessons
    rows, lost = [], 0
    print("merging %d student(s), backend %s%s" % (len(record["students"]), backend, ", lesson " + selected if selected else ""))
    for k, student in enumerate(record["students"]):
        name, raw = student["student"], os.fsdecode(bytes.fromhex(student["entry"]))
        done = read_record(out_fd, name, raw, shown)
        if done:
            results, status = done
            total, maximum, status = write_student(out_fd, name, raw, status, results, backend)
            rows.append([name] + [(results.get(l) or {}).get("points", 0) for l in shown] + [total, maximum, status])
            print("  %-24s %4d / %-4d %s" % (name, total, maximum, status))
            continue
        lost += 1
        where = [(job, k - first) for job, first in arrays if first <= k]
        log = ".slurm/task-%s_%d.out" % where[-1] if where else None
        why = (log and slurm_end(out, *where[-1])) or "killed, cancelled or lost with its node"
        status = "error: its Slurm task did not finish (%s)%s" % (why, "; see " + log if log else "")
        try:   # what a task that died left half written goes
            os.close(fresh_dir(out_fd, name))
        except OSError:
            pass
        rows.append(finish(out_fd, name, student["why"], raw, {l: None for l in shown}, status, backend, shown))
    write_gradebook(out, out_fd, shown, rows)
    write_lms(out, out_fd, shown, rows)
    print("gradebook: %s (for Canvas or Moodle: lms.csv beside it)" % os.path.join(out, "gradebook.csv"))
    if lost:
        print("%d student(s) have no result from their Slurm task: their rows say why, with 0 points" % lost)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
