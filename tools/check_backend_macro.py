#!/usr/bin/env python3
"""check_backend_macro.py -- the workbook asks "simulator or GPU?" one way: ON_SIM (common/backend.h).

The workbook's own C code (common/, the judges and calls in tests/, the lessons' demos and
benchmarks) uses `#if ON_SIM` / `if (ON_SIM)`, never the simulator's own macro SIMCUDA: that one is
for sim/ itself, the simulator's test programs (which stand for a reader's CUDA code) and the CUDA
sources students write (which must build without the workbook's headers). Because `#if ON_SIM`
with ON_SIM undefined is silently false (the GPU's branch on the simulator), every file that tests
it in `#if` must include "backend.h" itself, before the first such test.

Exit 1 with one line per offending file; 0 when all are right.
"""
import glob
import re
import sys

SOURCES = ["common/*.c", "common/*.h", "tests/*.c", "tests/calls/*.c", "tests/calls/*.h",
           "lessons/*/main.c", "lessons/*/bench.c", "lessons/*/trace/*.c"]
SIM_MACRO = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\bSIMCUDA\b", re.M)
IF_ON_SIM = re.compile(r"^\s*#\s*(?:if|elif)\b.*\bON_SIM\b", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"backend\.h"', re.M)


def problems(path, text):
    if path == "common/backend.h":
        return []
    found = []
    if SIM_MACRO.search(text):
        found.append(f"{path}: tests SIMCUDA; the workbook's code asks ON_SIM (#include \"backend.h\")")
    use = IF_ON_SIM.search(text)
    include = INCLUDE.search(text)
    if use and (not include or include.start() > use.start()):
        found.append(f"{path}: `#if ON_SIM` before #include \"backend.h\" (an undefined ON_SIM reads as 0: the GPU's branch)")
    return found


def main():
    paths = sorted({p for pattern in SOURCES for p in glob.glob(pattern)})
    bad = [line for p in paths for line in problems(p, open(p, encoding="utf-8", errors="replace").read())]
    for line in bad:
        print(line)
    if bad:
        return 1
    print(f"backend macro: {len(paths)} files checked, none tests SIMCUDA or ON_SIM before backend.h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
