#!/usr/bin/env python3
"""similarity.py SUBMISSIONS_DIR OUT_DIR [--lesson=NN-topic] [--min-run=N] -- similar code between
students, in what they wrote themselves: make similarity.

SUBMISSIONS_DIR is a class as make grade takes it (one folder or archive per student, read the same
way: tools/batch_gather.py, archives in the sandbox, links refused). For each lesson (or LESSON's),
each student's <name>.cu is cut down to their own work: the bodies of its TODO(NN.k) regions
(tools/skeleton_regions.py's markers; the whole file where a student removed them), less every line
that the skeleton itself has (compared without white space), so that the code every student was
given -- signatures, launches, the TODO comments -- counts for nobody. Debian's similarity tester,
sim_c (package similarity-tester), compares those extracts pairwise (`-e -a -s`): the percentages
(`-p`: how much of A's text is also in B's) and the matching runs (`-n`), in the sandbox where it can
box (sim_c parses what students wrote) and with limits otherwise.

Writes OUT_DIR/similarity.csv (pairs ranked by the larger of the two percentages: lesson, students,
both percentages, the tokens matched, the matching regions as exercise:lines of each student's file)
and OUT_DIR/similarity.html (the same table, and each pair's matching lines side by side). A high
rank is a reason to look, not a verdict: short exercises leave little room to differ.

    SIM_C=/path/to/sim_c   another sim_c than the one on PATH
"""
import csv
import html
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from batch_gather import find_sandbox, gather
from batch_names import assign_names, csv_cell
from batch_refused import Refused
from batch_workbook import ROOT, lessons_of_workbook, student_files, wanted_files
from grade_batch import classify, refuse_kind
from skeleton_regions import region_spans

SIM_TIMEOUT = 600                 # seconds for one sim_c run
SIM_MEMORY = 2 << 30              # its address space
MAX_OUTPUT = 64 << 20             # bytes of its output read
INSTALL = "sudo apt-get install similarity-tester"


def find_sim_c():
    path = os.environ.get("SIM_C") or shutil.which("sim_c")
    return path if path and os.access(path, os.X_OK) else None


def norm(line):
    return re.sub(rb"\s+", b"", line)


def regions(data):
    """[(exercise, [(line number, text)])] of the TODO regions' bodies, in file order; one region
    'file' holding every line when the file has no complete region."""
    lines = data.split(b"\n")
    out = [(ex, [(i + 1, lines[i]) for i in range(start, end)]) for ex, start, end in region_spans(lines)]
    return out or [("file", [(i + 1, line) for i, line in enumerate(lines)])]


def own_lines(data, given):
    """[(exercise, line number, text)]: what the student wrote, the skeleton's lines taken out."""
    return [(ex, n, text) for ex, body in regions(data) for n, text in body if norm(text) and norm(text) not in given]


