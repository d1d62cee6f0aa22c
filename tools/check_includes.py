#!/usr/bin/env python3
"""check_includes.py -- refuse a student file whose #includes leave its lesson.

    check_includes.py --source FILE --allow DIR [--allow DIR ...] -- COMPILER -M ARGS... FILE

Runs the given dependency command (a compiler with -M), and accepts every file it lists that is the
source itself, lies under an allowed folder of this repository, or is a system or CUDA header
(outside this repository, under /usr or /opt). Anything else -- the reference solutions, the
grader, another lesson, a file in your home folder -- is refused with one line naming it, so that
a submission is graded on what it contains. Exit 0 when all is well, 1 otherwise.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM = ("/usr/", "/opt/")


def main(argv):
    if "--" not in argv:
        sys.stderr.write("usage: check_includes.py --source FILE --allow DIR ... -- DEPENDENCY-COMMAND\n")
        return 2
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    source, allowed = None, []
    for i, a in enumerate(opts):
        if a == "--source":
            source = os.path.realpath(opts[i + 1])
        elif a == "--allow":
            allowed.append(os.path.realpath(os.path.join(ROOT, opts[i + 1])) + os.sep)
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if run.returncode != 0:
        # Not our business: the compiler will say what is wrong with the file itself.
        return 0
    text = run.stdout.replace("\\\n", " ")
    deps = text.split(":", 1)[1].split() if ":" in text else []
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for d in deps:
        real = os.path.realpath(d)
        if real == source or real.startswith(tuple(allowed)):
            continue
        inside_repo = real.startswith(ROOT + os.sep)
        if not inside_repo and (real.startswith(SYSTEM) or real.startswith(os.path.realpath(cuda) + os.sep)):
            continue
        shown = os.path.relpath(real, ROOT) if inside_repo else real
        sys.stderr.write("%s: includes %s, which is outside its lesson: a submission may include only its lesson's headers, "
                         "common/ and the system's and CUDA's headers; the rest is not part of what is graded\n"
                         % (os.path.relpath(source, ROOT) if source.startswith(ROOT) else source, shown))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
