#!/usr/bin/env python3
"""Runs et-compile on damaged copies of model files; fails on any crash.

    damage_models.py COUNT FILE...

.pt2 files are damaged inside their zip entries (the JSON, pickles and
weights; flips in the zip framing would only test libzip's CRC check),
other files by single-bit flips. Every run must exit 0 or 1 (imported, or
rejected with an error), never die from a signal.
"""
import io
import random
import subprocess
import sys
import zipfile


def variants(path, count, rng):
    data = open(path, "rb").read()
    if not path.endswith(".pt2"):
        for _ in range(count):
            damaged = bytearray(data)
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            yield bytes(damaged)
        return
    archive = zipfile.ZipFile(io.BytesIO(data))
    for _ in range(count):
        victim = rng.choice(archive.namelist())
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as writer:
            for name in archive.namelist():
                entry = bytearray(archive.read(name))
                if name == victim and entry:
                    for _ in range(rng.randint(1, 4)):
                        entry[rng.randrange(len(entry))] ^= 1 << rng.randrange(8)
                writer.writestr(name, bytes(entry))
        yield out.getvalue()


def main():
    count, paths = int(sys.argv[1]), sys.argv[2:]
    rng = random.Random(3)
    crashed = 0
    for path in paths:
        outcomes = {0: 0, 1: 0}
        for index, data in enumerate(variants(path, count, rng)):
            damaged = f"{path}.damaged"
            open(damaged, "wb").write(data)
            result = subprocess.run(["et-compile", damaged, "--compile-to=edge", "-o", "/dev/null"],
                                    capture_output=True, timeout=120)
            if result.returncode in outcomes:
                outcomes[result.returncode] += 1
            else:
                crashed += 1
                print(f"CRASH {path} variant {index}: exit {result.returncode}")
        print(f"{path.rsplit('/', 1)[-1]}: {outcomes[0]} imported, {outcomes[1]} rejected")
    print(f"{crashed} crashed")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
