#!/usr/bin/env python3
"""ncu_source_lines.py REPORT.ncu-rep [KERNEL_SUBSTRING ...] -- Nsight Compute's source view as
text: per kernel and CUDA source line, the instruction-level counters of the SourceCounters
section (instructions executed, thread instructions, divergent branch targets, ...), summed over
the SASS instructions that -lineinfo attributes to the line. Uses ncu's own Python report
interface (ncu_report, in the extras/python folder of Nsight Compute), found next to `ncu`.
Output: CSV rows kernel,file,line,metric,value -- what docs/results/profiler.md compares with the
simulator's divergent lines."""
import collections
import csv
import glob
import os
import shutil
import sys


def find_ncu_report():
    places = []
    if os.environ.get("NCU_PYTHON"):
        places.append(os.environ["NCU_PYTHON"])
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if os.path.exists(ncu):
        real = os.path.realpath(ncu)
        places += [os.path.join(os.path.dirname(real), "extras", "python"), os.path.join(os.path.dirname(real), "..", "extras", "python")]
    places += glob.glob("/usr/local/cuda*/nsight-compute*/extras/python") + glob.glob("/opt/nvidia/nsight-compute/*/extras/python")
    places += glob.glob("/usr/local/NVIDIA-Nsight-Compute*/extras/python")
    for p in places:
        if os.path.exists(os.path.join(p, "ncu_report.py")):
            sys.path.insert(0, p)
            break
    import ncu_report  # noqa: E402 (found above)
    return ncu_report


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: ncu_source_lines.py REPORT.ncu-rep [KERNEL_SUBSTRING ...]")
    ncu_report = find_ncu_report()
    ctx = ncu_report.load_report(sys.argv[1])
    wanted = sys.argv[2:]
    out = csv.writer(sys.stdout)
    out.writerow(["kernel", "file", "line", "metric", "value"])
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            name = action.name()
            if wanted and not any(w in name for w in wanted):
                continue
            sums = collections.defaultdict(float)
            for metric_name in action.metric_names():
                m = action.metric_by_name(metric_name)
                try:
                    if not m.has_correlation_ids():
                        continue
                    ids = m.correlation_ids()
                    count = m.num_instances()
                except Exception as e:  # an API this version lacks: say which
                    print("# %s: %s" % (metric_name, e), file=sys.stderr)
                    continue
                for i in range(count):
                    pc = ids.as_uint64(i)
                    info = action.source_info(pc)
                    where = (info.file_name(), info.line()) if info is not None else ("?", 0)
                    try:
                        value = m.as_double(i)
                    except Exception:
                        value = float(m.as_uint64(i))
                    sums[(where[0], where[1], metric_name)] += value
            for (f, line, metric_name), value in sorted(sums.items()):
                if value:
                    out.writerow([name, os.path.basename(f), line, metric_name, "%g" % value])


if __name__ == "__main__":
    main()
