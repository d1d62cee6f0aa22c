#!/usr/bin/env python3
"""check_gradescope.py RESULTS.json... -- checks a results.json against Gradescope's autograder
specification ("Output format", gradescope-autograders.readthedocs.io/en/latest/specs/), strictly:
every key one the specification names, with the type and the values it allows; a score on the
whole or on every test. And what make grade's and the autograder's results add to it: every test has
a name, a number, a score between 0 and its max_score, a status that agrees with the score, an
output, and the scores add up to the whole. Prints one line per problem; exit 1 if there is one.

    --self-test   checks that each rule catches what it is about (broken copies of a good result)
"""
import copy
import json
import sys

FORMATS = {"text", "html", "simple_format", "md", "ansi"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
TOP = {"score": "number", "execution_time": "number", "output": "string", "output_format": FORMATS,
       "test_output_format": FORMATS, "test_name_format": FORMATS, "visibility": VISIBILITY,
       "stdout_visibility": VISIBILITY, "extra_data": "object", "tests": "array", "leaderboard": "array"}
TEST = {"score": "number", "max_score": "number", "status": {"passed", "failed"}, "name": "string",
        "name_format": FORMATS, "number": "string", "output": "string", "output_format": FORMATS,
        "tags": "array", "visibility": VISIBILITY, "extra_data": "object"}
LEADER = {"name": "string", "value": "number or string", "order": {"asc", "desc"}}


def is_type(value, kind):
    if isinstance(kind, set):
        return isinstance(value, str) and value in kind
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return {"number": number, "string": isinstance(value, str), "object": isinstance(value, dict),
            "array": isinstance(value, list), "number or string": number or isinstance(value, str)}[kind]


def keys(where, obj, allowed):
    out = []
    for k, v in obj.items():
        if k not in allowed:
            out.append("%s: %r is not a key of Gradescope's format" % (where, k))
        elif not is_type(v, allowed[k]):
            want = "one of " + ", ".join(sorted(allowed[k])) if isinstance(allowed[k], set) else "a " + allowed[k]
            out.append("%s: %s is %r, want %s" % (where, k, v, want))
    return out


def problems(data, ours=True):
    """Where data breaks the specification (and, with ours, make grade's additions), one line each."""
    if not isinstance(data, dict):
        return ["results.json is not a JSON object"]
    out = keys("results.json", data, TOP)
    tests = data.get("tests") if isinstance(data.get("tests"), list) else []
    if "score" not in data and ("tests" not in data or any(not isinstance(t, dict) or "score" not in t for t in tests)):
        out.append("results.json: no score (the whole's, or every test's)")
    for i, t in enumerate(tests):
        where = "test %d" % (i + 1)
        if not isinstance(t, dict):
            out.append("%s is not an object" % where)
            continue
        out += keys(where, t, TEST)
        for tag in t.get("tags", []) if isinstance(t.get("tags"), list) else []:
            if not isinstance(tag, str):
                out.append("%s: a tag is %r, not a string" % (where, tag))
        if not ours:
            continue
        for k in ("name", "number", "score", "max_score", "status", "output", "visibility"):
            if k not in t:
                out.append("%s: no %s" % (where, k))
        s, m = t.get("score"), t.get("max_score")
        if is_type(s, "number") and is_type(m, "number"):
            if not 0 <= s <= m:
                out.append("%s: score %s outside 0..%s" % (where, s, m))
            if t.get("status") == "passed" and s != m or t.get("status") == "failed" and s != 0:
                out.append("%s: status %s with %s of %s points" % (where, t.get("status"), s, m))
    for i, row in enumerate(data.get("leaderboard", []) if isinstance(data.get("leaderboard"), list) else []):
        if not isinstance(row, dict) or "name" not in row or "value" not in row:
            out.append("leaderboard %d: needs a name and a value" % (i + 1))
        else:
            out += keys("leaderboard %d" % (i + 1), row, LEADER)
    if ours:
        if not tests:
            out.append("results.json: no tests (one per exercise)")
        scores = [t.get("score") for t in tests if isinstance(t, dict)]
        if all(is_type(s, "number") for s in scores) and data.get("score") != sum(scores):
            out.append("results.json: score %r is not the tests' sum %s" % (data.get("score"), sum(scores)))
    return out


def self_test():
    good = {"score": 3, "execution_time": 4, "output": "3 of 5 points", "visibility": "visible", "stdout_visibility": "hidden",
            "tests": [{"name": "a", "number": "02.1", "score": 3, "max_score": 3, "status": "passed", "output": "passed",
                       "tags": ["02-vector-add"], "visibility": "visible"},
                      {"name": "b", "number": "02.2", "score": 0, "max_score": 2, "status": "failed", "output": "why",
                       "tags": ["02-vector-add"], "visibility": "visible"}]}
    assert problems(good) == [], problems(good)
    breaks = [
        lambda d: d.update(score="3"),                            # a string for a number
        lambda d: d.update(score=True),                           # a boolean for a number
        lambda d: d.update(visibility="public"),                  # not a visibility
        lambda d: d.update(stdout_visibility="always"),
        lambda d: d.update(output_format="rst"),                  # not a format
        lambda d: d.update(scores=3),                             # a key the format does not have
        lambda d: d.pop("score"),                                 # the sum then is not the score...
        lambda d: d["tests"][0].update(status="ok"),              # not passed or failed
        lambda d: d["tests"][0].update(max_score="3"),
        lambda d: d["tests"][0].update(number=2.1),               # a number is a string
        lambda d: d["tests"][0].update(tags="02"),                # tags are an array
        lambda d: d["tests"][0].update(tags=[2]),                 # ... of strings
        lambda d: d["tests"][0].update(visibility="public"),
        lambda d: d["tests"][0].update(extra_data=[]),            # extra data is an object
        lambda d: d["tests"][0].pop("output"),                    # ours: every test says why
        lambda d: d["tests"][1].update(score=3),                  # ours: more than its max_score
        lambda d: d["tests"][1].update(status="passed"),          # ours: passed with 0 points
        lambda d: d.update(score=5),                              # ours: not the sum
        lambda d: d.update(tests=[]),                             # ours: no exercises
        lambda d: d.update(tests={}),
        lambda d: d.update(leaderboard=[{"name": "x"}]),
    ]
    for i, b in enumerate(breaks):
        d = copy.deepcopy(good)
        b(d)
        assert problems(d), "rule %d caught nothing: %s" % (i, d)
    d = copy.deepcopy(good)
    d.pop("score")
    for t in d["tests"]:
        t.pop("score")
    assert any("no score" in p for p in problems(d, ours=False)), problems(d, ours=False)
    print("check_gradescope: every rule catches its break (%d)" % (len(breaks) + 1))
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    bad = False
    for path in argv:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            print("%s: not readable JSON (%s)" % (path, e))
            bad = True
            continue
        for p in problems(data):
            print("%s: %s" % (path, p))
            bad = True
    return 1 if bad or not argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
