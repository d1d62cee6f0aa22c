#!/usr/bin/env python3
"""check_symbols.py -- refuses a graded object file that reaches for the grader's own controls.

    check_symbols.py [--source NAME] [--headers DIR] OBJECT

The grader measures some properties inside the runner, the process that runs the student's code:
the simulator's profiler (simcuda_profile_control), its modelled timeline (simcuda_timeline_*),
the launches the runner counts (simcuda_on_launch, track_launch), the thread schedule it sets. A
graded file that calls those, or the simulator's internals (simcuda::g_profiling, ...), could
switch the measurement off; one that defines such a name (or the run-time linker's dlsym, through
which the runtime loads its libraries) could stand in for it. So before the runner is linked, `nm`
lists what OBJECT refers to and defines, and a file with any of these is refused with one line
naming the symbol (exit 1). The check fails closed: when nm, c++filt or the headers cannot be
read, the file is refused too.

Simulator names in C++ (namespace simcuda) are allowed when the public headers (--headers, the
simulator's sim/include) mention them: the kernel language's launch, barrier and warp functions
are called from those headers' code; anything else in the namespace is the runtime's inside.

Looking these names up at run time (dlsym) finds nothing: the runner is not linked with -rdynamic,
so none of them is in its dynamic symbol table. This is a check of what the file names, not a
proof: native code can still find a function's address without naming it (by reading the
program's own symbol table from /proc/self/exe), which the judge's side checks (the profiler's
canary kernel, the timeline's markers, the launch counts) are there for.
"""
import os
import re
import subprocess
import sys

# The grader's controls and the runner's internals: never to be named by a graded file.
CONTROLS = {
    "simcuda_profile_control": "the simulator's profiler switch, which the grader uses to measure your kernels",
    "simcuda_profile_kernel": "the profiler's figures, which the grader reads",
    "simcuda_profile_hooks_linked": "the profiler's start-up hook",
    "simcuda_set_schedule": "the thread schedule, which the grader sets",
    "simcuda_racecheck": "the simulator's race check, which the grader switches on",
    "simcuda_racecheck_hooks_linked": "the race check's start-up hook",
    "simcuda_on_launch": "the hook through which the runner counts your launches",
    "simcuda_on_fatal": "the hook through which the runner reports the simulator's diagnoses",
    "simcuda_set_device_memory": "the simulated device's size, which the grader sets",
    "simcuda_live_streams_events": "the grader's count of your streams and events",
    "simcuda_async_overlap": "the simulator's record of copies in flight, which the grader reads (lesson 18)",
    "simcuda_async_overlap_depth": "the simulator's record of copies in flight, which the grader reads (lesson 18)",
    "track_launch": "the runner's launch counter",
    "runner_functions": "the runner's table of functions",
    "rc_double": "the runner's argument decoding",
    "tracking_start_gpu": "the runner's launch tracking",
    "live_allocations_gpu": "the runner's allocation tracking",
    "runner_live_allocations": "the runner's allocation tracking",
    "stream_ops_gpu": "the runner's count of the streams your copies and launches went to",
    "runner_stream_ops": "the runner's count of the streams your copies and launches went to",
    "grade_profile_canary": "the grader's own kernel",
}
CONTROL_PREFIXES = {
    "simcuda_timeline_": "the simulator's modelled timeline, which the grader records around your calls",
    "py12_": "the runner's embedded files",
    "cupti": "CUPTI, through which the runner counts your launches on a GPU",
    "__wrap_": "the runner's stand-in for a runtime call (the grader's fault injection: lesson 15's lesson.mk)",
    "__real_": "the runtime call behind the runner's stand-in (the grader's fault injection: lesson 15's lesson.mk)",
}
# The run-time linker's lookups: calling them is allowed (the CUDA toolkit's own headers do: NVTX
# loads Nsight's injection library so), defining them is not (the runtime loads OpenBLAS, and the
# runner CUPTI, through them).
LOOKUPS = {"dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dl_iterate_phdr",
           "__libc_dlopen_mode", "__libc_dlsym", "__libc_dlvsym", "_dl_sym"}
