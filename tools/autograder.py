#!/usr/bin/env python3
"""autograder.py -- Gradescope's autograder for the workbook, on make grade's machinery.

    autograder.py zip OUT.zip [--lesson=NN-topic]    (make autograder [LESSON=NN])
    autograder.py run                                (what run_autograder runs, in Gradescope's container)

`zip` writes the zip that Gradescope's autograder specification asks for: setup.sh and
run_autograder at its root, and beside them workbook/, the part of this workbook that grading needs
(what a grading tree of make grade holds: no solutions, no wrong variants) with autograder.json
(the lesson, the seed, the grader's commit, the time limit). Gradescope unpacks it into
/autograder/source and runs setup.sh once, as root, when it builds the image: it installs the
README's student line (everything `make check` needs on the simulator) and builds the simulator, the
sandbox and the lesson's grader, so that a submission then compiles only its own file.

For each submission Gradescope runs run_autograder (working folder /autograder), which runs
`autograder.py run`: the student's files are taken from $AUTOGRADER_ROOT/submission (default
/autograder) -- a checkout of the workbook or its lessons/ folder, read as make grade reads a folder
(batch_gather.gather: links refused, sizes bounded), or the lesson's own files uploaded alone
(vector_add.cu) -- and graded by tools/grade_batch.py, make grade itself, as a class of one, in a
tree of their own with every limit and sandbox of make grade. $AUTOGRADER_ROOT/results/results.json
is then make grade's Gradescope results for that student (batch_results.gradescope: one test per
exercise with the grader's diagnosis) and the time it took. Whatever goes wrong, a results.json is
written: every exercise at 0 and one line saying why.
"""
import datetime
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile

sys.dont_write_bytecode = True
from batch_gather import gather
from batch_refused import Refused, clean
from batch_results import gradescope
from batch_tree import TREE_PARTS
from batch_unpack import MAX_FILE, open_nofollow, read_capped
from batch_workbook import ROOT, lessons_of_workbook, student_files, wanted_files

CONFIG = "autograder.json"       # beside the workbook's Makefile, in the zip
DEFAULT_TIMEOUT = 480            # seconds for one submission: Gradescope's own limit is 10 minutes by default
MAX_LOOSE_ENTRIES = 2000         # entries looked at per folder when the files were uploaded alone

SETUP = """#!/usr/bin/env bash
# setup.sh -- Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu):
# what the workbook's README says `make check` needs, then the simulator, the sandbox and the
# graders, built here once so that each submission compiles only its own file.
# (written by `make autograder`, tools/autograder.py, from the README's student install line)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
# what the README takes for granted (a C and C++ compiler, make, Python 3), then its student line
apt-get install -y build-essential python3
apt-get install -y {packages}
cd "${{AUTOGRADER_ROOT:-/autograder}}/source/workbook"
chmod +x ../run_autograder; if [ -e ../../run_autograder ]; then chmod +x ../../run_autograder; fi
make -j"$(nproc)" BACKEND=sim simlib
make BACKEND=sim {lesson_arg}graders
"""

RUN = """#!/usr/bin/env bash
# run_autograder -- Gradescope runs this for every submission: grades the student's files in
# $AUTOGRADER_ROOT/submission with make grade's machinery and writes
# $AUTOGRADER_ROOT/results/results.json (AUTOGRADER_ROOT: /autograder unless set; tools/autograder.py).
root=${AUTOGRADER_ROOT:-/autograder}
exec python3 "$root/source/workbook/tools/autograder.py" run
"""


def fail(words):
    sys.stderr.write("error: %s\n" % words)
    return 2


def student_packages():
    """The README's student install line (tools/test_install_line.py keeps it the one line)."""
    from test_install_line import readme_lines   # the one reader of the README's install lines
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = readme_lines(f.read())
    if not lines or not lines[0]:
        raise SystemExit(fail("README.md: no `sudo apt-get install` line for make check found: the autograder's setup.sh is made from it"))
    return lines[0]