def run_sim(sim_c, sandbox, folder, args):
    """sim_c's standard output for these arguments, run in folder (in the sandbox when there is one)."""
    cmd = [sim_c] + args
    if sandbox:
        cmd = [sandbox, "--ro", folder, "--chdir", folder, "--time", str(SIM_TIMEOUT), "--memory", str(SIM_MEMORY >> 20),
               "--address", str(SIM_MEMORY >> 20), "--cpu", str(SIM_TIMEOUT), "--fsize", "1", "--pids", "4",
               "--env", "PATH=/usr/bin:/bin", "--env", "LC_ALL=C.UTF-8", "--name", "comparing submissions"]
        if not os.path.realpath(sim_c).startswith("/usr/"):
            cmd += ["--ro", sim_c]
        cmd += ["--", sim_c] + args

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (SIM_MEMORY, SIM_MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (SIM_TIMEOUT, SIM_TIMEOUT))

    p = subprocess.run(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=SIM_TIMEOUT + 30, preexec_fn=None if sandbox else limits, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    if p.returncode != 0:
        said = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SystemExit("error: sim_c failed (exit %d: %s)" % (p.returncode, said[-1] if said else "no message"))
    return p.stdout[:MAX_OUTPUT].decode("utf-8", "replace")


PERCENT = re.compile(r"^s(\d+)\.cu consists for (\d+) % of s(\d+)\.cu material$")
RUN = re.compile(r"^s(\d+)\.cu: line (\d+)-(\d+)\s*\|s(\d+)\.cu: line (\d+)-(\d+)\s*\[(\d+)\]\s*$")


def compare(sim_c, sandbox, folder, count, min_run):
    """{(i, j): [i in j %, j in i %, tokens, [((i's first, last), (j's first, last))]]} for i < j."""
    files = ["s%d.cu" % i for i in range(count)]
    extra = ["-r", str(min_run)] if min_run else []
    pairs = {}

    def pair(i, j):
        return pairs.setdefault((min(i, j), max(i, j)), [0, 0, 0, []])

    for line in run_sim(sim_c, sandbox, folder, ["-e", "-a", "-s", "-p", "-T"] + extra + files).splitlines():
        m = PERCENT.match(line.strip())
        if m and m.group(1) != m.group(3):
            i, pct, j = int(m.group(1)), int(m.group(2)), int(m.group(3))
            pair(i, j)[0 if i < j else 1] = pct
    seen = set()
    for line in run_sim(sim_c, sandbox, folder, ["-e", "-a", "-s", "-n", "-T"] + extra + files).splitlines():
        m = RUN.match(line.strip())
        if not m or m.group(1) == m.group(4):
            continue
        i, j, tokens = int(m.group(1)), int(m.group(4)), int(m.group(7))
        ri, rj = (int(m.group(2)), int(m.group(3))), (int(m.group(5)), int(m.group(6)))
        if i > j:
            i, j, ri, rj = j, i, rj, ri
        if (i, j, ri, rj) in seen:   # -a reports each run from both sides
            continue
        seen.add((i, j, ri, rj))
        p = pair(i, j)
        p[2] += tokens
        p[3].append((ri, rj))
    return pairs


def span(lines, rng):
    """'02.1:14-19 02.3:40' for extract lines rng (1-based, inclusive) of a student's own lines."""
    groups = []
    for ex, n, _text in lines[rng[0] - 1:rng[1]]:
        if groups and groups[-1][0] == ex and n == groups[-1][2] + 1:
            groups[-1][2] = n
        else:
            groups.append([ex, n, n])
    return " ".join("%s:%d%s" % (ex, a, "-%d" % b if b != a else "") for ex, a, b in groups)


def write_csv(path, rows):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "lesson", "student_a", "student_b", "a_in_b_percent", "b_in_a_percent", "tokens_matched",
                    "regions_a", "regions_b"])
        for r in rows:
            w.writerow([csv_cell(c) for c in r[:9]])
    os.replace(path + ".tmp", path)


def write_html(path, rows, skipped, min_run):
    e = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\"><title>make similarity</title>",
           "<style>body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
           "padding:2px 8px;text-align:left}pre{margin:0;font-size:90%;white-space:pre-wrap}td.code{vertical-align:top;"
           "width:50%}h3{margin-top:2em}</style></head><body>",
           "<h1>Similar code in the students' TODO regions</h1>",
           "<p>sim_c (Debian's similarity-tester) on what each student wrote in the TODO regions, the skeleton's own "
           "lines taken out%s. A percentage is how much of one student's text is also in the other's. A high rank is a "
           "reason to look, not a verdict.</p>" % (", runs of at least %d tokens" % min_run if min_run else ""),
           "<table><tr><th>rank</th><th>lesson</th><th>student A</th><th>student B</th><th>A in B</th><th>B in A</th>"
           "<th>tokens</th><th>regions of A</th><th>regions of B</th></tr>"]
    for r in rows:
        out.append("<tr><td><a href=\"#pair%d\">%d</a></td><td>%s</td><td>%s</td><td>%s</td><td>%d %%</td><td>%d %%</td>"
                   "<td>%d</td><td>%s</td><td>%s</td></tr>" % (r[0], r[0], e(r[1]), e(r[2]), e(r[3]), r[4], r[5], r[6], e(r[7]), e(r[8])))
    out.append("</table>")
    if not rows:
        out.append("<p>No pair of students shares a run of code.</p>")
    if skipped:
        out.append("<h2>Not compared</h2><ul>%s</ul>" % "".join("<li>%s: %s</li>" % (e(s), e(why)) for s, why in skipped))
    for r in rows:
        out.append("<h3 id=\"pair%d\">%d. %s: %s and %s</h3><table>" % (r[0], r[0], e(r[1]), e(r[2]), e(r[3])))
        for lines_a, lines_b in r[9]:
            cell = lambda lines: "<pre>%s</pre>" % "\n".join(
                "%s %4d  %s" % (e(ex), n, e(text.decode("utf-8", "replace"))) for ex, n, text in lines)
            out.append("<tr><td class=\"code\">%s</td><td class=\"code\">%s</td></tr>" % (cell(lines_a), cell(lines_b)))
        out.append("</table>")
    out.append("</body></html>")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)


