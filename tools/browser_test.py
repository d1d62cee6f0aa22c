#!/usr/bin/env python3
"""browser_test.py HTML_DIR SHOT_DIR -- open the built docs in headless Chromium, as a reader would.

Drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: no Python
packages, no network port). Starting at index.html it opens every page made from Markdown that
the pages' text leads to (the lessons, hints, exercises, results, the simulator), and checks:
- every internal link on those pages (text, menus, tree) opens a file that exists (the annotated
  source pages among them are checked on disk), and no link shows a raw .md path
  (a link text ending in .md, or the "text (`path.md`)" that an unresolved link turns into);
- every image has loaded (natural width > 0);
- the lessons, taken from the lessons/NN-topic/ folders, appear on the main page in order, and each
  lesson page links to the previous and the next one and to its student file, solution, CPU
  reference and grader as annotated source pages;
- the main page's side navigation (Doxygen's tree view, built by its script after the page has
  loaded) lists every lesson folder's page, shown and in order, right under the main page;
- the theme (doxygen-awesome-css) is in use, the page background turns dark when the reader's
  system asks for dark, and kernel comments keep a readable contrast (>= 4.5:1) in both;
- at phone width (390 px) the main page, a lesson, the results and the lesson's annotated kernel
  source do not scroll sideways, and no line of an ASCII diagram or code listing wraps.
Screenshots of the main page, a lesson page and the results page (desktop, phone, dark) go to
SHOT_DIR. Without Chromium it prints one line and exits 0.
"""
import base64
import glob
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

PHONE, DESKTOP = 390, 1280
failures = []


def fail(msg):
    failures.append(msg)


