#!/usr/bin/env python3
"""grade_batch.py -- grade a class: every submission in its own clean tree, in parallel.

    grade_batch.py SUBMISSIONS_DIR OUT_DIR [--lesson NN] [--jobs N] [--backend sim|gpu]

A submission is an entry of SUBMISSIONS_DIR named after the student: a folder (a copy of
`lessons/`, or a checkout of the whole workbook), or an archive of one (.zip, .tar, .tar.gz, .tgz).
Only the student's own files are taken from it -- each lesson's `<name>.cu`; headers, CPU
references, graders and the Makefile come from this workbook -- and each is graded with
`make check` in a fresh copy of the workbook under OUT_DIR/trees/<student>.

Writes OUT_DIR/gradebook.csv (student, points per lesson, total, max, status) and, per student,
OUT_DIR/<student>/result.json (the lessons' results, one schema whatever happened) and
OUT_DIR/<student>/results.json in Gradescope's format. GRADE_SEED is passed through.
"""
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What a grading tree needs from the workbook (never the solutions or the wrong variants).
TREE_PARTS = ["Makefile", "common", "sim", "tools", "lessons", "tests/calls", "exercises.md"]
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")
MAX_ARCHIVE_BYTES = 64 << 20


def lessons_of_workbook():
    return sorted(d for d in os.listdir(os.path.join(ROOT, "lessons")) if d[:2].isdigit())


def student_files(lesson):
    """The files a student owns in a lesson: <name>.cu beside <name>.h, and the lesson folder's own
    Python modules (lesson 12's student files)."""
    d = os.path.join(ROOT, "lessons", lesson)
    mine = []
    for h in sorted(f for f in os.listdir(d) if f.endswith(".h")):
        cu = h[:-2] + ".cu"
        if os.path.exists(os.path.join(d, cu)):
            mine.append(cu)
            break
    mine += sorted(f for f in os.listdir(d) if f.endswith(".py") and os.path.isfile(os.path.join(d, f)))
    return mine


