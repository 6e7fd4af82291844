"""Checks an et-compile --memory-plan-svg picture: check_plan_svg.py SVG.
It must be well-formed SVG with one frame per method and one box per arena
value, each inside its frame; two values alive at once (beyond the
instruction where one hands its bytes to the next) must not share bytes.
Prints each method's title and the number of boxes."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(NS + "text") if t.get("font-weight") == "bold"]
boxes = []
for rect in root.iter(NS + "rect"):
    title = rect.find(NS + "title")
    if title is None:
        continue
    match = re.search(r"offset (\d+), (\d+) bytes, instructions (\d+)\.\.(\d+)", title.text)
    assert match, title.text
    offset, size, first, last = map(int, match.groups())
    assert first <= last and size > 0, title.text
    boxes.append((offset, size, first, last, title.text.splitlines()[0]))
for i, a in enumerate(boxes):
    for b in boxes[i + 1:]:
        live_together = a[2] < b[3] and b[2] < a[3]
        share_bytes = a[0] < b[0] + b[1] and b[0] < a[0] + a[1]
        assert not (live_together and share_bytes), (a, b)
for title in titles:
    print(title)
print(len(boxes), "boxes, no two live values share bytes")
