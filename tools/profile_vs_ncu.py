#!/usr/bin/env python3
"""profile_vs_ncu.py -- the simulator's profile of a program against Nsight Compute's, kernel by kernel.

  profile_vs_ncu.py table NCU_RAW.csv NCU_LINES.csv > H200.csv
      what ncu measured (tools/ncu_yardstick.sh writes both inputs), one row per kernel and grid:
      global load/store requests and sectors, shared-memory bank conflicts, threads per executed
      instruction and the source lines with divergent branch targets. A last column, `checked`,
      names the figures the Check suite holds the simulator to (all of them to start with: delete
      those where the compilers' code differs, and say why in docs/results/profiler.md).
  profile_vs_ncu.py compare H200.csv SIM_PROFILE.txt [--check]
      a Markdown table of both (SIM_PROFILE.txt: what a SIM_PROFILE=1 run of the same program
      printed); with --check, one line per figure that differs where `checked` asks for it, and
      exit status 1 if any does. Memory figures must be equal; threads per instruction within 15 %;
      divergent lines the same set.
"""
import collections
import csv
import re
import sys

MEMORY = ["ld_req", "ld_sec", "st_req", "st_sec", "sh_ld_conf", "sh_st_conf"]
RAW = {
    "ld_req": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "ld_sec": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st_req": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "st_sec": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "sh_ld_conf": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sh_st_conf": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}


def kernel_name(text):
    name = text.split("(")[0].strip()
    name = re.sub(r"^void\s+", "", name)
    return re.sub(r"<.*", "", name)


def grid_of(text):
    return "x".join(p.strip() for p in text.strip("()").split(","))


def table(raw_path, lines_path):
    rows = collections.OrderedDict()
    header = None
    for r in csv.reader(open(raw_path, encoding="utf-8", errors="replace")):
        if r and r[0] == "ID":
            header = r
            continue
        if not header or len(r) != len(header) or not r[0].isdigit():
            continue
        d = dict(zip(header, r))
        key = (kernel_name(d["Kernel Name"]), grid_of(d["Grid Size"]))
        row = rows.setdefault(key, {k: 0.0 for k in MEMORY} | {"inst": 0.0, "thread_inst": 0.0, "launches": 0})
        for k, m in RAW.items():
            row[k] += float(d[m].replace(",", ""))
        row["inst"] += float(d["smsp__inst_executed.sum"].replace(",", ""))
        row["thread_inst"] += float(d["smsp__thread_inst_executed.sum"].replace(",", ""))
        row["launches"] += 1
    divergent = collections.defaultdict(set)
    for r in csv.DictReader(open(lines_path, encoding="utf-8")):
        if r["metric"] == "smsp__branch_targets_threads_divergent" and float(r["value"]) > 0:
            divergent[kernel_name(r["kernel"])].add("%s:%s" % (r["file"], r["line"]))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["kernel", "grid"] + MEMORY + ["threads_per_inst", "divergent_lines", "checked"])
    for (k, g), row in rows.items():
        out.writerow([k, g] + ["%d" % row[m] for m in MEMORY] + ["%.2f" % (row["thread_inst"] / row["inst"] if row["inst"] else 0),
                      " ".join(sorted(divergent[k])), "memory tpi lines"])


def sim_profile(path):
    """kernel launches of a SIM_PROFILE=1 report: (kernel, grid) -> figures"""
    found = {}
    cur = None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"== (\S+?)(?:<[^(]*)?<<<\((\d+),(\d+),(\d+)\)", line)
        if m:
            cur = found.setdefault((m.group(1), "x".join(m.group(2, 3, 4))), {"divergent_lines": set(), "section": ""})
            continue
        if cur is None:
            continue
        m = re.match(r"\s+global (loads|stores)\s*: (\d+) requests, (\d+) sectors", line)
        if m:
            p = "ld" if m.group(1) == "loads" else "st"
            cur[p + "_req"], cur[p + "_sec"] = int(m.group(2)), int(m.group(3))
        m = re.match(r"\s+shared (loads|stores)\s*: (\d+) requests, (\d+) bank conflicts", line)
        if m:
            cur["sh_ld_conf" if m.group(1) == "loads" else "sh_st_conf"] = int(m.group(3))
        m = re.match(r"\s+divergence\s*: ([\d.]+) active threads", line)
        if m:
            cur["threads_per_inst"] = float(m.group(1))
        if re.match(r"\s+divergent branches", line):
            cur["section"] = "divergent"
        elif re.match(r"\s+(predicated|by source line)", line):
            cur["section"] = ""
        m = re.match(r"\s+(\S+?):(\d+): split the warp", line)
        if m and cur["section"] == "divergent":
            cur["divergent_lines"].add("%s:%s" % (m.group(1).split("/")[-1], m.group(2)))
    return found


def compare(table_path, sim_path, check):
    sim = sim_profile(sim_path)
    problems = []
    print("| kernel (grid) | global loads: requests / sectors | global stores | shared bank conflicts (ld / st) | threads per instruction | divergent lines |")
    print("|---|---|---|---|---|---|")
    for r in csv.DictReader(open(table_path, encoding="utf-8")):
        key = (r["kernel"], r["grid"])
        s = sim.get(key)
        checked = r["checked"].split()
        if s is None:
            problems.append("%s (%s): not in the simulator's profile" % key)
            continue
        def pair(a, b):
            return "%s / %s" % (a, b)
        cells = []
        for group in (("ld_req", "ld_sec"), ("st_req", "st_sec"), ("sh_ld_conf", "sh_st_conf")):
            simv = pair(*(s.get(k, 0) for k in group))
            ncuv = pair(*(int(r[k]) for k in group))
            cells.append(simv if simv == ncuv else "%s (ncu %s)" % (simv, ncuv))
            if "memory" in checked and simv != ncuv:
                problems.append("%s (%s): %s %s, ncu %s" % (key[0], key[1], "/".join(group), simv, ncuv))
        tpi, ntpi = s.get("threads_per_inst", 0.0), float(r["threads_per_inst"])
        off = abs(tpi - ntpi) / ntpi if ntpi else 0
        cells.append("%.1f (ncu %.2f, %+.0f %%)" % (tpi, ntpi, 100 * (tpi - ntpi) / ntpi if ntpi else 0))
        if "tpi" in checked and off > 0.15:
            problems.append("%s (%s): %.1f threads per instruction, ncu %.2f" % (key[0], key[1], tpi, ntpi))
        lines = " ".join(sorted(s["divergent_lines"])) or "none"
        nlines = r["divergent_lines"] or "none"
        cells.append(lines if lines == nlines else "%s (ncu %s)" % (lines, nlines))
        if "lines" in checked and lines != nlines:
            problems.append("%s (%s): divergent lines %s, ncu %s" % (key[0], key[1], lines, nlines))
        print("| `%s` (%s) | %s |" % (key[0], key[1], " | ".join(cells)))
    if check:
        for p in problems:
            print("differs from Nsight Compute: " + p, file=sys.stderr)
        return 1 if problems else 0
    return 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3], "--check" in sys.argv[4:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
