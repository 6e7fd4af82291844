#!/usr/bin/env python3
"""Damages the XNNPACK blob inside a program and runs et-run on it.

    damage_blob.py PROGRAM.etp WORKDIR magic|size|sweep ...

magic: the blob's EXNN magic overwritten; size: its flatbuffer size field set
past the blob; sweep: 300 single-bit flips across the blob's flatbuffer.
Prints one line per case with et-run's exit code and first error line.
"""
import random
import struct
import subprocess
import sys


def run(data, workdir):
    path = f"{workdir}/damaged.etp"
    open(path, "wb").write(data)
    result = subprocess.run(["et-run", path], capture_output=True, timeout=60)
    stderr = result.stderr.decode("utf-8", "replace")
    first = next((line for line in stderr.splitlines() if "xnnpack:" in line), stderr.strip())
    return result.returncode, first[first.find("xnnpack:"):] if "xnnpack:" in first else first


def main():
    program, workdir, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = open(program, "rb").read()
    blob = data.find(b"EXNN")
    if blob < 0:
        sys.exit("no XNNPACK blob in the program")
    (fb_size,) = struct.unpack_from("<Q", data, blob + 8)
    for case in cases:
        if case == "magic":
            damaged = bytearray(data)
            damaged[blob:blob + 4] = b"JUNK"
            print("magic: exit %d: %s" % run(bytes(damaged), workdir))
        elif case == "size":
            damaged = bytearray(data)
            struct.pack_into("<Q", damaged, blob + 8, 1 << 40)
            print("size: exit %d: %s" % run(bytes(damaged), workdir))
        elif case == "sweep":
            rng = random.Random(11)
            counts = {"rejected": 0, "ran": 0, "crashed": 0}
            for _ in range(300):
                damaged = bytearray(data)
                position = blob + 16 + rng.randrange(fb_size)
                damaged[position] ^= 1 << rng.randrange(8)
                code, _ = run(bytes(damaged), workdir)
                key = "ran" if code == 0 else "rejected" if code == 1 else "crashed"
                counts[key] += 1
            print("sweep: 300 damaged blobs, %(rejected)d rejected, %(ran)d ran, "
                  "%(crashed)d crashed" % counts)


if __name__ == "__main__":
    main()
