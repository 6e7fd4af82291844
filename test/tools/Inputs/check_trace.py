"""Checks an et-run --trace file: check_trace.py TRACE ITERATIONS
[--steps] [--chunks]. It must be Chrome trace-event JSON whose complete
events nest: per iteration one 'execute #K' event holding that iteration's
instruction events, in order, without overlap; every thread pool chunk
inside the instruction it names, on a named track (with --chunks there must
be some, on two threads or more); with --steps also delegate steps on their
own track, inside a delegate call. Prints the instruction names of the
first iteration and a summary."""
import json
import sys

trace = json.load(open(sys.argv[1]))
iterations = int(sys.argv[2])
events = trace["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
complete = [e for e in events if e["ph"] == "X"]
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in complete)
executes = [e for e in complete if e["cat"] == "method"]
assert [e["name"] for e in executes] == [f"execute #{k}" for k in range(iterations)], executes
instructions = [e for e in complete if e["cat"] in ("kernel", "delegate")]
per_iteration = len(instructions) // iterations
assert per_iteration * iterations == len(instructions)
for k, execute in enumerate(executes):
    mine = instructions[k * per_iteration:(k + 1) * per_iteration]
    assert [e["args"]["instruction"] for e in mine] == list(range(per_iteration))
    end = execute["ts"]
    for e in mine:
        assert e["ts"] >= end - 1e-3 and e["tid"] == execute["tid"], e
        end = e["ts"] + e["dur"]
    assert end <= execute["ts"] + execute["dur"] + 1e-3
steps = [e for e in complete if e["cat"] == "delegate step"]
if "--steps" in sys.argv:
    assert steps and all(names[s["tid"]].startswith("delegate steps") for s in steps), names
    calls = [e for e in instructions if e["cat"] == "delegate"]
    for step in steps:
        assert any(c["ts"] - 1e-3 <= step["ts"] <= c["ts"] + c["dur"] + 1e-3 for c in calls), step
chunks = [e for e in complete if e["cat"] == "chunk"]
for chunk in chunks:
    assert chunk["tid"] in names, chunk
    assert any(i["args"]["instruction"] == chunk["args"]["instruction"] and
               i["ts"] - 1e-3 <= chunk["ts"] and
               chunk["ts"] + chunk["dur"] <= i["ts"] + i["dur"] + 1e-3
               for i in instructions), chunk
if "--chunks" in sys.argv:
    assert len({c["tid"] for c in chunks}) >= 2, "no chunks on two threads"
    print("chunks on", len({c["tid"] for c in chunks}), "threads")
for e in instructions[:per_iteration]:
    print(e["args"]["instruction"], e["name"], e["args"]["nodes"])
print(f"trace: {len(executes)} executes, {per_iteration} instructions each, "
      f"{len(steps)} delegate steps")
