#!/usr/bin/env python3
"""docs_check_links.py HTML_DIR -- every internal link and image of the built docs leads somewhere.

Reads every .html file under HTML_DIR (no browser needed) and checks each href / src / data that
stays inside the site: the file exists, and an anchor (#name) exists in it; the same for every
"page.html#anchor" in the navigation tree's JavaScript data. Prints one line per
problem (at most 20) and exits 1 if there is any; `make docs` runs it after Doxygen.
"""
import html.parser
import os
import re
import sys
import urllib.parse

JS_PAGE = re.compile(r'"([A-Za-z0-9_.-]+\.html(?:#[A-Za-z0-9_-]+)?)"')
ATTRS = {"a": "href", "img": "src", "link": "href", "script": "src", "object": "data", "iframe": "src"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.anchors = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.anchors.add(a[key])
        want = ATTRS.get(tag)
        if want and a.get(want):
            self.links.append((tag, a[want]))


_pages = {}


def parse(path):
    if path not in _pages:
        p = Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        _pages[path] = p
    return _pages[path]


def check(root):
    root = os.path.abspath(root)
    problems, pages = [], 0
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".html"):
                continue
            pages += 1
            page = os.path.join(dirpath, name)
            for tag, url in parse(page).links:
                parts = urllib.parse.urlsplit(url)
                if parts.scheme or parts.netloc or url.startswith("javascript:"):
                    continue
                target = os.path.normpath(os.path.join(dirpath, urllib.parse.unquote(parts.path))) if parts.path else page
                where = os.path.relpath(page, root)
                if not target.startswith(root + os.sep) or not os.path.isfile(target):
                    problems.append("%s: <%s> %s: no such file" % (where, tag, url))
                elif parts.fragment and target.endswith(".html") and parts.fragment not in parse(target).anchors:
                    problems.append("%s: <%s> %s: no anchor '%s' in that page" % (where, tag, url, parts.fragment))
    # The navigation tree's entries live in JavaScript data files (navtreedata.js, navtreeindex*.js, ...).
    for dirpath, _, names in os.walk(root):
        for name in sorted(n for n in names if n.endswith(".js")):
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for url in sorted(set(JS_PAGE.findall(text))):
                path, _, frag = url.partition("#")
                target = os.path.join(dirpath, path)
                where = os.path.relpath(os.path.join(dirpath, name), root)
                if not os.path.isfile(target):
                    problems.append("%s: %s: no such file" % (where, url))
                elif frag and frag not in parse(target).anchors:
                    problems.append("%s: %s: no anchor '%s' in that page" % (where, url, frag))
    return pages, problems


def main(root):
    if not os.path.isfile(os.path.join(root, "index.html")):
        print("docs: %s/index.html is missing: run 'make docs' first" % root)
        return 1
    pages, problems = check(root)
    for p in problems[:20]:
        print("  broken link: " + p)
    if problems:
        print("docs: %d broken internal links in %s (%s)" % (len(problems), root,
              "first 20 above" if len(problems) > 20 else "above"))
        return 1
    print("docs: %d pages, every internal link and image leads to a file and anchor that exist" % pages)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: docs_check_links.py HTML_DIR")
    sys.exit(main(sys.argv[1]))
