#!/usr/bin/env python3
"""results.py -- stamp a lesson's result file with what an instructor needs to trust it later.

    results.py stamp RESULT.json FILE...
    results.py keep EARLIER.json RESULT.json EXERCISE

stamp adds to the judge's JSON: the graded files with their sha256, the grader's git commit and the
time. A missing or unreadable result (the judge never got to write it) is an error: exit 1.

keep, after a check of one exercise (`make check EX=NN.k`), takes back from the lesson's earlier
result the other exercises that this check did not run, where their files are byte for byte what
that earlier check graded (same sha256, backend and grader): a check of 04.1 no longer wipes out
04.2's pass. Each exercise taken back says when it was graded ("from_check"); the points are added
up again. Anything it cannot trust (no earlier result, another file, another backend) stays "not-run".

The same sha256s let `make progress` and `make hint` tell whether a result still describes the
student's file: freshness() compares an exercise's file now with the file that was graded.
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


def load(path):
    """The result at path, or None when it is missing or not JSON (never an exception)."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def file_sha256(path):
    """The file's sha256, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def stamped_files(result):
    """{relative path: sha256} of the files graded for this result; {} if it has none."""
    files = result.get("files") if isinstance(result, dict) else None
    if not isinstance(files, list):
        return {}
    return {f["path"]: f.get("sha256") for f in files if isinstance(f, dict) and isinstance(f.get("path"), str)}


def exercise_files(result, ex_id, root="."):
    """The graded files that hold exercise ex_id's TODO regions. A lesson may have several files
    (lesson 12); when no file has the exercise's marker (a student deleted it), all of them."""
    paths = sorted(stamped_files(result))
    marker = "TODO(%s) begin" % ex_id
    mine = []
    for rel in paths:
        try:
            with open(os.path.join(root, rel), errors="replace") as f:
                if marker in f.read():
                    mine.append(rel)
        except OSError:
            pass
    return mine or paths


def freshness(result, ex_id, root="."):
    """'same' when the exercise's files are what was graded, 'changed' when one differs, and
    'unknown' when that cannot be told (no hashes in the result, or a file that cannot be read)."""
    stamped = stamped_files(result)
    files = exercise_files(result, ex_id, root)
    if not files:
        return "unknown"
    state = "same"
    for rel in files:
        now, then = file_sha256(os.path.join(root, rel)), stamped.get(rel)
        if now is None or not then:
            state = "unknown"
        elif now != then:
            return "changed"
    return state


def lesson_freshness(result, ex_ids, root="."):
    """The worst freshness over the exercises: one changed file makes the lesson's result stale."""
    states = {freshness(result, e, root) for e in ex_ids} or {"unknown"}
    for state in ("changed", "unknown"):
        if state in states:
            return state
    return "same"


def stale_message(state, lesson_short):
    """What a student reads in place of 'done' or 'passed' when the result may be out of date."""
    mark = "?" if state == "unknown" else ""
    return "changed since your last check%s — run `make check LESSON=%s`" % (mark, lesson_short)


def write_json(path, data):
    """The result written whole beside path, then renamed into place: a reader never sees half of it."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


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
    write_json(path, data)
    return 0


def keep(earlier_path, path, exercise):
    earlier, data = load(earlier_path), load(path)
    if data is None:
        sys.stderr.write("error: %s: no valid result to complete\n" % path)
        return 1
    if earlier is None or not isinstance(earlier.get("exercises"), list) or not isinstance(data.get("exercises"), list):
        return 0
    if earlier.get("backend") != data.get("backend") or earlier.get("grader_commit") != data.get("grader_commit"):
        return 0
    before = {e.get("id"): e for e in earlier["exercises"] if isinstance(e, dict)}
    then, now = stamped_files(earlier), stamped_files(data)
    root = os.environ.get("GRADE_ROOT", ROOT)
    changed = False
    for i, e in enumerate(data["exercises"]):
        old = before.get(e.get("id"))
        if e.get("id") == exercise or e.get("status") != "not-run" or not isinstance(old, dict) or old.get("status") == "not-run":
            continue
        files = exercise_files(data, e["id"], root)
        if not files or any(not now.get(f) or then.get(f) != now.get(f) for f in files):
            continue
        data["exercises"][i] = dict(old, from_check=old.get("from_check") or earlier.get("timestamp"))
        changed = True
    if not changed:
        return 0
    data["points"] = sum(e.get("points", 0) for e in data["exercises"] if isinstance(e, dict) and e.get("passed") is True)
    write_json(path, data)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "stamp":
        return stamp(argv[1], argv[2:])
    if len(argv) == 4 and argv[0] == "keep":
        return keep(argv[1], argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
