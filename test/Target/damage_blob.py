#!/usr/bin/env python3
"""Damages a target's blob inside a program and runs et-run on it.

    damage_blob.py TARGET PROGRAM.etp WORKDIR magic|size|sweep ...

magic: the blob's magic overwritten; size: its flatbuffer size field set
past the blob; sweep: 300 single-bit flips across the blob's flatbuffer.
Prints one line per case with et-run's exit code and first error line from
the target. Every blob starts with a 4-byte magic, a version and the
flatbuffer's 8-byte size.
"""
import random
import struct
import subprocess
import sys


MAGIC = {"xnnpack": b"EXNN", "onednn": b"EDNL", "vulkan": b"EVLK"}


def run(data, workdir, target):
    path = f"{workdir}/damaged.etp"
    open(path, "wb").write(data)
    result = subprocess.run(["et-run", path], capture_output=True, timeout=60)
    stderr = result.stderr.decode("utf-8", "replace")
    prefix = target + ":"
    first = next((line for line in stderr.splitlines() if prefix in line), stderr.strip())
    return result.returncode, first[first.find(prefix):] if prefix in first else first


def main():
    target, program, workdir, cases = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    data = open(program, "rb").read()
    blob = data.find(MAGIC[target])
    if blob < 0:
        sys.exit(f"no {target} blob in the program")
    (fb_size,) = struct.unpack_from("<Q", data, blob + 8)
    for case in cases:
        if case == "magic":
            damaged = bytearray(data)
            damaged[blob:blob + 4] = b"JUNK"
            print("magic: exit %d: %s" % run(bytes(damaged), workdir, target))
        elif case == "size":
            damaged = bytearray(data)
            struct.pack_into("<Q", damaged, blob + 8, 1 << 40)
            print("size: exit %d: %s" % run(bytes(damaged), workdir, target))
        elif case == "sweep":
            rng = random.Random(11)
            counts = {"rejected": 0, "ran": 0, "crashed": 0}
            for _ in range(300):
                damaged = bytearray(data)
                position = blob + 16 + rng.randrange(fb_size)
                damaged[position] ^= 1 << rng.randrange(8)
                code, _ = run(bytes(damaged), workdir, target)
                key = "ran" if code == 0 else "rejected" if code == 1 else "crashed"
                counts[key] += 1
            print("sweep: 300 damaged blobs, %(rejected)d rejected, %(ran)d ran, "
                  "%(crashed)d crashed" % counts)


if __name__ == "__main__":
    main()
