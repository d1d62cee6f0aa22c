#!/usr/bin/env python3
"""doxy_md_filter.py FILE -- Doxygen input filter for the Markdown pages of `make docs`.

The READMEs link to each other with relative paths, so they read well on a forge and in an
editor. Doxygen cannot follow `../` paths; this filter rewrites, in the text Doxygen reads (the
file on disk is not changed):
- a relative link to a Markdown file into `@ref label` (the `{#label}` on that file's first
  heading); where the link text is only the file's path or name, the page's title replaces it;
- a relative link to a source file Doxygen reads into a link to its annotated source page;
- in docs/mainpage.md, the line `<!-- docs:lessons -->` into the list of lessons, made from the
  lessons/NN-topic/ folders in order (title from each README's first heading);
- in a lesson's README: previous / next lesson and the lesson's files (student file, solution, CPU
  reference, grader) as annotated source pages, at the top and the bottom; the benchmark plots
  (build/docs/html/plots/lesson-NN-*.svg, drawn by tools/docs_plots.py) under "## Benchmark" and
  the demo's pictures (docs/pictures/NN-*.png) under "## Run it";
- in docs/results/README.md, the line `<!-- docs:plots -->` into every plot that was drawn.
A link it cannot resolve is written to build/docs/filter.log, which `make docs` treats as an error.
"""
import fnmatch
import glob
import html
import os
import re
import sys

from batch_workbook import student_files

LINK = re.compile(r"(!?)\[([^\]]+)\]\(((?!https?:|mailto:|#|@ref)[^)\s]+)\)")
LABEL = re.compile(r"\{#([A-Za-z0-9_]+)\}")
ROOT = os.getcwd()  # Doxygen runs from the repository root (see the Makefile's docs target)
HTML_DIR = os.path.join(os.environ.get("DOCS_OUT") or os.path.join(ROOT, "build", "docs"), "html")
PLOTS = os.path.join(HTML_DIR, "plots")
PICTURES = os.path.join(ROOT, "docs", "pictures")
LOG = os.path.join(os.path.dirname(HTML_DIR), "filter.log")
SOURCE_EXT = (".c", ".h", ".cu")
# Pages whose links to other pages make those pages their children in the navigation tree.
PARENTS = ("docs/mainpage.md", "docs/results/README.md")


def problem(path, msg):
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "a", encoding="utf-8") as f:
        f.write("%s: %s\n" % (os.path.relpath(path, ROOT), msg))


def heading_of(path):
    """(label, title) from a Markdown file's first heading, or (None, None)."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    m = LABEL.search(line)
                    title = LABEL.sub("", line).strip("# \n")
                    return (m.group(1) if m else None), title
    except OSError:
        pass
    return None, None


# ---------------------------------------------------------------------------------------------
# Doxygen's own file names, to link to a source file's annotated page.

def doxyfile_settings():
    settings, key = {}, None
    with open(os.path.join(ROOT, "docs", "Doxyfile"), encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("FILTER") else raw.rstrip()
            if not line.strip():
                key = None
                continue
            m = re.match(r"\s*([A-Z_]+)\s*(\+?=)\s*(.*)", line)
            if m:
                key, op, value = m.groups()
                if op == "=":
                    settings[key] = []
            else:
                value = line
            if key:
                settings[key] += value.rstrip("\\").split()
                if not line.endswith("\\"):
                    key = None
    return settings


def doxygen_inputs():
    """Every source file Doxygen reads, as paths relative to the repository root."""
    s = doxyfile_settings()
    patterns = s.get("FILE_PATTERNS", [])
    excluded = [os.path.normpath(e) for e in s.get("EXCLUDE", [])]
    files = []
    for entry in s.get("INPUT", []):
        if os.path.isfile(entry):
            files.append(os.path.normpath(entry))
            continue
        for dirpath, dirnames, filenames in os.walk(entry):
            if any(dirpath == e or dirpath.startswith(e + os.sep) for e in excluded):
                dirnames[:] = []
                continue
            for name in filenames:
                if any(fnmatch.fnmatch(name, p) for p in patterns):
                    files.append(os.path.normpath(os.path.join(dirpath, name)))
    return sorted(set(f for f in files if not any(f == e or f.startswith(e + os.sep) for e in excluded)))


def escape_name(name):
    """Doxygen's convertNameToFile for the characters our paths use."""
    out = []
    for ch in name:
        if ch == "_":
            out.append("__")
        elif ch == ".":
            out.append("_8")
        elif ch == "/":
            out.append("_2")
        elif ch.isalnum() or ch == "-":
            out.append(ch)
        else:
            raise ValueError("unexpected character %r in %s" % (ch, name))
    return "".join(out)


_SOURCES = None