def workbook_files():
    """(relative path, absolute path) of every file of the workbook a grading tree holds."""
    out = []
    for part in TREE_PARTS:
        top = os.path.join(ROOT, part)
        if os.path.isfile(top):
            out.append((part, top))
            continue
        for d, dirs, files in os.walk(top):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                if not f.endswith(".pyc"):
                    p = os.path.join(d, f)
                    out.append((os.path.relpath(p, ROOT), p))
    for f in sorted(os.listdir(os.path.join(ROOT, "tests"))):
        if f.startswith("test_") and f.endswith(".c"):
            out.append(("tests/" + f, os.path.join(ROOT, "tests", f)))
    return out


def grader_commit():
    try:
        return subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], stderr=subprocess.DEVNULL,
                                       universal_newlines=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def add(z, name, data, mode, when):
    info = zipfile.ZipInfo(name, when)
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def make_zip(out, lesson):
    seed = os.environ.get("GRADE_SEED") or str(random.SystemRandom().randrange(10 ** 8, 10 ** 9))
    if not seed.isdigit():
        return fail("GRADE_SEED=%s: give a whole number" % seed)
    timeout = os.environ.get("GRADE_BATCH_TIMEOUT") or str(DEFAULT_TIMEOUT)
    try:
        if not float(timeout) > 0:
            raise ValueError
    except ValueError:
        return fail("GRADE_BATCH_TIMEOUT=%s: give a number of seconds above 0" % timeout)
    config = {"lesson": lesson, "seed": int(seed), "commit": os.environ.get("GRADE_COMMIT") or grader_commit(),
              "timeout": float(timeout)}
    setup = SETUP.format(packages=" ".join(student_packages()), lesson_arg="LESSON=%s " % lesson[:2] if lesson else "")
    now = datetime.datetime.now().timetuple()[:6]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        add(z, "setup.sh", setup, 0o755, now)
        add(z, "run_autograder", RUN, 0o755, now)
        add(z, "workbook/" + CONFIG, json.dumps(config, indent=1) + "\n", 0o644, now)
        for rel, path in workbook_files():
            st = os.stat(path)
            info = zipfile.ZipInfo.from_file(path, "workbook/" + rel)
            info.external_attr = (stat.S_IFREG | (0o755 if st.st_mode & 0o111 else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read())
    os.replace(tmp, out)
    print("autograder: %s (%s, GRADE_SEED=%s): upload it as the assignment's autograder (Configure Autograder, Zip file upload)"
          % (out, "lesson " + lesson if lesson else "every lesson", seed))
    return 0


# --- in Gradescope's container ---------------------------------------------------------------

def loose_files(sub, lessons):
    """{(lesson, name): bytes}: the lessons' student files uploaded alone, at the top of the
    submission or one folder below (an archive Gradescope unpacked). A name that two lessons share
    counts for neither; a link or anything but a regular file where one is looked for is refused."""
    owners = {}
    for lesson in lessons:
        for name in student_files(lesson):
            owners.setdefault(name, []).append(lesson)
    names = {n: ls[0] for n, ls in owners.items() if len(ls) == 1}
    found = {}
    top = os.open(sub, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    levels = [((), top)]
    try:
        for e in sorted(os.listdir(top))[:MAX_LOOSE_ENTRIES]:
            if not e.startswith((".", "__")) and stat.S_ISDIR(os.stat(e, dir_fd=top, follow_symlinks=False).st_mode):
                levels.append(((e,), open_nofollow(top, (e,), True)))
        for comps, fd in levels:
            for e in sorted(os.listdir(fd))[:MAX_LOOSE_ENTRIES]:
                if e not in names:
                    continue
                where = "/".join(comps + (e,))
                st = os.stat(e, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    raise Refused("%s is a symbolic link (not followed): upload the file itself" % clean(where))
                if not stat.S_ISREG(st.st_mode):
                    raise Refused("%s is not a regular file: upload the file itself" % clean(where))
                key = (names[e], e)
                if key in found:
                    raise Refused("%s is in the submission twice: upload it once" % clean(e))
                with os.fdopen(open_nofollow(fd, (e,), False), "rb") as f:
                    found[key] = read_capped(f, e)
    finally:
        for _comps, fd in levels:
            os.close(fd)
    return found


def collect(sub, lessons):
    """({(lesson, name): bytes}, how they were found) from the submission folder; raises Refused."""
    if not os.path.isdir(sub) or os.path.islink(sub):
        raise Refused("no submission folder (%s)" % sub)
    try:
        return gather(sub, "folder", wanted_files(lessons_of_workbook()), None), "the files in the submission's lesson folders"
    except Refused as e:
        if not str(e).startswith("no lesson folders"):
            raise
    files = loose_files(sub, lessons)
    if not files:
        want = " or ".join("lessons/%s/%s" % (l, n) for l in lessons[:3] for n in student_files(l)[:1])
        raise Refused("no files of the assignment found in the submission: upload %s%s (or your workbook's lessons/ folder)"
                      % (want, ", ..." if len(lessons) > 3 else ""))
    return files, "%s, uploaded alone" % ", ".join(sorted(n for _l, n in files))


def backend():
    if os.environ.get("BACKEND") in ("sim", "gpu"):
        return os.environ["BACKEND"]
    try:
        gpu = b"GPU" in subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        gpu = False
    return "gpu" if gpu and shutil.which("nvcc") else "sim"


def write_results(results_dir, data):
    """results.json, written whole beside itself and renamed into place (a link there is replaced)."""
    os.makedirs(results_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=results_dir)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, os.path.join(results_dir, "results.json"))


def run():
    start = time.monotonic()
    root = os.path.abspath(os.environ.get("AUTOGRADER_ROOT") or "/autograder")
    try:
        with open(os.path.join(ROOT, CONFIG)) as f:
            config = json.load(f)
    except (OSError, ValueError):
        config = {}
    lesson = config.get("lesson")
    lessons = [lesson] if lesson else lessons_of_workbook()
    results_dir = os.path.join(root, "results")

    def finish(data, note=None):
        data["execution_time"] = int(time.monotonic() - start)
        if note:
            data["output"] = "%s\n%s" % (data.get("output", ""), note)
        write_results(results_dir, data)
        print(data.get("output", ""))
        return 0

    def nothing(status):
        return finish(gradescope({l: None for l in lessons}, status))

    work = tempfile.mkdtemp(prefix="autograder-")   # 0700: the sandbox stages what its uids need
    try:
        try:
            files, how = collect(os.path.join(root, "submission"), lessons)
        except Refused as e:
            return nothing("error: %s" % e)
        except OSError as e:
            return nothing("error: the submission cannot be read (%s)" % os.strerror(e.errno))
        subs = os.path.join(work, "submissions")
        for (l, name), data in files.items():
            os.makedirs(os.path.join(subs, "submission", l), exist_ok=True)
            with open(os.path.join(subs, "submission", l, name), "wb") as f:
                f.write(data)
        env = dict(os.environ)
        if config.get("seed") is not None:
            env.setdefault("GRADE_SEED", str(config["seed"]))
        env.setdefault("GRADE_COMMIT", str(config.get("commit") or "unknown"))
        env.setdefault("GRADE_BATCH_TIMEOUT", str(config.get("timeout") or DEFAULT_TIMEOUT))
        book = os.path.join(work, "gradebook")
        cmd = [sys.executable, os.path.join(ROOT, "tools", "grade_batch.py"), subs, book, "--backend=" + backend(), "--jobs=1"]
        if lesson:
            cmd.append("--lesson=" + lesson)
        sys.stdout.flush()
        subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL)
        try:
            with open(os.path.join(book, "submission", "results.json")) as f:
                data = json.load(f)
            with open(os.path.join(book, "submission", "check.log"), errors="replace") as f:
                sys.stdout.write(f.read(MAX_FILE))   # for the instructor: Gradescope keeps stdout apart
        except (OSError, ValueError):
            return nothing("error: the grader stopped without a result (internal error; see the autograder's output)")
        return finish(data, "graded %s" % how)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    args = [a for a in argv if not a.startswith("--")]
    if args[:1] == ["run"] and len(args) == 1:
        return run()
    if args[:1] == ["zip"] and len(args) == 2:
        lesson = opts.get("lesson")
        if lesson is not None:
            known = lessons_of_workbook()
            matches = [l for l in known if l == lesson or l[:2] == lesson[:2] and re.fullmatch(r"\d\d(-.*)?", lesson)]
            if len(lesson.split()) != 1 or len(matches) != 1:
                return fail("LESSON=%s: the autograder grades one lesson (LESSON=02) or, without LESSON, every lesson" % lesson)
            lesson = matches[0]
        return make_zip(args[1], lesson)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
