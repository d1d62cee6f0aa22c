#!/usr/bin/env python3
"""check_includes.py -- refuse a student file whose #includes leave its lesson.

    check_includes.py --source FILE --deps DEPS --allow DIR [--allow DIR ...]

DEPS is the dependency file that the real compile of FILE wrote (`-MD -MF DEPS`: the same
preprocessing, with the same macros, as the object that is graded). Every file it lists must be the
source itself, a header (.h, .cuh, .hpp) under an allowed folder of this repository, or a system or
CUDA header (outside this repository, under /usr or /opt). Anything else -- a reference solution,
the CPU reference (`*_cpu.c`), the grader, another lesson, a file in a home folder -- is refused
with one line naming it, so that a submission is graded on what it contains.

It fails closed: a dependency file that is missing, empty or unreadable refuses the file too.
(The compile runs in a sandbox that shows it only those headers: this check names the cause when
that sandbox is unavailable, and proves it when it is.) Exit 0 when all is well, 1 otherwise.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM = ("/usr/", "/opt/")
HEADERS = (".h", ".cuh", ".hpp", ".hh", ".inl")


def refuse(source, message):
    shown = os.path.relpath(source, ROOT) if source.startswith(ROOT + os.sep) else source
    sys.stderr.write("%s: %s\n" % (shown, message))
    return 1


def refuse_outside(source, real):
    shown = os.path.relpath(real, ROOT) if real.startswith(ROOT + os.sep) else real
    return refuse(source, "includes %s, which is outside its lesson: a submission may include only its lesson's headers, "
                          "common/ and the system's and CUDA's headers; the rest is not part of what is graded" % shown)


def explain(source, log_path, dirs):
    """After a failed compile: an include the sandbox hid ("No such file") that exists outside it is
    named as what it is -- outside the lesson -- rather than left as a missing file."""
    import re
    try:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            log = f.read(1 << 20)
    except OSError:
        return 0
    for m in re.finditer(r"fatal error: ([^\n:]+): No such file or directory", log):
        name = m.group(1).strip()
        for base in [os.path.dirname(source), os.getcwd(), "/"] + dirs:
            real = os.path.realpath(os.path.join(base, name))
            if os.path.exists(real):
                return refuse_outside(source, real)
    return 0


def main(argv):
    if len(argv) >= 4 and argv[0] == "--source" and argv[2] == "--explain":
        # --source FILE --explain LOG [DIR ...]: DIRs are the compile's -I folders
        explain(os.path.realpath(argv[1]), argv[3], argv[4:])
        return 0
    source, deps_path, allowed = None, None, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--source", "--deps", "--allow") and i + 1 < len(argv):
            if argv[i] == "--source":
                source = os.path.realpath(argv[i + 1])
            elif argv[i] == "--deps":
                deps_path = argv[i + 1]
            else:
                allowed.append(os.path.realpath(os.path.join(ROOT, argv[i + 1])) + os.sep)
            i += 2
        else:
            sys.stderr.write("usage: check_includes.py --source FILE --deps DEPS --allow DIR ...\n")
            return 2
    if not source or not deps_path:
        sys.stderr.write("usage: check_includes.py --source FILE --deps DEPS --allow DIR ...\n")
        return 2
    try:
        with open(deps_path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read(4 << 20)
    except OSError as e:
        return refuse(source, "its includes could not be checked (%s), so it is not graded" % e.strerror)
    text = text.replace("\\\n", " ")
    if ":" not in text:
        return refuse(source, "its includes could not be checked (the compiler listed none), so it is not graded")
    deps = text.split(":", 1)[1].split()
    if not any(os.path.realpath(d) == source for d in deps):
        return refuse(source, "its includes could not be checked (the compiler's list does not name the file itself), so it is not graded")
    cuda = os.path.realpath(os.environ.get("CUDA_HOME", "/usr/local/cuda")) + os.sep
    for d in deps:
        real = os.path.realpath(d)
        if real == source:
            continue
        inside_repo = real.startswith(ROOT + os.sep)
        if real.startswith(tuple(allowed)) and real.endswith(HEADERS):
            continue
        # the simulator's libcu++ headers are extensionless, as CUDA's are (<cuda/pipeline>, <cuda/barrier>)
        if real.startswith(tuple(allowed)) and real.startswith(os.path.join(ROOT, "sim", "include", "cuda") + os.sep) and "." not in os.path.basename(real):
            continue
        if not inside_repo and (real.startswith(SYSTEM) or real.startswith(cuda)):
            continue
        return refuse_outside(source, real)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
