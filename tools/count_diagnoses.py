#!/usr/bin/env python3
"""count_diagnoses.py -- how many of the graders' "likely mistake" lines a wrong variant shows.

Every diagnosis a grader can give should be tested both ways: a wrong variant whose `expect:` line
(tests/wrong/NN-*/NAME.patch, also `expect-sim:` / `expect-gpu:`) it shows, and other variants that
must not show it (`not-expect:`). This counts, per lesson, the "likely mistake" texts in
tests/test_NN_*.c (the C string literals of one message, joined) and how many of them contain some
variant's expected text, and lists the ones none does, so the gap is visible in `make test`. A
diagnosis is a "likely mistake" message with words of its own, or a text that one of the grader's
diagnosis helpers (a function named *hint*, *mistake*, *explain*, *why* or *meaning* that returns a
string) gives to a "likely mistake: %s" frame; the frames are not counted, and neither is a helper's
text that only joins other texts ("%s; or: %s", two rules that give the same figures). The untouched skeleton's
expected texts (tests/skeleton/NN-topic.expect, checked by tools/test_lessons.sh) count as well.
It only reports (exit 0); `--summary` prints the counts alone (what `make test` shows), `--strict`
makes an uncovered diagnosis an error.

A diagnosis counts as covered when an expected text of the same lesson occurs in its fixed text
(white space folded). Messages built at run time from pieces the grader chooses are counted by
their literal parts only, so the count is a floor: some "uncovered" texts are shown after all.
"""
import glob
import os
import re
import sys

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# A run of adjacent string literals (one message, split over lines).
RUN = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
CONVERSION = re.compile(r'%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp%]')


def messages(source):
    """Each run of adjacent literals, joined, with C escapes for quotes and newlines undone."""
    for run in RUN.finditer(source):
        text = "".join(m.group(1) for m in LITERAL.finditer(run.group(0)))
        yield text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


# A diagnosis helper: a function returning the text of a "likely mistake" line (sum_hint, explain_batch, ...).
HELPER = re.compile(r"^(?:static\s+)?(?:const\s+)?char\s*\*\s*([a-z_0-9]+)\s*\([^;{]*\)\s*\{", re.M)
HELPER_NAME = re.compile(r"hint|mistake|explain|why|meaning")
# what such a helper gives: a returned literal, or the format it prints into its buffer
GIVEN = re.compile(r'(?:\breturn|\bsnprintf\s*\([^,;]+,[^,;]+,)\s*(' + RUN.pattern + ")")


# what a joining text has besides its conversions: punctuation, and "or" / "and"
JOINER = re.compile(r"^[\s;:,.()\-]*(?:(?:or|and)[\s;:,.()\-]*)*$")


def joins_only(text):
    """A helper's text that only joins texts chosen elsewhere ("%s; or: %s"): not a diagnosis itself."""
    return JOINER.match(CONVERSION.sub("", text)) is not None


def is_frame(part):
    """A "likely mistake: %s" that only frames a text chosen elsewhere (a helper's): not a diagnosis itself."""
    rest = part[len("likely mistake"):].lstrip(":")
    return not CONVERSION.sub("", rest).strip(" ;.,\n")


def diagnoses(test_file):
    """Every diagnosis text: (the whole message, the part that names the mistake). Messages with a
    "likely mistake" line of their own words, and the texts the grader's diagnosis helpers return
    into a "likely mistake: %s" frame (the frames themselves are not counted)."""
    source = open(test_file, encoding="utf-8", errors="replace").read()
    out = []
    for text in messages(source):
        at = text.find("likely mistake")
        if at >= 0 and not is_frame(text[at:]):
            out.append((text, text[at:]))
    for m in HELPER.finditer(source):
        if not HELPER_NAME.search(m.group(1)):
            continue
        end = source.find("\n}\n", m.end())
        for given in GIVEN.finditer(source[m.end():end if end > 0 else len(source)]):
            for text in messages(given.group(1)):
                if "likely mistake" not in text and not joins_only(text):
                    out.append((text, text))
    return out


def expectations(lesson_dir, skeleton_expect):
    """The texts the lesson's wrong variants, and its untouched skeleton, are tested to show."""
    found = []
    files = sorted(glob.glob(os.path.join(lesson_dir, "*.patch"))) + ([skeleton_expect] if os.path.exists(skeleton_expect) else [])
    for path in files:
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"^expect(?:-sim|-gpu)?: (.+)$", line.rstrip("\n"))
            if m:
                found.append(m.group(1))
            if line.startswith("---"):
                break
    return found


def covers(expected, diagnosis):
    """Whether `expected` appears in the message's fixed text, or across a conversion (%s, %zu, ...)
    that prints anything: each side of the expected text must match around one conversion."""
    flat = " ".join(diagnosis.split())
    want = " ".join(expected.split())
    if want in flat:
        return True
    pattern = ".*".join(re.escape(p) for p in CONVERSION.split(flat))
    return re.search(pattern, want) is not None or any(want in p for p in CONVERSION.split(flat))


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    strict = "--strict" in argv
    summary = "--summary" in argv
    total = covered = variants = 0
    missing = []
    for test in sorted(glob.glob(os.path.join(root, "tests", "test_[0-9][0-9]_*.c"))):
        num = os.path.basename(test)[5:7]
        dirs = glob.glob(os.path.join(root, "tests", "wrong", num + "-*"))
        lesson = os.path.basename(dirs[0]) if dirs else ""
        wanted = expectations(dirs[0], os.path.join(root, "tests", "skeleton", lesson + ".expect")) if dirs else []
        variants += len(glob.glob(os.path.join(dirs[0], "*.patch"))) if dirs else 0
        for whole, part in diagnoses(test):
            total += 1
            if any(covers(e, whole) for e in wanted):
                covered += 1
            else:
                missing.append((num, " ".join(part.split())[:110]))
    print(f"diagnoses: {total} 'likely mistake' texts in the graders, {covered} shown by a wrong variant or the skeleton, "
          f"{total - covered} by none ({variants} wrong variants)")
    if summary and missing:
        print("  (python3 tools/count_diagnoses.py lists the ones no variant shows)")
    for num, text in [] if summary else missing:
        print(f"  lesson {num}: no variant shows: {text}")
    sys.stdout.flush()
    return 1 if strict and missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
