"""Checks an et-run --dump-intermediates folder against its program's
outputs: check_dump.py DUMP_DIR OUTPUT_DIR [--nodes | --no-nodes]

Every index entry's file exists with the dtype and shape the entry gives,
instructions appear in order, the last instruction's output equals et-run's
output0.npy, and with --nodes every instruction names its producer nodes
(--no-nodes: none, a program without debug handles). Prints one line per
instruction: index, call, ops, nodes, the first source file's base name and
line, and the
producer node and result of the instruction's output."""
import json
import os
import sys

import numpy as np

dump, outputs, mode = sys.argv[1], sys.argv[2], sys.argv[3]
entries = json.load(open(os.path.join(dump, "index.json")))
instructions = [e for e in entries if e["kind"] == "instruction"]
assert [e["kind"] for e in entries[:1]] == ["input"], entries[:1]
assert [e["instruction"] for e in instructions] == sorted(e["instruction"] for e in instructions)
for entry in entries:
    array = np.load(os.path.join(dump, entry["file"]))
    assert str(array.dtype) == entry["dtype"] and list(array.shape) == entry["shape"], entry
for entry in instructions:
    named = all(entry["nodes"]) and len(entry["nodes"]) == len(entry["ops"]) > 0
    assert named if mode == "--nodes" else not entry["nodes"], entry
    source = entry["sources"][0] if entry["sources"] else ""
    print(entry["instruction"], entry["call"], " ".join(entry["ops"]),
          " ".join(entry["nodes"]) or "-",
          os.path.basename(source) if source else "-",
          "->", (entry["output_node"] or "-") + "#" + str(entry["output_result"]))
last = np.load(os.path.join(dump, instructions[-1]["file"]))
expected = np.load(os.path.join(outputs, "output0.npy"))
assert np.array_equal(last, expected), "the last value is not the output"
print("dump matches the outputs")
