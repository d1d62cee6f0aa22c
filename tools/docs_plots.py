#!/usr/bin/env python3
"""docs_plots.py CSV_DIR OUT_DIR -- draw the benchmark CSV files as SVG bar charts with gnuplot.

Each docs/results/lesson-NN-*.csv (written by hand from a recorded run, or by
`make bench LESSON=NN SOLUTION=1 | python3 tools/docs_bench_csv.py > docs/results/lesson-NN-mine.csv`)
becomes OUT_DIR/lesson-NN-*.svg: every row with a percentage as a bar, "% of the ceiling measured in
the same run", with the exercise's goal marked. All rows of the *-h200.csv files together become
OUT_DIR/overview-h200.svg. Columns: lesson,id,kernel,value,unit,percent,goal ('#' lines are comments).
Without gnuplot it prints one line and draws nothing (the docs then show the tables only).
"""
import csv
import glob
import os
import shutil
import subprocess
import sys

COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]
CEILING = "#9e9e9e"


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        try:
            r["pct"] = float(r["percent"]) if r.get("percent", "").strip() else None
            r["goal_pct"] = float(r["goal"]) if r.get("goal", "").strip() else None
        except ValueError:
            sys.exit("docs_plots: %s: bad number in row %r; fix the CSV" % (path, r))
        rows.append(r)
    return rows


def quote(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', "'")


def label(r):
    if r["id"] in ("", "ceiling"):
        return r["kernel"]
    if r["id"] == "given":
        return "%s given: %s" % (r["lesson"], r["kernel"])
    return "%s %s" % (r["id"], r["kernel"])


def ceiling_name(rows):
    for r in rows:
        if r["id"] == "ceiling":
            return r["kernel"]
    return "the ceiling"


def chart(bars, title, xlabel, out, gnuplot):
    """bars: list of (label, percent, goal or None, colour)."""
    height = 110 + 34 * len(bars)
    data = "\n".join(
        "%d %.3f %s %s %.3f" % (i, p, quote(lab), "0x" + col[1:], g if g is not None else -1)
        for i, (lab, p, g, col) in enumerate(bars))
    top = max(115.0, max(p for _, p, _, _ in bars) * 1.15)
    script = """
set terminal svg size 860,{h} dynamic noenhanced font "DejaVu Sans,13" background rgb "white"
set output {out}
set title {title}
set xlabel {xlabel}
set xrange [0:{top}]
set yrange [{last}:-0.7]
set ytics nomirror scale 0
set xtics nomirror out
set grid xtics lc rgb "#dddddd"
set border 3 lc rgb "#555555"
set lmargin 48
unset key
set style fill solid 0.9 noborder
$d << EOD
{data}
EOD
plot $d using 2:1:(0):2:($1-0.36):($1+0.36):4:ytic(3) with boxxyerror lc rgb variable, \\
     $d using 2:1:(sprintf("%.1f %%", $2)) with labels left offset 0.6,0 tc rgb "#222222", \\
     $d using ($5 >= 0 ? $5 : NaN):($1-0.45):(0):(0.9) with vectors nohead lw 3 lc rgb "#b00020", \\
     $d using ($5 >= 0 ? $5 : NaN):($1+0.45):(sprintf("goal %.0f %%", $5)) with labels offset 0,-0.35 font ",10" tc rgb "#b00020"
""".format(h=height, out=quote(out), title=quote(title), xlabel=quote(xlabel), top=top,
           last=len(bars) - 0.3, data=data)
    r = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(out):
        sys.exit("docs_plots: gnuplot failed on %s: %s" % (out, r.stderr.strip()))


def main(csv_dir, out_dir):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("docs: gnuplot not installed: apt-get install gnuplot-nox; the docs show the benchmark tables without plots")
        return 0
    os.makedirs(out_dir, exist_ok=True)
    overview = []
    for path in sorted(glob.glob(os.path.join(csv_dir, "lesson-[0-9][0-9]-*.csv"))):
        rows = [r for r in read_rows(path) if r["pct"] is not None]
        if not rows:
            continue
        name = os.path.splitext(os.path.basename(path))[0]
        lesson = name.split("-")[1]
        bars = [(label(r), r["pct"], r["goal_pct"], CEILING if r["id"] == "ceiling" else COLOURS[0]) for r in rows]
        machine = name.split("-", 2)[2]
        chart(bars, "Lesson %s, %s: each kernel as %% of the ceiling" % (lesson, machine.upper()),
              "%% of %s, measured in the same run" % ceiling_name(rows), os.path.join(out_dir, name + ".svg"), gnuplot)
        if name.endswith("-h200"):
            colour = COLOURS[int(lesson) % len(COLOURS)]
            overview += [(label(r), r["pct"], r["goal_pct"], colour) for r in rows if r["id"] != "ceiling"]
    if overview:
        chart(overview, "Every lesson benchmark on the H200",
              "% of the ceiling (copy or cuBLAS) measured in the same run", os.path.join(out_dir, "overview-h200.svg"), gnuplot)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: docs_plots.py CSV_DIR OUT_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
