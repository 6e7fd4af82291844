"""Damages a program at random (fixed seed) and runs et-run on each copy
with the given arguments: every run must end with status 0 or 1 and say
something, never crash. damage_program.py ET_RUN PROGRAM WORK_DIR COUNT
[--segments] ARGS... (--segments: the bytes after the flatbuffer, where
constants and named data such as bundled cases are; else the flatbuffer's
tables)."""
import os
import random
import struct
import subprocess
import sys

et_run, program, work, count, args = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    sys.argv[5:]
segments = bool(args) and args[0] == "--segments"
args = args[1:] if segments else args
data = open(program, "rb").read()
flatbuffer_size = struct.unpack_from("<Q", data, 24)[0]
low, high = (32 + flatbuffer_size, len(data)) if segments else (32, 32 + flatbuffer_size)
rng = random.Random(11)
statuses = {}
for attempt in range(count):
    damaged = bytearray(data)
    for _ in range(3):
        damaged[rng.randrange(low, high)] ^= rng.randrange(1, 256)
    path = os.path.join(work, "damaged.etp")
    open(path, "wb").write(damaged)
    run = subprocess.run([et_run, path] + [a.replace("@N", str(attempt)) for a in args],
                         capture_output=True)
    assert run.returncode in (0, 1), (attempt, run.returncode, run.stderr[-400:])
    assert (run.stdout + run.stderr).strip(), attempt
    statuses[run.returncode] = statuses.get(run.returncode, 0) + 1
print("damaged programs:", count, "runs, no crash")
