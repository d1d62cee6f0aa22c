#!/usr/bin/env python3
"""timeline_svg.py -- draws Chrome-trace timelines (the demo's timeline-*.json) as one SVG, one
panel per file, stacked, all on one time axis: one row per stream (and one for the host),
copies in blue, kernels green, copies out orange, the host waiting grey.

    python3 lessons/11-streams/timeline_svg.py -o out.svg a.json [b.json ...]
"""
import argparse
import html
import json
import sys

COLOURS = {"kernel": "#4caf50", "copy in (host to device)": "#1e88e5", "copy out (device to host)": "#fb8c00",
           "host waits": "#9e9e9e", "memset": "#8e24aa", "device copy": "#8e24aa", "host function": "#6d4c41"}
WIDTH, LEFT, ROW, GAP = 1000, 190, 22, 6


def load(path):
    with open(path) as f:
        d = json.load(f)
    names, ops = {}, []
    for e in d.get("traceEvents", []):
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e.get("ph") == "X":
            ops.append(e)
    title = d.get("otherData", {}).get("title", path)
    return title, names, ops


def nice_step(span):
    for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000):
        if span / s <= 10:
            return s
    return 10 ** len(str(int(span)))


def panel(out, y, path, common_span):
    title, names, ops = load(path)
    tracks = sorted({e["tid"] for e in ops})
    t0 = min((e["ts"] for e in ops), default=0)
    t1 = max((e["ts"] + e["dur"] for e in ops), default=1)
    own = max(t1 - t0, 1e-3)
    span = max(common_span, own)
    scale = (WIDTH - LEFT - 20) / span
    out.append(f'<text x="10" y="{y + 14}" font-weight="bold">{html.escape(title)} -- {html.escape(path)}</text>')
    y += 24
    for r, tid in enumerate(tracks):
        ty = y + r * ROW
        out.append(f'<text x="10" y="{ty + 15}">{html.escape(names.get(tid, str(tid)))}</text>')
        out.append(f'<rect x="{LEFT}" y="{ty}" width="{WIDTH - LEFT - 20}" height="{ROW - 4}" fill="#f5f5f5"/>')
        for e in ops:
            if e["tid"] != tid:
                continue
            x = LEFT + (e["ts"] - t0) * scale
            w = max(e["dur"] * scale, 0.5)
            tip = f'{e["name"]}: {e["ts"] - t0:.1f} .. {e["ts"] - t0 + e["dur"]:.1f} us'
            out.append(f'<rect x="{x:.2f}" y="{ty}" width="{w:.2f}" height="{ROW - 4}" fill="{COLOURS.get(e.get("cat"), "#607d8b")}" '
                       f'stroke="white" stroke-width="0.3"><title>{html.escape(tip)}</title></rect>')
    y += len(tracks) * ROW
    step = nice_step(span)
    t = 0.0
    while t <= span + 1e-9:
        x = LEFT + t * scale
        out.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="black"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle" font-size="10">{t:g}</text>')
        t += step
    out.append(f'<text x="{WIDTH - 20}" y="{y + 28}" text-anchor="end" font-size="10">microseconds; total {own:.0f} us</text>')
    return y + 40


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    body, y, span = [], 10, 0.0
    try:
        for p in a.traces:
            ops = load(p)[2]
            if ops:
                span = max(span, max(e["ts"] + e["dur"] for e in ops) - min(e["ts"] for e in ops))
    except (OSError, ValueError, KeyError) as e:
        print(f"timeline_svg: {e}", file=sys.stderr)
        return 1
    for p in a.traces:
        try:
            y = panel(body, y, p, span)
        except (OSError, ValueError, KeyError) as e:
            print(f"timeline_svg: {p}: {e}", file=sys.stderr)
            return 1
    legend = " ".join(f'<rect x="{LEFT + i * 150}" y="{y}" width="12" height="12" fill="{c}"/>'
                      f'<text x="{LEFT + i * 150 + 16}" y="{y + 11}" font-size="11">{html.escape(k.split(" (")[0])}</text>'
                      for i, (k, c) in enumerate(list(COLOURS.items())[:5]))
    y += 24
    with open(a.output, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" font-family="sans-serif" font-size="12">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n')
        f.write("\n".join(body) + "\n" + legend + "\n</svg>\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