def source_page(rel):
    """The annotated source page of a file Doxygen reads, or None. Files sharing a name are told
    apart by their path below the deepest folder they all share (as Doxygen does)."""
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = doxygen_inputs()
    rel = os.path.normpath(rel)
    if rel not in _SOURCES:
        return None
    same = [f for f in _SOURCES if os.path.basename(f) == os.path.basename(rel)]
    if len(same) == 1:
        disk = os.path.basename(rel)
    else:
        common = os.path.commonpath([os.path.dirname(f) for f in same])
        disk = os.path.relpath(rel, common) if common else rel
    return escape_name(disk) + "_source.html"


def source_link(text, rel):
    page = source_page(rel)
    return '<a href="%s">%s</a>' % (page, text) if page else None


# ---------------------------------------------------------------------------------------------
# Lessons.

def lessons():
    """[(folder name, path, label, title)] of lessons/NN-topic/README.md, in order."""
    out = []
    for d in sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]-*"))):
        readme = os.path.join(d, "README.md")
        if os.path.isfile(readme):
            label, title = heading_of(readme)
            out.append((os.path.basename(d), readme, label, title))
    return out


def one_line(folder, readme):
    """A one-line summary: the lesson's row in the top README's table, else its first goal."""
    try:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) >= 3 and ("[%s]" % folder) in cells[0]:
                    return "%s; you write: %s" % (cells[1], cells[2])
    except OSError:
        pass
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## What you will learn\s*\n-\s*(.+?)(?:;|\n-|\n\n)", text, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def lesson_list():
    rows = []
    for folder, readme, label, title in lessons():
        if not label:
            problem(readme, "the first heading has no {#label}; the main page cannot link to it")
            continue
        summary = one_line(folder, readme)
        rows.append("%d. @subpage %s%s" % (len(rows) + 1, label, " — " + summary if summary else ""))
    return "\n".join(rows)


def lesson_files(folder):
    """[(role, path)] of one lesson's files, each relative to the root, where they exist."""
    num = folder.split("-")[0]
    # the graded file, as the lesson's lesson.mk names it (a lesson may have other headers)
    cu = [f for f in student_files(folder) if f.endswith(".cu")]
    name = os.path.splitext(cu[0])[0] if cu else None
    want = []
    if name:
        want += [("your file", "lessons/%s/%s.cu" % (folder, name)),
                 ("the solution", "solutions/%s/%s.cu" % (folder, name)),
                 ("its API", "lessons/%s/%s.h" % (folder, name))]
    want += [("the CPU reference", os.path.relpath(p, ROOT))
             for p in sorted(glob.glob(os.path.join(ROOT, "lessons", folder, "*_cpu.c")))]
    want += [("the grader", os.path.relpath(p, ROOT))
             for p in sorted(glob.glob(os.path.join(ROOT, "tests", "test_%s_*.c" % num)))]
    want += [("the demo", "lessons/%s/main.c" % folder), ("the benchmark", "lessons/%s/bench.c" % folder)]
    return [(role, p) for role, p in want if os.path.isfile(os.path.join(ROOT, p))]


def lesson_nav(path, where):
    all_ = lessons()
    folder = os.path.basename(os.path.dirname(path))
    idx = [l[0] for l in all_].index(folder)
    prev_ = all_[idx - 1] if idx > 0 else None
    next_ = all_[idx + 1] if idx + 1 < len(all_) else None
    parts = []
    parts.append('<a class="el" href="%s.html">&larr; %s</a>' % (prev_[2], html.escape(prev_[3])) if prev_ else
                 '<span class="nav-none">first lesson</span>')
    parts.append('<a class="el" href="index.html">all lessons</a>')
    parts.append('<a class="el" href="%s.html">%s &rarr;</a>' % (next_[2], html.escape(next_[3])) if next_ else
                 '<span class="nav-none">last lesson</span>')
    out = ['<div class="lesson-nav lesson-nav-%s">%s</div>' % (where, " ".join(
        '<span class="nav-%s">%s</span>' % (k, p) for k, p in zip(("prev", "up", "next"), parts)))]
    if where == "top":
        links = []
        for role, rel in lesson_files(folder):
            link = source_link("<code>%s</code>" % html.escape(os.path.basename(rel)), rel)
            if link:
                links.append("%s %s" % (role, link))
            else:
                problem(path, "%s %s is not among Doxygen's inputs (docs/Doxyfile INPUT)" % (role, rel))
        if links:
            out.append('<div class="lesson-files">Annotated sources: %s.</div>' % ", ".join(links))
    return "\n".join(out) + "\n"


def figure(src, alt, caption):
    return ('<div class="figure"><img src="%s" alt="%s"/><div class="caption">%s</div></div>'
            % (src, html.escape(alt), caption))


def plots_for(prefix):
    return sorted(glob.glob(os.path.join(PLOTS, prefix + "*.svg")))


