#!/usr/bin/env python3
"""Runs et-run on damaged copies of a valid program file.

    corrupt.py PROGRAM.etp WORKDIR

Writes truncations at many lengths and single-byte flips across the header
and flatbuffer (the segments hold weights: a flipped weight is a valid
program), runs `et-run` on each and fails if any run dies from a signal
instead of exiting 0 or 1. Prints one summary line.
"""
import os
import random
import struct
import subprocess
import sys


def run(path):
    result = subprocess.run(["et-run", path], capture_output=True, timeout=60)
    # Damaged names may not be valid UTF-8.
    return result.returncode, result.stderr.decode("utf-8", "replace")


def main():
    program, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    data = open(program, "rb").read()
    _, _, _, fb_offset, fb_size = struct.unpack_from("<8sII QQ".replace(" ", ""), data, 0)
    metadata_end = fb_offset + fb_size
    rng = random.Random(7)
    variants = []
    for length in sorted({0, 1, 16, 31, 32, 40, metadata_end // 2, metadata_end - 1,
                          metadata_end, len(data) // 2, len(data) - 1}):
        variants.append(("truncate", length, data[:length]))
    positions = list(range(0, 32)) + [rng.randrange(32, metadata_end) for _ in range(300)]
    for position in positions:
        flipped = bytearray(data)
        flipped[position] ^= 1 << rng.randrange(8)
        variants.append(("flip", position, bytes(flipped)))
    crashed, rejected, ran = [], 0, 0
    path = os.path.join(workdir, "variant.etp")
    for kind, where, blob in variants:
        open(path, "wb").write(blob)
        code, stderr = run(path)
        if code < 0 or code not in (0, 1):
            crashed.append(f"{kind}@{where}: exit {code}")
        elif code == 1:
            if "cannot load" not in stderr and "execution failed" not in stderr:
                crashed.append(f"{kind}@{where}: exit 1 without a load error")
            rejected += 1
        else:
            ran += 1
    for line in crashed:
        print("CRASH", line)
    print(f"{len(variants)} damaged programs: {rejected} rejected, {ran} ran, "
          f"{len(crashed)} crashed")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
