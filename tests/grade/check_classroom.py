#!/usr/bin/env python3
"""check_classroom.py WORKFLOW LESSON... [--no-yaml] -- GitHub Classroom's autograding workflow
(tools/classroom.py) as its command grader and reporter read it: parsed with PyYAML (or, with
--no-yaml or without PyYAML, a structural parser of the subset it is written in); run on push; the
reporter the last step, reading every grader step's result and listing them all as runners; the
install step the README's student line; one command-grader step per exercise of the LESSONs, in the
graders' order, each `make check LESSON=NN EX=NN.k && python3 tools/classroom.py passed NN.k` with
the exercise's points as max-score, so that each lesson's steps add up to its total. One line per
problem, exit 1. Run from the workbook's root.

    CAN_FAIL=1    also checks that the same workflow with one max-score changed fails
    --commands    prints "points<TAB>command" of each command-grader step instead
"""
import importlib.util
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, "tools")
from batch_workbook import grader_table
from test_install_line import readme_lines

GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
JOB = "run-autograding-tests"


def scalar(v):
    v = v.strip()
    if v[:1] == "'" and v[-1:] == "'":
        return v[1:-1].replace("''", "'")
    if v[:1] == '"' and v[-1:] == '"':
        return v[1:-1]
    return int(v) if re.fullmatch(r"\d+", v) else v


def structural(text):
    """Without PyYAML: {"top": {key: text}, "on": [events], "steps": [step]}, each step a dict whose
    `with:` and `env:` are dicts, for the block style the workflow is written in; or raises
    ValueError where the text leaves it."""
    top, on, steps, cur, sub, section = {}, [], [], None, None, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^('?[\w-]+'?):\s*(.*)$", line)
        if m:
            section = m.group(1).strip("'")
            top[section] = m.group(2)
            continue
        if section == "on" and line.startswith("- "):
            on.append(line[2:].strip())
            continue
        if line.startswith("    - "):
            cur, sub = {}, None
            steps.append(cur)
            line = "      " + line[6:]
        m = re.match(r"^( +)([\w-]+):\s*(.*)$", line)
        if cur is None:
            if section in ("permissions", "jobs") and m:
                continue
            raise ValueError("unexpected line: %r" % line)
        if not m:
            raise ValueError("unexpected line in a step: %r" % line)
        indent, key, value = len(m.group(1)), m.group(2), m.group(3)
        if indent == 6:
            if value == "":
                sub = cur.setdefault(key, {})
            else:
                cur[key], sub = scalar(value), None
        elif indent == 8 and sub is not None:
            sub[key] = scalar(value)
        else:
            raise ValueError("unexpected indentation: %r" % line)
    return {"top": top, "on": on, "steps": steps}


def parsed(text, use_yaml):
    """(events it runs on, steps of the job)."""
    if use_yaml:
        import yaml
        d = yaml.safe_load(text)
        on = d.get("on", d.get(True))   # YAML 1.1 reads a bare `on` as true
        return list(on), d["jobs"][JOB]["steps"]
    d = structural(text)
    if not {"name", "on", "permissions", "jobs"} <= set(d["top"]):
        raise ValueError("top-level keys: %s" % sorted(d["top"]))
    return d["on"], d["steps"]


def problems(text, lessons, use_yaml):
    try:
        on, steps = parsed(text, use_yaml)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        return ["does not parse as the workflow: %s" % e]
    out = [] if "push" in on else ["not run on push: %s" % on]
    graders = [s for s in steps if s.get("uses") == GRADER]
    reporters = [s for s in steps if s.get("uses") == REPORTER]
    if len(reporters) != 1 or steps[-1] is not reporters[0]:
        return out + ["the reporter is not the one last step"]
    report = reporters[0]
    ids = [s.get("id") for s in graders]
    if len(set(ids)) != len(ids) or report.get("with", {}).get("runners") != ",".join(ids):
        out.append("runners %s, steps %s" % (report.get("with"), ids))
    for i in ids:
        if report.get("env", {}).get("%s_RESULTS" % str(i).upper()) != "${{steps.%s.outputs.result}}" % i:
            out.append("the reporter does not read %s" % i)
    installs = [s.get("run", "") for s in steps if "apt-get install" in str(s.get("run", ""))]
    student = readme_lines(open("README.md", encoding="utf-8").read())[0]
    if [re.sub(r"^.*apt-get install (-y )?", "", r).split() for r in installs] != [student]:
        out.append("installs %s, not the README's line %s" % (installs, student))
    want = [(ex, p) for lesson in lessons for ex, p, _t, _g in grader_table(lesson)]
    got = []
    for s in graders:
        w = s.get("with", {})
        m = re.fullmatch(r"make check LESSON=(\d\d) EX=(\d\d\.\d+) && python3 tools/classroom\.py passed (\d\d\.\d+)", str(w.get("command")))
        if not m or m.group(1) != m.group(2)[:2] or m.group(2) != m.group(3) or not str(w.get("test-name", "")).startswith(m.group(2) + " "):
            out.append("step %s: command %r, test %r" % (s.get("id"), w.get("command"), w.get("test-name")))
            continue
        if not isinstance(w.get("max-score"), int) or not isinstance(w.get("timeout"), int) or w["timeout"] <= 0:
            out.append("step %s: max-score %r, timeout %r" % (s.get("id"), w.get("max-score"), w.get("timeout")))
        got.append((m.group(2), w.get("max-score")))
    if got != want:
        out.append("exercises and points %s, the graders say %s" % (got, want))
    for lesson in lessons:
        total = sum(p for ex, p in got if ex[:2] == lesson[:2])
        if total != sum(p for _e, p, _t, _g in grader_table(lesson)):
            out.append("%s: its steps give %d points" % (lesson, total))
    return out


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    use_yaml = "--no-yaml" not in argv and importlib.util.find_spec("yaml") is not None
    with open(args[0], encoding="utf-8") as f:
        text = f.read()
    if "--commands" in argv:
        for s in parsed(text, use_yaml)[1]:
            if s.get("uses") == GRADER:
                sys.stdout.write("%d\t%s\n" % (s["with"]["max-score"], s["with"]["command"]))
        return 0
    found = problems(text, args[1:], use_yaml)
    if os.environ.get("CAN_FAIL"):
        changed = re.sub(r"max-score: (\d+)", lambda m: "max-score: %d" % (int(m.group(1)) + 1), text, count=1)
        if not problems(changed, args[1:], use_yaml):
            found.append("a changed max-score went unnoticed")
    for p in found:
        print("    " + p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