def main(argv):
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    sim_c = find_sim_c()
    if not sim_c:
        sys.stderr.write("error: sim_c (Debian's similarity-tester) is not installed: run '%s'\n" % INSTALL)
        return 1
    subs, out = os.path.abspath(args[0]), os.path.abspath(args[1])
    if not os.path.isdir(subs):
        sys.stderr.write("error: SUBMISSIONS=%s is not a folder: give a folder holding one entry per student\n" % args[0])
        return 2
    known = lessons_of_workbook()
    lessons = [l for l in known if opts.get("lesson") and l.startswith(opts["lesson"])] if opts.get("lesson") else known
    if not lessons:
        sys.stderr.write("error: LESSON=%s: no such lesson; the lessons are: %s\n" % (opts["lesson"], " ".join(known)))
        return 2
    try:
        min_run = int(opts.get("min-run") or 0)
    except ValueError:
        min_run = -1
    if min_run < 0:
        sys.stderr.write("error: --min-run=%s: give a whole number of tokens\n" % opts["min-run"])
        return 2

    raws = []
    subs_fd = os.open(subs, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for raw in sorted(os.listdir(subs_fd)):
            try:
                kind = classify(subs_fd, raw)
            except OSError:
                kind = "special"
            if kind != "skip":
                raws.append((raw, kind))
    finally:
        os.close(subs_fd)
    names = assign_names([r for r, _k in raws])
    sandbox, why_not = find_sandbox()
    if why_not:
        sys.stderr.write("warning: %s\n" % why_not)
    wanted = wanted_files(known)
    taken, skipped = {}, []
    for raw, kind in raws:
        student = names[raw][0]
        try:
            refuse_kind(kind)
            taken[student] = gather(os.path.join(subs, raw), kind, wanted, sandbox)
        except Refused as e:
            skipped.append((student, str(e)))

    rows = []
    work = tempfile.mkdtemp(prefix="similarity-")
    try:
        for lesson in lessons:
            for name in [n for n in student_files(lesson) if n.endswith(".cu")]:
                with open(os.path.join(ROOT, "lessons", lesson, name), "rb") as f:
                    given = {norm(line) for line in f.read().split(b"\n")}
                students, extracts = [], []
                for student in sorted(taken):
                    data = taken[student].get((lesson, name))
                    mine = own_lines(data, given) if data is not None else []
                    if mine:
                        students.append(student)
                        extracts.append(mine)
                if len(students) < 2:
                    continue
                folder = os.path.join(work, lesson)
                os.makedirs(folder)
                for i, lines in enumerate(extracts):
                    with open(os.path.join(folder, "s%d.cu" % i), "wb") as f:
                        f.write(b"\n".join(text for _ex, _n, text in lines) + b"\n")
                for (i, j), (a_in_b, b_in_a, tokens, runs) in compare(sim_c, sandbox, folder, len(students), min_run).items():
                    if not runs and not a_in_b and not b_in_a:
                        continue
                    shown = [(extracts[i][ri[0] - 1:ri[1]], extracts[j][rj[0] - 1:rj[1]]) for ri, rj in sorted(runs)]
                    rows.append([0, lesson, students[i], students[j], a_in_b, b_in_a, tokens,
                                 "; ".join(span(extracts[i], ri) for ri, _rj in sorted(runs)),
                                 "; ".join(span(extracts[j], rj) for _ri, rj in sorted(runs)), shown])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.sort(key=lambda r: (-max(r[4], r[5]), -r[6], r[1], r[2], r[3]))
    for rank, r in enumerate(rows, 1):
        r[0] = rank
    os.makedirs(out, exist_ok=True)
    write_csv(os.path.join(out, "similarity.csv"), rows)
    write_html(os.path.join(out, "similarity.html"), rows, skipped, min_run)
    print("similarity: %d submission(s), %d pair(s) with shared code%s" % (len(raws), len(rows), ", %d not compared" % len(skipped) if skipped else ""))
    for r in rows[:10]:
        print("  %3d  %-14s %-20s %-20s %3d %% / %3d %%" % (r[0], r[1], r[2], r[3], r[4], r[5]))
    for student, why in skipped:
        print("  not compared: %s (%s)" % (student, why))
    print("similarity: %s and %s" % (os.path.join(out, "similarity.csv"), os.path.join(out, "similarity.html")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