def unpack(path, into):
    """Extracts an archive safely (no absolute paths, no '..', no links, bounded size)."""
    total = 0
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                name = os.path.normpath(info.filename)
                if name.startswith(("/", "..")) or info.is_dir():
                    continue
                total += info.file_size
                if total > MAX_ARCHIVE_BYTES:
                    raise ValueError("archive larger than %d MiB" % (MAX_ARCHIVE_BYTES >> 20))
                os.makedirs(os.path.join(into, os.path.dirname(name)), exist_ok=True)
                with z.open(info) as src, open(os.path.join(into, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)
    else:
        with tarfile.open(path) as t:
            for m in t.getmembers():
                name = os.path.normpath(m.name)
                if name.startswith(("/", "..")) or not m.isfile():
                    continue
                total += m.size
                if total > MAX_ARCHIVE_BYTES:
                    raise ValueError("archive larger than %d MiB" % (MAX_ARCHIVE_BYTES >> 20))
                os.makedirs(os.path.join(into, os.path.dirname(name)), exist_ok=True)
                src = t.extractfile(m)
                with open(os.path.join(into, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)


def find_lessons_dir(top, lessons):
    """The folder that holds the NN-topic folders: top itself, or a lessons/ somewhere below."""
    for here, dirs, _files in os.walk(top):
        if any(d in lessons for d in dirs):
            return here
    return None


def copy_part(part, tree):
    src = os.path.join(ROOT, part)
    dst = os.path.join(tree, part)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst, copy_function=shutil.copy2, ignore=shutil.ignore_patterns("__pycache__"))
    elif os.path.exists(src):
        shutil.copy2(src, dst)


def make_tree(tree, backend):
    if os.path.exists(tree):
        shutil.rmtree(tree)
    os.makedirs(tree)
    for part in TREE_PARTS:
        copy_part(part, tree)
    for f in os.listdir(os.path.join(ROOT, "tests")):
        if f.startswith("test_") and f.endswith(".c"):
            shutil.copy2(os.path.join(ROOT, "tests", f), os.path.join(tree, "tests", f))
    if backend == "sim":
        # The simulator's runtime is the workbook's, built once (copied sources keep their times, so
        # make sees it up to date).
        os.makedirs(os.path.join(tree, "build"), exist_ok=True)
        os.symlink(os.path.join(ROOT, "build", "simlib"), os.path.join(tree, "build", "simlib"))


def grade_one(student, entry, out, lessons, selected, backend):
    """Grades one submission; returns (student, per-lesson results, status)."""
    tree = os.path.join(out, "trees", student)
    status = "graded"
    results = {}
    with tempfile.TemporaryDirectory(prefix="grade-unpack-") as tmp:
        src = entry
        try:
            if os.path.isfile(entry):
                unpack(entry, tmp)
                src = tmp
            make_tree(tree, backend)
            where = find_lessons_dir(src, lessons)
            if where is None:
                raise ValueError("no lesson folders (NN-topic/) found in the submission")
            for lesson in lessons:
                for name in student_files(lesson):
                    mine = os.path.join(where, lesson, name)
                    if os.path.isfile(mine) and not os.path.islink(mine):
                        shutil.copyfile(mine, os.path.join(tree, "lessons", lesson, name))
        except (OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as e:
            status = "error: %s" % e
    if status == "graded":
        env = dict(os.environ, BACKEND=backend)
        env.pop("MAKEFLAGS", None)
        env.pop("MAKELEVEL", None)
        cmd = ["make", "-s", "check", "BACKEND=" + backend] + (["LESSON=" + selected] if selected else [])
        with open(os.path.join(out, student, "check.log"), "w") as log:
            try:
                subprocess.run(cmd, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=3600)
            except subprocess.TimeoutExpired:
                status = "error: grading took longer than an hour"
    for lesson in ([selected] if selected else lessons):
        path = os.path.join(tree, "build", backend, "results", lesson + ".json")
        try:
            with open(path) as f:
                results[lesson] = json.load(f)
        except (OSError, ValueError):
            results[lesson] = None
            if status == "graded":
                status = "error: no result for %s (see %s/check.log)" % (lesson, student)
    return student, results, status


def gradescope(results):
    tests, score = [], 0
    for lesson, r in sorted(results.items()):
        for e in (r or {}).get("exercises", []):
            got = e["points"] if e["passed"] else 0
            score += got
            tests.append({"name": "%s %s" % (e["id"], e["title"]), "score": got, "max_score": e["points"],
                          "output": e.get("message") or e["status"], "visibility": "visible"})
    return {"score": score, "tests": tests}


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    subs, out = os.path.abspath(args[0]), os.path.abspath(args[1])
    if not os.path.isdir(subs):
        sys.stderr.write("error: SUBMISSIONS=%s is not a folder: give a folder holding one entry per student\n" % args[0])
        return 2
    lessons = lessons_of_workbook()
    selected = next((l for l in lessons if opts.get("lesson") and l.startswith(opts["lesson"])), None)
    if opts.get("lesson") and not selected:
        sys.stderr.write("error: LESSON=%s: no such lesson; the lessons are: %s\n" % (opts["lesson"], " ".join(lessons)))
        return 2
    backend = opts.get("backend", "sim")
    jobs = int(opts.get("jobs", os.cpu_count() or 1))
    entries = []
    for name in sorted(os.listdir(subs)):
        path = os.path.join(subs, name)
        student = name
        for ext in ARCHIVES:
            if name.endswith(ext):
                student = name[: -len(ext)]
        if os.path.isdir(path) or name.endswith(ARCHIVES):
            entries.append((student, path))
    if not entries:
        sys.stderr.write("error: %s holds no submissions (folders or .zip/.tar/.tar.gz archives)\n" % args[0])
        return 2
    os.makedirs(out, exist_ok=True)
    for student, _ in entries:
        os.makedirs(os.path.join(out, student), exist_ok=True)
    try:
        os.environ.setdefault("GRADE_COMMIT", subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], stderr=subprocess.DEVNULL,
                                                                      universal_newlines=True).strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    print("grading %d submission(s), %d at a time, backend %s%s" % (len(entries), jobs, backend, ", lesson " + selected if selected else ""))
    shown = [selected] if selected else lessons
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grade_one, s, p, out, lessons, selected, backend) for s, p in entries]
        for fut in concurrent.futures.as_completed(futures):
            student, results, status = fut.result()
            for r in results.values():
                if r and r.get("status") == "compile-error" and status == "graded":
                    status = "compile error in %s" % r["lesson"]
            total = sum((r or {}).get("points", 0) for r in results.values())
            maximum = sum((r or {}).get("total_points", 0) for r in results.values())
            record = {"schema": 1, "student": student, "status": status, "points": total, "total_points": maximum,
                      "seed": os.environ.get("GRADE_SEED"), "backend": backend, "lessons": results}
            with open(os.path.join(out, student, "result.json"), "w") as f:
                json.dump(record, f, indent=1)
            with open(os.path.join(out, student, "results.json"), "w") as f:
                json.dump(gradescope(results), f, indent=1)
            rows.append([student] + [(results.get(l) or {}).get("points", 0) for l in shown] + [total, maximum, status])
            print("  %-24s %4d / %-4d %s" % (student, total, maximum, status))
    rows.sort()
    with open(os.path.join(out, "gradebook.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + shown + ["total", "max", "status"])
        w.writerows(rows)
    print("gradebook: %s" % os.path.join(out, "gradebook.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
