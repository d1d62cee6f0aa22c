"""batch_results.py -- a grader's result for `make grade`: read safely, checked, converted.

A lesson counts only with the grader's JSON from that student's own tree, read without following a
link and size-bounded, and only when it is the grader's for that lesson: its exercises (ids and
points) are the grader's table's, its points add up, its seed and backend are this run's and it
graded exactly the files taken from the submission (their sha256). A student's code ran in that
tree and could have written anything there; anything that does not fit is an error with 0
points for the lesson. gradescope() writes the checked results in Gradescope's format.
"""
import json
import os
import stat

from batch_refused import Refused
from batch_unpack import open_nofollow
from batch_workbook import grader_exercises, grader_table

MAX_RESULT = 4 << 20              # a grader's JSON


def read_result(tree_fd, backend, lesson):
    """The grader's JSON for lesson in this tree (no link followed on the way), or raises Refused."""
    try:
        fd = open_nofollow(tree_fd, ("build", backend, "results", lesson + ".json"), False)
    except Refused:
        raise Refused("the result file is behind a link")
    except OSError as e:
        raise Refused("no result (%s)" % os.strerror(e.errno))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Refused("the result is not a regular file")
        data = f.read(MAX_RESULT + 1)
    if len(data) > MAX_RESULT:
        raise Refused("the result is too large")
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        raise Refused("the result is not valid JSON")


def check_result(r, lesson, backend, hashes):
    """Refuses a result that is not the grader's for this lesson, backend, seed and these files."""
    def need(cond, why):
        if not cond:
            raise Refused("invalid result (%s)" % why)
    isint = lambda v: isinstance(v, int) and not isinstance(v, bool)
    need(isinstance(r, dict), "not an object")
    need(r.get("schema") == 1 and r.get("lesson") == lesson and r.get("backend") == backend, "lesson, backend or schema")
    need(r.get("status") in ("graded", "compile-error"), "status")
    seed = os.environ.get("GRADE_SEED")
    if seed:
        need(r.get("seed") == int(seed), "seed")
    ex = r.get("exercises")
    need(isinstance(ex, list) and ex, "exercises")
    for e in ex:
        need(isinstance(e, dict) and isinstance(e.get("id"), str) and isint(e.get("points")) and e["points"] >= 0
             and e.get("status") in ("passed", "failed", "needs-gpu", "unchecked", "not-run")
             and e.get("passed") is (e.get("status") == "passed"), "an exercise")
    expected = grader_exercises(lesson)
    if expected is not None:
        need([(e["id"], e["points"]) for e in ex] == expected, "exercises differ from the grader's")
    need(isint(r.get("points")) and r["points"] == sum(e["points"] for e in ex if e["passed"]), "points")
    need(isint(r.get("total_points")) and r["total_points"] == sum(e["points"] for e in ex), "total points")
    files = r.get("files")
    need(isinstance(files, list), "files")
    stamped = {f.get("path"): f.get("sha256") for f in files if isinstance(f, dict)}
    for name, digest in hashes.items():
        need(stamped.get("lessons/%s/%s" % (lesson, name)) == digest, "the graded %s is not the submitted one" % name)


def gradescope(results, status=None):
    """Gradescope's results.json (its autograder specification): one test per exercise of every
    lesson graded -- name, number, score, max_score, status, the grader's diagnosis as output,
    visibility -- and the score what passed. A lesson without a valid result lists its exercises
    (the grader's table) at 0 points, with the reason (status) as their output."""
    tests, score = [], 0
    for lesson, r in sorted(results.items()):
        if r:
            rows = [(e["id"], e["title"], e["points"], e["passed"], e.get("message") or e["status"]) for e in r.get("exercises", [])]
        else:
            rows = [(ex, title, points, False, status or "no result") for ex, points, title, _gpu in grader_table(lesson) or []]
        for ex, title, points, passed, output in rows:
            got = points if passed else 0
            score += got
            tests.append({"name": title, "number": ex, "score": got, "max_score": points,
                          "status": "passed" if passed else "failed", "output": output or ("passed" if passed else "failed"),
                          "tags": [lesson], "visibility": "visible"})
    out = {"score": score, "tests": tests, "visibility": "visible", "stdout_visibility": "hidden"}
    if status:
        out["output"] = "%d of %d points: %s" % (score, sum(t["max_score"] for t in tests), status)
    return out
