#!/usr/bin/env python3
"""doxy_md_filter.py FILE -- Doxygen input filter for Markdown pages.

The READMEs link to each other with relative paths, so they read well on a forge and in an
editor. Doxygen cannot follow `../` paths; this filter rewrites each relative link to a Markdown
file into `@ref label` (the `{#label}` on that file's first heading), and a relative link to any
other file into the path in code font. The file on disk is not changed.
"""
import os
import re
import sys

LINK = re.compile(r"\[([^\]]+)\]\(((?!https?:|#|@ref)[^)\s]+)\)")
LABEL = re.compile(r"\{#([A-Za-z0-9_]+)\}")


def label_of(path):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    m = LABEL.search(line)
                    return m.group(1) if m else None
    except OSError:
        return None
    return None


def main(path):
    here = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        text = f.read()

    def sub(m):
        text_, target = m.group(1), m.group(2)
        target_path = os.path.normpath(os.path.join(here, target.split("#")[0]))
        if target_path.endswith(".md"):
            label = label_of(target_path)
            if label:
                return "[%s](@ref %s)" % (text_, label)
        return "%s (`%s`)" % (text_, os.path.relpath(target_path, os.getcwd()))

    sys.stdout.write(LINK.sub(sub, text))


if __name__ == "__main__":
    main(sys.argv[1])
