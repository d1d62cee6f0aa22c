#!/usr/bin/env python3
"""classroom.py -- GitHub Classroom's autograding for the workbook: a workflow of one test per exercise.

    classroom.py write [--lesson=NN-topic ...]   the workflow on stdout (every lesson, or these)
    classroom.py check                           fails (exit 1) when .github/classroom/autograding.yml is stale
    classroom.py install DIR [--lesson=...]      writes it as DIR/.github/workflows/classroom.yml (make classroom)
    classroom.py passed NN.k                     exit 0 only if the last `make check` passed exercise NN.k
                                                 on the file as it is now

GitHub Classroom grades a student's repository with a GitHub Actions workflow in it,
.github/workflows/classroom.yml: steps of classroom-resources/autograding-command-grader (a command,
a timeout in minutes, max-score: the points it gives when the command exits 0), then
classroom-resources/autograding-grading-reporter, which adds them up for Classroom (each step's
result in an environment variable <ID>_RESULTS, the step ids in `runners`). The workflow written
here installs the README's student line, builds the simulator, and has one step per exercise with
its points from the lesson's grader (tests/test_NN_*.c): `make check LESSON=NN EX=NN.k`, then
`passed NN.k`, since `make check` also exits 0 for an exercise that only waits for a GPU (GitHub's
runners have none) -- those never give points there. A lesson's steps add up to its points.

The checked-in template is .github/classroom/autograding.yml (every lesson): `make classroom` writes
it, or the lessons of LESSON, into a student repository template (the student release by default).
"""
import os
import re
import sys

sys.dont_write_bytecode = True
import results
from batch_workbook import ROOT, grader_table, lessons_of_workbook

TEMPLATE = os.path.join(".github", "classroom", "autograding.yml")
INSTALLED = os.path.join(".github", "workflows", "classroom.yml")
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
TIMEOUT_MIN = 10


def q(text):
    """A YAML single-quoted scalar."""
    return "'%s'" % str(text).replace("'", "''")


def step_id(ex):
    return "ex" + ex.replace(".", "_")


def command(ex):
    return "make check LESSON=%s EX=%s && python3 tools/classroom.py passed %s" % (ex[:2], ex, ex)


def student_line():
    from test_install_line import readme_lines   # the one reader of the README's install lines
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = readme_lines(f.read())
    if not lines or not lines[0]:
        raise SystemExit("error: README.md: no `sudo apt-get install` line for make check found: the workflow installs it")
    return lines[0]


def workflow(lessons):
    out = ["# GitHub Classroom's autograding for the CUDA-C workbook: one test per exercise, worth its points",
           "# when `make check LESSON=NN EX=NN.k` passes it on the CPU simulator. Written by tools/classroom.py;",
           "# `make classroom` puts it into a student repository template as %s." % INSTALLED,
           "name: Autograding Tests",
           "'on':",
           "- push",
           "- workflow_dispatch",
           "- repository_dispatch",
           "permissions:",
           "  checks: write",
           "  actions: read",
           "  contents: read",
           "jobs:",
           "  run-autograding-tests:",
           "    runs-on: ubuntu-latest",
           "    if: github.actor != 'github-classroom[bot]'",
           "    steps:",
           "    - name: Checkout code",
           "      uses: actions/checkout@v4",
           "    - name: Install what make check needs (the README's first line)",
           "      run: sudo apt-get update && sudo apt-get install -y %s" % " ".join(student_line()),
           "    - name: Build the simulator",
           "      run: make -j\"$(nproc)\" simlib"]
    ids = []
    for lesson in lessons:
        table = grader_table(lesson)
        if not table:
            raise SystemExit("error: %s: its grader's table of exercises (tests/test_%s_*.c) cannot be read" % (lesson, lesson[:2]))
        for ex, points, title, _gpu in table:
            name = "%s %s" % (ex, title)
            ids.append(step_id(ex))
            out += ["    - name: %s" % q(name),
                    "      id: %s" % step_id(ex),
                    "      uses: %s" % GRADER,
                    "      with:",
                    "        test-name: %s" % q(name),
                    "        setup-command: ''",
                    "        command: %s" % q(command(ex)),
                    "        timeout: %d" % TIMEOUT_MIN,
                    "        max-score: %d" % points]
    out += ["    - name: Autograding Reporter",
            "      uses: %s" % REPORTER,
            "      env:"]
    out += ["        %s_RESULTS: \"${{steps.%s.outputs.result}}\"" % (i.upper(), i) for i in ids]
    out += ["      with:",
            "        runners: %s" % ",".join(ids)]
    return "\n".join(out) + "\n"


