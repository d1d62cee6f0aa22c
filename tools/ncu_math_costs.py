#!/usr/bin/env python3
"""ncu_math_costs.py NCU_CSV -- the cost of one call of each maths function in GPU thread
instructions, from Nsight Compute's raw CSV of tests/sim/profile/math_costs.cu: the kernel's
smsp__thread_inst_executed.sum per thread, less that of its baseline (the same loads and store
around nothing, or around one add for two operands, where the add itself is one instruction)."""
import csv
import sys

BASELINE = {  # kernel -> (baseline kernel, instructions the baseline's own operation takes)
    "float1": ("cost_float_copy", 0), "float2": ("cost_float_add", 1),
    "double1": ("cost_double_copy", 0), "double2": ("cost_double_add", 1), "int2": ("cost_int_add", 1),
}
TWO_OPERANDS = {"cost_powf", "cost_atan2f", "cost_fmodf", "cost_float_div", "cost_pow", "cost_double_div"}
DOUBLES = {"cost_sin", "cost_cos", "cost_exp", "cost_log", "cost_pow", "cost_sqrt", "cost_double_div"}
INTS = {"cost_int_div", "cost_int_rem"}


def number(text):
    return float(text.replace(",", ""))


def main():
    rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", errors="replace")))
    header = None
    per_thread = {}
    for r in rows:
        if r and r[0] == "ID":
            header = r
            continue
        if not header or len(r) != len(header):
            continue
        rec = dict(zip(header, r))
        name = rec["Kernel Name"].split("(")[0].strip()
        if "smsp__thread_inst_executed.sum" not in rec or not rec["smsp__thread_inst_executed.sum"].strip():
            continue
        try:  # the row under the header gives units ("inst"): not a kernel
            executed = number(rec["smsp__thread_inst_executed.sum"])
            threads = number(rec["Grid Size"].strip("()").split(",")[0]) * number(rec["Block Size"].strip("()").split(",")[0])
        except (KeyError, ValueError):
            continue
        per_thread[name] = executed / threads
    if not per_thread:
        sys.exit("ncu_math_costs.py: no kernel rows in %s" % sys.argv[1])
    print("# function: GPU thread instructions per call (the kernel's per thread, less its baseline's)")
    baselines = ("cost_float_copy", "cost_float_add", "cost_double_copy", "cost_double_add", "cost_int_add")
    for name in baselines:
        if name in per_thread:
            print("# baseline %-16s %.2f per thread" % (name[len("cost_"):], per_thread[name]))
    for name in sorted(per_thread):
        if name in baselines:
            continue
        kind = "int2" if name in INTS else ("double" if name in DOUBLES else "float") + ("2" if name in TWO_OPERANDS else "1")
        base, own = BASELINE[kind]
        if base not in per_thread:
            continue
        print("%-18s %.2f" % (name[len("cost_"):], per_thread[name] - per_thread[base] + own))


if __name__ == "__main__":
    main()