def plot_figures(prefix):
    figs = []
    for svg in plots_for(prefix):
        name = os.path.splitext(os.path.basename(svg))[0]
        if name.startswith("overview-"):  # every lesson-NN-<machine>.csv of that machine together
            what, csv_rel = "Every lesson", "docs/results/lesson-*-%s.csv" % name.split("-", 1)[1]
        else:
            what, csv_rel = "Lesson %s" % name.split("-")[1], "docs/results/%s.csv" % name
        figs.append(figure("plots/%s.svg" % name, "%s benchmark, %s" % (what, name),
                           "%s benchmark, drawn from <code>%s</code> by <code>tools/docs_plots.py</code>" % (what, csv_rel)))
    return "\n\n".join(figs)


def add_to_section(text, heading, addition):
    """Insert addition at the end of the section that starts with `heading` (a line)."""
    m = re.search(r"^%s[ \t]*\n" % re.escape(heading), text, re.M)
    if not m or not addition:
        return text
    nxt = re.search(r"^#{1,2} ", text[m.end():], re.M)
    at = m.end() + nxt.start() if nxt else len(text)
    return text[:at].rstrip("\n") + "\n\n" + addition + "\n\n" + text[at:]


def lesson_page(path, text):
    folder = os.path.basename(os.path.dirname(path))
    num = folder.split("-")[0]
    first = text.find("\n") + 1
    text = text[:first] + "\n" + lesson_nav(path, "top") + "\n" + text[first:]
    text = add_to_section(text, "## Benchmark", plot_figures("lesson-%s-" % num))
    # the input first, then the outputs
    # a benchmark's plot drawn from a recorded run (docs/pictures/NN-bench-*.svg) goes under "Benchmark"
    bench = sorted(glob.glob(os.path.join(PICTURES, "%s-bench-*.svg" % num)))
    if bench:
        figs = "".join(figure("pictures/" + os.path.basename(p), os.path.basename(p), "<code>%s</code>" % os.path.basename(p)) for p in bench)
        text = add_to_section(text, "## Benchmark", '<div class="figures">%s</div>\n\nDrawn from the table of a recorded '
                              '`make bench LESSON=%s SOLUTION=1` (docs/results).' % (figs, num))
    pics = sorted(glob.glob(os.path.join(PICTURES, "%s-*.png" % num)), key=lambda p: ("input" not in p, p))
    if pics:
        figs = "".join(figure("pictures/" + os.path.basename(p), os.path.basename(p),
                              "<code>%s</code>" % os.path.basename(p)) for p in pics)
        text = add_to_section(text, "## Run it", '<div class="figures">%s</div>\n\nThe pictures above were written by '
                              '`make run LESSON=%s SOLUTION=1`.' % (figs, num))
    hints_label, _ = heading_of(os.path.join(os.path.dirname(path), "hints.md"))
    hints = ("\nStuck? `make hint LESSON=%s` shows the hints one at a time; all of them: @subpage %s \"Hints for lesson %s\".\n"
             % (num, hints_label, num)) if hints_label else ""
    return text.rstrip("\n") + "\n" + hints + "\n" + lesson_nav(path, "bottom")


# ---------------------------------------------------------------------------------------------

def main(path):
    path = os.path.abspath(path)
    here = os.path.dirname(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()

    parent = os.path.relpath(path, ROOT) in PARENTS

    def sub(m):
        bang, text_, target = m.group(1), m.group(2), m.group(3)
        if bang:
            return m.group(0)
        target_path = os.path.normpath(os.path.join(here, target.split("#")[0]))
        rel = os.path.relpath(target_path, ROOT)
        if target_path.endswith(".md"):
            label, title = heading_of(target_path)
            if label:
                shown = text_.strip("`")
                if shown in (target, rel, os.path.basename(target)) or shown.endswith(".md"):
                    text_ = title
                if parent:
                    return '@subpage %s "%s"' % (label, text_.replace('"', "'"))
                return "[%s](@ref %s)" % (text_, label)
            problem(path, "link to %s: %s" % (target, "no such file" if not os.path.exists(target_path)
                                              else "its first heading has no {#label}"))
        elif target_path.endswith(SOURCE_EXT):
            link = source_link(text_, rel)
            if link:
                return link
            problem(path, "link to %s: not a file Doxygen reads" % target)
        elif os.path.isdir(target_path) and os.path.isfile(os.path.join(target_path, "README.md")):
            label, _ = heading_of(os.path.join(target_path, "README.md"))
            if label:
                return "[%s](@ref %s)" % (text_, label)
        return "%s (`%s`)" % (text_, rel)

    text = LINK.sub(sub, text)
    rel = os.path.relpath(path, ROOT)
    if re.fullmatch(r"lessons/[0-9][0-9]-[^/]+/README\.md", rel):
        text = lesson_page(path, text)
    if "<!-- docs:lessons -->" in text:
        text = text.replace("<!-- docs:lessons -->", lesson_list())
    if "<!-- docs:plots -->" in text:
        figs = plot_figures("overview-") + "\n\n" + plot_figures("lesson-")
        text = text.replace("<!-- docs:plots -->", figs.strip() or
                            "*(No plots: gnuplot was not installed when these pages were built; "
                            "`apt-get install gnuplot-nox`, then `make docs`.)*")
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1])
