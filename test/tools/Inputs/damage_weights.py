"""Truncates and flips bytes of an external weights file, runs et-run on the
program with each variant, and counts what happened: every variant must be
rejected with an error (or, when a flip lands in padding, run), never crash.
Usage: damage_weights.py PROGRAM WEIGHTS OUT_DIR"""
import os
import random
import subprocess
import sys

program, weights, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
data = open(weights, "rb").read()
rng = random.Random(7)
variants = [data[:cut] for cut in sorted({0, 1, 31, 32, 33, 64, 100, 200, len(data) // 2,
                                           len(data) - 64, len(data) - 1})]
for _ in range(150):
    damaged = bytearray(data)
    # Mostly the header and index (the first 512 bytes), some in the data.
    where = rng.randrange(min(len(data), 512)) if rng.random() < 0.8 else rng.randrange(len(data))
    damaged[where] ^= 1 << rng.randrange(8)
    variants.append(bytes(damaged))
rejected = ran = crashed = 0
for index, variant in enumerate(variants):
    path = os.path.join(out, f"v{index}.etw")
    with open(path, "wb") as file:
        file.write(variant)
    run = subprocess.run(["et-run", program, "--weights", path],
                         capture_output=True, text=True)
    if run.returncode == 0:
        ran += 1
    elif run.returncode == 1 and "cannot load program" in run.stderr:
        rejected += 1
    else:
        crashed += 1
        print(f"CRASH v{index}: status {run.returncode}: {run.stderr[-300:]}")
print(f"damaged weights files: {rejected} rejected, {crashed} crashed ({ran} ran)")
