#!/usr/bin/env python3
"""results.py -- stamp a lesson's result file with what an instructor needs to trust it later.

    results.py stamp RESULT.json FILE...

Adds to the judge's JSON: the graded files with their sha256, the grader's git commit and the time.
A missing or unreadable result (the judge never got to write it) is an error: exit 1.
"""
import datetime
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def grader_commit():
    c = os.environ.get("GRADE_COMMIT")
    if c:
        return c
    try:
        return subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], stderr=subprocess.DEVNULL, universal_newlines=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def stamp(path, files):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("error: %s: no valid result (%s): the grader stopped before writing it\n" % (path, e))
        return 1
    data["files"] = []
    for name in files:
        with open(name, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        data["files"].append({"path": os.path.relpath(name, os.environ.get("GRADE_ROOT", ROOT)), "sha256": digest})
    data["grader_commit"] = grader_commit()
    data["timestamp"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "stamp":
        return stamp(argv[1], argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