class Chromium:
    """A headless Chromium with one tab, spoken to over --remote-debugging-pipe."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="browser-test-")
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():  # in the child: Chromium reads commands on fd 3 and writes answers on fd 4
            r, w = os.dup(to_r), os.dup(from_w)
            os.dup2(r, 3, inheritable=True)
            os.dup2(w, 4, inheritable=True)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.next_id, self.events = b"", 0, []
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.call("Page.enable", session=True)
            self.call("Runtime.enable", session=True)
        except Exception:
            self.close()
            raise

    def _read(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer within %.0f s" % timeout)
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium exited")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=False, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=30):
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == name:
                    del self.events[: i + 1]
                    return m
            self.events.clear()
            self.events.append(self._read(timeout))

    def open(self, url):
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      session=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % r["exceptionDetails"].get("text"))
        return r["result"].get("value")

    def viewport(self, width, height=900, dark=False):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=True)
        self.call("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]}, session=True)

    def screenshot(self, path, width, dark=False):
        self.viewport(width, dark=dark)
        height = min(int(self.js(
            "Math.max(document.documentElement.scrollHeight, ...[...document.querySelectorAll('#doc-content')]"
            ".map(e => e.scrollHeight + e.getBoundingClientRect().top))")), 6000)
        self.viewport(width, height, dark)
        time.sleep(0.2)
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        self.viewport(DESKTOP)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# What one page looks like to a reader: its links, images, raw .md paths, lesson navigation.
PAGE_JS = r"""
(async () => {
  const content = document.querySelector('div.contents') || document.body;
  // Wait for images still loading (scripts may add or replace some after the load event).
  for (let round = 0; round < 3; round++) {
    const pending = [...document.querySelectorAll('img')].filter(i => !i.complete);
    if (!pending.length) break;
    await Promise.all(pending.map(i => new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); setTimeout(r, 3000); })));
  }
  const inner = [...content.querySelectorAll('a[href]')].map(a => a.href);
  const links = [...document.querySelectorAll('a[href]')].map(a => ({href: a.href, text: a.textContent.trim()}));
  const images = [...document.querySelectorAll('img')].map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0}));
  const raw = [];
  for (const a of content.querySelectorAll('a[href]')) {
    const t = a.textContent.trim();
    if (/\.md$/i.test(t) || /\.md(#|$)/i.test(a.getAttribute('href'))) raw.push(t || a.getAttribute('href'));
  }
  const m = content.innerText.match(/\(\s*[\w.\/-]+\.md\s*\)/g);
  if (m) raw.push(...m);
  const nav = k => { const a = document.querySelector('.lesson-nav-top .nav-' + k + ' a'); return a ? a.href : null; };
  return {
    title: document.title, links, inner, images, raw,
    sheets: [...document.styleSheets].map(s => s.href || ''),
    prev: nav('prev'), next: nav('next'),
    files: [...document.querySelectorAll('.lesson-files a')].map(a => ({href: a.href, text: a.textContent.trim()})),
  };
})()
"""

# Colours: the page background, and the contrast of code comments against what is behind them.
COLOUR_JS = r"""
(() => {
  const rgb = s => { const m = s.match(/[\d.]+/g).map(Number); return m.length > 3 && m[3] === 0 ? null : m.slice(0, 3); };
  const bg = el => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c) return c; } return [255, 255, 255]; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                     return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const comments = [...document.querySelectorAll('span.comment')].slice(0, 50);
  const worst = comments.length ? Math.min(...comments.map(c => ratio(rgb(getComputedStyle(c).color), bg(c)))) : null;
  return {page: lum(bg(document.querySelector('div.contents') || document.body)), comments: comments.length, worst};
})()
"""

# The side navigation: the entries right under the main page, once navtree.js has built them (it
# does so after the load event, and loads its index files one by one: wait until nothing changes).
NAV_JS = r"""
(async () => {
  const entries = () => [...document.querySelectorAll('#nav-tree-contents > ul > li > ul > li > div.item .label a[href]')];
  let last = -1, same = 0;
  for (let i = 0; i < 100 && same < 4; i++) {
    await new Promise(r => setTimeout(r, 50));
    const n = entries().length;
    same = n && n === last ? same + 1 : 0;
    last = n;
  }
  return entries().map(a => ({href: a.href, text: a.textContent.trim(), shown: a.getClientRects().length > 0}));
})()
"""

# At the current width: does the page scroll sideways, and does any code or diagram line wrap?
LAYOUT_JS = r"""
(() => {
  const wide = document.documentElement.scrollWidth - window.innerWidth;
  const wrapped = [];
  for (const frag of document.querySelectorAll('div.fragment')) {
    for (const l of frag.querySelectorAll('div.line')) {
      const st = getComputedStyle(l);
      const one = parseFloat(st.lineHeight) || 1.6 * parseFloat(st.fontSize);  // the height of one line
      if (l.getBoundingClientRect().height > 1.5 * one) wrapped.push(l.textContent.slice(0, 60));
    }
  }
  return {wide, wrapped};
})()
"""


def local_path(url, root):
    """The file an internal file:// URL points at (without #anchor), or None for an external URL."""
    p = urllib.parse.urlsplit(url)
    if p.scheme != "file":
        return None
    path = urllib.parse.unquote(p.path)
    return path if os.path.abspath(path).startswith(root + os.sep) or path == root else path


def markdown_page(path):
    """Doxygen's page for a Markdown file (the browser opens these; other pages are checked on disk)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return '<!-- PageDoc -->' in f.read()


def source_page(path):
    """An annotated source listing: Doxygen's source browser, with numbered, linkable lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return '<div class="fragment">' in text and 'class="lineno"' in text and path.endswith("_source.html")


def lesson_pages():
    """[(folder, page file)] from lessons/NN-topic/README.md, in order."""
    out = []
    for d in sorted(glob.glob("lessons/[0-9][0-9]-*")):
        readme = os.path.join(d, "README.md")
        if not os.path.isdir(d):
            continue
        if not os.path.isfile(readme):
            fail("%s: a lesson folder without README.md: it has no page" % d)
            continue
        with open(readme, encoding="utf-8") as f:
            m = re.search(r"\{#([A-Za-z0-9_]+)\}", f.readline())
        if not m:
            fail("%s: its first heading has no {#label}" % readme)
            continue
        out.append((os.path.basename(d), m.group(1) + ".html"))
    return out


