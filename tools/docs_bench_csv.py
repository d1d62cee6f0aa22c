#!/usr/bin/env python3
"""docs_bench_csv.py [BENCH_OUTPUT] -- turn the text of `make bench` into the CSV that the docs plot.

  make bench LESSON=02 SOLUTION=1 | tee /dev/stderr | python3 tools/docs_bench_csv.py > docs/results/lesson-02-mine.csv
  make docs        # draws build/docs/html/plots/lesson-02-mine.svg beside the recorded H200 plot

Reads the benchmark's rows ("  NAME   VALUE UNIT  PCT% of copy ...") from the file or standard
input and writes lesson,id,kernel,value,unit,percent,goal (the columns of docs/results/lesson-NN-*.csv):
the ceiling row as id "ceiling" with 100 %, a row whose name starts with an exercise id (02.4) under
that id, other rows with an empty id. Rows without a percentage (launch times, or every row on the
simulator, which has no ceiling) are kept with an empty percent and are not drawn.
"""
import csv
import re
import sys

HEAD = re.compile(r"^Lesson (\d\d) benchmark on (.+?)(?::|$)")
ROW = re.compile(r"^\s{2,}(?P<name>\S.*?)\s{2,}(?P<value>[\d.]+)\s+(?P<unit>GB/s|GFLOP/s|us per launch)"
                 r"(?:\s+\((?P<ceiling>ceiling)\)|\s+(?P<pct>[\d.]+)% of \w+)?")


def convert(lines, out):
    w = csv.writer(out, lineterminator="\n")
    lesson, machine, rows = None, None, 0
    for line in lines:
        m = HEAD.match(line)
        if m:
            lesson, machine = m.group(1), m.group(2)
            out.write("# make bench LESSON=%s on %s\n" % (lesson, machine))
            w.writerow(["lesson", "id", "kernel", "value", "unit", "percent", "goal"])
            continue
        m = ROW.match(line.rstrip("\n"))
        if not m or lesson is None or "WRONG" in line:
            continue
        name = m.group("name").strip()
        if m.group("ceiling"):
            ident, pct = "ceiling", "100"
        else:
            idm = re.match(r"(\d\d\.\d+)\s+(.*)", name)
            ident, name = (idm.group(1), idm.group(2)) if idm else ("", name)
            pct = m.group("pct") or ""
        w.writerow([lesson, ident, name, m.group("value"), m.group("unit"), pct, ""])
        rows += 1
    if lesson is None:
        sys.exit("docs_bench_csv: no 'Lesson NN benchmark on ...' line in the input: give it the output of make bench")
    return rows


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: docs_bench_csv.py [BENCH_OUTPUT]   (or pipe make bench into it)")
    with (open(sys.argv[1], encoding="utf-8") if len(sys.argv) == 2 else sys.stdin) as f:
        convert(f, sys.stdout)
