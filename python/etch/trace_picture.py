"""Draws an et-run --trace file as an SVG timeline, for documents and CI
logs where Perfetto is not at hand: one row per track (the executing
thread, a delegate's own steps), each complete event a box over its time,
named where it is wide enough. No dependencies beyond the standard library.

    python3 python/etch/trace_picture.py trace.json trace.svg [--execute K]

--execute K draws only execute #K (default: the last)."""
import argparse
import html
import json
import zlib

WIDTH, LEFT, ROW, TOP = 1040, 240, 34, 30


def colour(name):
    return f"hsl({zlib.crc32(name.split(' ')[-1].encode()) % 360},55%,68%)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("svg")
    parser.add_argument("--execute", type=int, default=-1)
    args = parser.parse_args()
    events = json.load(open(args.trace))["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    executes = [e for e in events if e.get("cat") == "method"]
    if not executes:
        raise SystemExit(f"trace_picture: {args.trace} has no execute events")
    window = executes[args.execute]
    start, span = window["ts"], max(window["dur"], 1e-3)
    inside = [e for e in events if e.get("ph") == "X" and e is not window and
              start <= e["ts"] <= start + span]
    rows = sorted(tracks)
    scale = (WIDTH - LEFT - 10) / span
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
           f'height="{TOP + ROW * len(rows) + 30}" font-family="sans-serif" font-size="11">',
           f'<text x="{LEFT}" y="18" font-weight="bold">{html.escape(window["name"])}: '
           f'{window["dur"]:.1f} us</text>']
    for row, tid in enumerate(rows):
        y = TOP + row * ROW
        out.append(f'<text x="{LEFT - 8}" y="{y + ROW / 2 + 4}" text-anchor="end">'
                   f'{html.escape(tracks[tid])}</text>')
        for e in (e for e in inside if e["tid"] == tid):
            x, w = LEFT + (e["ts"] - start) * scale, max(e["dur"] * scale, 0.5)
            label = html.escape(e["name"])
            out.append(f'<rect x="{x:.2f}" y="{y + 3}" width="{w:.2f}" height="{ROW - 6}" '
                       f'fill="{colour(e["name"])}" stroke="#333" stroke-width="0.3">'
                       f'<title>{label}: {e["dur"]:.1f} us</title></rect>')
            if w > 7 * len(e["name"]):
                out.append(f'<text x="{x + 3:.2f}" y="{y + ROW / 2 + 4}">{label}</text>')
    axis = TOP + ROW * len(rows) + 16
    for tick in range(5):
        out.append(f'<text x="{LEFT + tick * (WIDTH - LEFT - 10) / 4:.1f}" y="{axis}" '
                   f'text-anchor="middle">{span * tick / 4:.0f} us</text>')
    out.append("</svg>")
    with open(args.svg, "w") as file:
        file.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