# Names a graded file may not define: they would stand in for the runtime's (AddressSanitizer's and
# coverage hooks are how the profiler counts).
DEFINE_PREFIXES = ("simcuda_", "__asan_", "__sanitizer_", "__sancov_", "__interceptor_")

UNDEFINED = {"U", "w", "v"}  # w, v: weak references


def fail(msg):
    print(msg)
    sys.exit(1)


def run(cmd, data=None):
    try:
        p = subprocess.run(cmd, input=data, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        last = (p.stderr or p.stdout).strip().splitlines()[-1:]
        return None, last[0] if last else "exit status %d" % p.returncode
    return p.stdout, None


def header_words(root):
    """Every identifier the public headers mention."""
    if not os.path.isdir(root):
        fail("error: the grader's symbol check could not find the simulator's headers (%s): the file is refused until it can" % root)
    words = set()
    for here, _dirs, files in os.walk(root):
        for f in files:
            try:
                with open(os.path.join(here, f), encoding="utf-8", errors="replace") as h:
                    words.update(re.findall(r"[A-Za-z_]\w*", h.read()))
            except OSError as e:
                fail("error: the grader's symbol check could not read the simulator's headers (%s): the file is refused until it can" % e)
    return words


def why_refused(name, shown, kind, public):
    """The reason `name` (demangled: `shown`) may not be referred to (kind U/w/v) or defined; None if it may."""
    defines = kind not in UNDEFINED
    if name in CONTROLS:
        return CONTROLS[name]
    for p, what in CONTROL_PREFIXES.items():
        if name.startswith(p):
            return what
    if name in LOOKUPS and defines:
        return "the run-time linker's lookup, through which the runtime and the runner load their libraries"
    if defines and name.startswith(DEFINE_PREFIXES):
        return "a name of the simulator's runtime or of its profiler's hooks"
    if "simcuda::" in shown:
        if defines:
            # header templates and inline functions are weak (W, V, u) in every object that uses them
            if kind in ("T", "D", "B", "R", "C", "G", "S", "i"):
                return "a name in the simulator's namespace, which only its runtime defines"
            return None
        for first in re.findall(r"simcuda::(\w+)", shown):
            if first not in public:
                return "a part of the simulator's runtime that no public header offers (its inside)"
    return None


def main():
    args = sys.argv[1:]
    source, headers = None, None
    while args and args[0].startswith("--"):
        if args[0] == "--source" and len(args) > 1:
            source = args[1]
            args = args[2:]
        elif args[0] == "--headers" and len(args) > 1:
            headers = args[1]
            args = args[2:]
        else:
            fail("usage: check_symbols.py [--source NAME] [--headers DIR] OBJECT")
    if len(args) != 1:
        fail("usage: check_symbols.py [--source NAME] [--headers DIR] OBJECT")
    obj = args[0]
    who = source or os.path.basename(obj)
    out, err = run(["nm", "-P", obj])
    if out is None:
        fail("error: the grader's symbol check of %s could not run (nm: %s): the file is refused until it can" % (who, err))
    symbols = []
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or len(f[1]) != 1:
            fail("error: the grader's symbol check of %s could not read nm's line %r: the file is refused" % (who, line))
        if f[1].islower() and f[1] not in "uiwv":
            continue  # a local symbol (u: unique global, i: indirect function, w and v: weak references)
        symbols.append((f[0], f[1]))
    names = "\n".join(s for s, _ in symbols)
    shown_all, err = run(["c++filt"], names + "\n") if symbols else ("", None)
    if shown_all is None:
        fail("error: the grader's symbol check of %s could not run (c++filt: %s): the file is refused until it can" % (who, err))
    shown = shown_all.splitlines()
    if len(shown) != len(symbols):
        fail("error: the grader's symbol check of %s could not match c++filt's names: the file is refused" % who)
    public = header_words(headers) if headers else set()
    for (name, kind), nice in zip(symbols, shown):
        why = why_refused(name, nice, kind, public)
        if why:
            verb = "refers to" if kind in UNDEFINED else "defines"
            fail("error: %s %s `%s`: %s. A graded file may not %s it; remove it (the grader measures your code with "
                 "these, and does not take a measurement your code could switch off)" % (who, verb, nice, why, "name" if kind in UNDEFINED else "define"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