def chosen(opts):
    known = lessons_of_workbook()
    wanted = [v for k, v in opts if k == "lesson"]
    if not wanted:
        return known
    out = []
    for w in wanted:
        m = [l for l in known if l == w or (re.fullmatch(r"\d\d", w) and l[:2] == w)]
        if len(m) != 1:
            raise SystemExit("error: LESSON=%s: no such lesson; the lessons are: %s" % (w, " ".join(known)))
        out.append(m[0])
    return out


def install(target, lessons):
    if not (os.path.isfile(os.path.join(target, "Makefile")) and os.path.isdir(os.path.join(target, "lessons"))):
        sys.stderr.write("error: CLASSROOM=%s is not a workbook (no Makefile and lessons/): give the student repository template's folder\n" % target)
        return 2
    path = os.path.join(target, INSTALLED)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(workflow(lessons))
    os.replace(path + ".tmp", path)
    print("classroom: %s (%d lesson%s): commit it with the template; GitHub Classroom runs it on every push"
          % (path, len(lessons), "" if len(lessons) == 1 else "s"))
    return 0


def last_result(lesson):
    """The newest result of the lesson among the backends' (what the last `make check` wrote)."""
    found = []
    for backend in ("sim", "gpu"):
        path = os.path.join(ROOT, "build", backend, "results", lesson + ".json")
        if os.path.exists(path):
            found.append((os.path.getmtime(path), path))
    return results.load(max(found)[1]) if found else None


def passed(ex):
    lesson = next((l for l in lessons_of_workbook() if l[:2] == ex[:2]), None)
    data = last_result(lesson) if lesson else None
    e = next((e for e in (data or {}).get("exercises", []) if isinstance(e, dict) and e.get("id") == ex), None)
    if e is None:
        print("classroom: no result of %s: `make check LESSON=%s EX=%s` did not grade it" % (ex, ex[:2], ex))
        return 1
    if e.get("from_check"):   # taken back from an earlier run (tools/results.py keep), not graded by this one
        print("classroom: %s was not graded by this run: no points" % ex)
        return 1
    if e.get("status") != "passed":
        print("classroom: %s %s: no points%s" % (ex, e.get("status"), " (it needs a GPU, and this runner has none)" if e.get("status") == "needs-gpu" else ""))
        return 1
    if results.freshness(data, ex, ROOT) != "same":
        print("classroom: %s passed on a file that has changed since: no points" % ex)
        return 1
    return 0


def main(argv):
    opts = [tuple(a[2:].split("=", 1)) for a in argv if a.startswith("--") and "=" in a]
    args = [a for a in argv if not a.startswith("--")]
    if args == ["write"]:
        sys.stdout.write(workflow(chosen(opts)))
        return 0
    if args == ["check"]:
        with open(os.path.join(ROOT, TEMPLATE)) as f:
            if f.read() != workflow(lessons_of_workbook()):
                print("error: %s is stale (a grader's exercises or points changed?): run python3 tools/classroom.py write > %s"
                      % (TEMPLATE, TEMPLATE))
                return 1
        print("classroom: %s is current" % TEMPLATE)
        return 0
    if len(args) == 2 and args[0] == "install":
        return install(args[1], chosen(opts))
    if len(args) == 2 and args[0] == "passed" and re.fullmatch(r"\d\d\.\d+", args[1]):
        return passed(args[1])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