def main(root, shots):
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    if not exe:
        print("chromium not installed: apt-get install chromium; skipping the browser test")
        return 0
    root = os.path.abspath(root)
    index = os.path.join(root, "index.html")
    if not os.path.isfile(index):
        print("browser test: %s is missing: run 'make docs' first" % index)
        return 1
    os.makedirs(shots, exist_ok=True)
    t0 = time.time()
    b = Chromium(exe)
    try:
        b.viewport(DESKTOP)
        seen, queue, info = set(), [index], {}
        while queue:
            page = queue.pop(0)
            if page in seen:
                continue
            seen.add(page)
            b.open("file://" + page)
            p = b.js(PAGE_JS)
            info[page] = p
            name = os.path.relpath(page, root)
            for r in p["raw"]:
                fail("%s: shows a raw .md path: %s" % (name, r))
            for img in p["images"]:
                if not img["ok"]:
                    fail("%s: image did not load: %s" % (name, img["src"]))
            for link in p["links"]:
                target = local_path(link["href"], root)
                if target is None:
                    continue
                if not os.path.isfile(target):
                    fail("%s: link '%s' -> %s: no such page" % (name, link["text"][:40], os.path.relpath(target, root)))
                elif (target.endswith(".html") and target not in seen and link["href"] in p["inner"]
                      and markdown_page(target)):
                    queue.append(target)  # every page made from Markdown that the text links to
        # The lessons, in order, on the main page and from one lesson to the next.
        lessons = lesson_pages()
        main_links = [os.path.basename(local_path(l["href"], root) or "") for l in info[index]["links"]]
        order = [main_links.index(pg) if pg in main_links else -1 for _, pg in lessons]
        for (folder, pg), at in zip(lessons, order):
            if at < 0:
                fail("index.html: no link to lesson %s (%s)" % (folder, pg))
        if -1 not in order and order != sorted(order):
            fail("index.html: the lessons are not listed in order: %s" % [f for f, _ in lessons])
        for i, (folder, pg) in enumerate(lessons):
            p = info.get(os.path.join(root, pg))
            if not p:
                fail("lesson %s: page %s was not reached from the main page" % (folder, pg))
                continue
            want_prev = lessons[i - 1][1] if i > 0 else None
            want_next = lessons[i + 1][1] if i + 1 < len(lessons) else None
            got_prev = os.path.basename(local_path(p["prev"], root)) if p["prev"] else None
            got_next = os.path.basename(local_path(p["next"], root)) if p["next"] else None
            if (got_prev, got_next) != (want_prev, want_next):
                fail("%s: previous/next lesson links go to %s / %s, expected %s / %s" % (pg, got_prev, got_next, want_prev, want_next))
            roles = " ".join(l["text"] for l in p["files"])
            sources = [local_path(l["href"], root) for l in p["files"]]
            for src in sources:
                if src and not source_page(src):
                    fail("%s: %s is not an annotated source page" % (pg, os.path.relpath(src, root)))
            folder_files = os.listdir(os.path.join("lessons", folder))
            wanted = [f for f in folder_files if f.endswith(".cu") or f.endswith("_cpu.c")]
            for f in wanted:
                if f not in roles:
                    fail("%s: no link to its file %s" % (pg, f))
            if not any(re.match(r"test_\d\d_.*\.c$", l["text"]) for l in p["files"]):
                fail("%s: no link to its grader (tests/test_%s_*.c)" % (pg, folder[:2]))
        # The main page's side navigation: every lesson, shown, in order.
        b.viewport(DESKTOP)
        b.open("file://" + index)
        nav = b.js(NAV_JS)
        in_nav = [os.path.basename(local_path(e["href"], root) or "") for e in nav]
        if not nav:
            fail("index.html: the side navigation (tree view) is empty: GENERATE_TREEVIEW in docs/Doxyfile, or navtree.js failed")
        else:
            absent = [folder for folder, pg in lessons if pg not in in_nav]
            if absent:
                fail("index.html: the side navigation does not list lesson(s) %s; under the main page it has: %s"
                     % (", ".join(absent), " | ".join(e["text"][:14] for e in nav)))
            for folder, pg in lessons:
                if pg in in_nav and not nav[in_nav.index(pg)]["shown"]:
                    fail("index.html: the side navigation lists lesson %s but does not show it" % folder)
            at = [in_nav.index(pg) for _, pg in lessons if pg in in_nav]
            if at != sorted(at):
                fail("index.html: the side navigation lists the lessons out of order: %s" % [nav[i]["text"][:2] for i in at])
        # The theme, light and dark, and readable comments in a kernel's source.
        lesson_page = os.path.join(root, lessons[min(2, len(lessons) - 1)][1]) if lessons else index
        results = os.path.join(root, "results.html")
        if not any("doxygen-awesome" in s for s in info[index]["sheets"]):
            fail("index.html: the theme is not loaded (apt-get install doxygen-awesome-css, then make docs)")
        student = next((local_path(l["href"], root) for l in info.get(lesson_page, {}).get("files", [])), None)
        for dark in (False, True):
            mode = "dark" if dark else "light"
            b.viewport(DESKTOP, dark=dark)
            b.open("file://" + index)
            c = b.js(COLOUR_JS)
            if dark != (c["page"] < 0.2):
                fail("index.html: in %s mode the page background has luminance %.2f" % (mode, c["page"]))
            if student:
                b.open("file://" + student)
                c = b.js(COLOUR_JS)
                if not c["comments"]:
                    fail("%s: no comments in the source listing" % os.path.relpath(student, root))
                elif c["worst"] < 4.5:
                    fail("%s: a comment has contrast %.1f:1 in %s mode (want >= 4.5)" % (os.path.relpath(student, root), c["worst"], mode))
        # Phone width: no sideways scrolling of the page, no wrapped diagram lines.
        for page in (index, lesson_page, results) + ((student,) if student else ()):
            b.viewport(PHONE)
            b.open("file://" + page)
            lay = b.js(LAYOUT_JS)
            if lay["wide"] > 1:
                fail("%s: at %d px the page is %d px too wide" % (os.path.relpath(page, root), PHONE, lay["wide"]))
            for line in lay["wrapped"][:3]:
                fail("%s: at %d px a diagram/code line wraps: %r" % (os.path.relpath(page, root), PHONE, line))
        # Screenshots for a person to look at.
        for page, shot in ((index, "main"), (lesson_page, "lesson"), (results, "results")):
            b.viewport(DESKTOP)
            b.open("file://" + page)
            b.screenshot(os.path.join(shots, shot + ".png"), DESKTOP)
        b.open("file://" + lesson_page)
        b.screenshot(os.path.join(shots, "lesson-phone.png"), PHONE)
        b.open("file://" + index)
        b.screenshot(os.path.join(shots, "main-dark.png"), DESKTOP, dark=True)
    finally:
        b.close()
    for f in failures[:30]:
        print("  FAIL " + f)
    if failures:
        print("browser test: %d problems (above); screenshots in %s" % (len(failures), shots))
        return 1
    print("browser test: %d pages opened in Chromium in %.1f s, every link and image fine, %d lessons in order (main page and its "
          "side navigation); screenshots in %s"
          % (len(info), time.time() - t0, len(lesson_pages()), shots))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: browser_test.py HTML_DIR SCREENSHOT_DIR")
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except (OSError, RuntimeError, TimeoutError) as e:  # Chromium did not start, crashed or hung
        sys.exit("browser test: Chromium failed (%s); run 'chromium --headless --no-sandbox about:blank' to see why" % e)
