#!/usr/bin/env python3
"""A copy of npm's onnxruntime-node whose CPU checks see no AVX-512.

ONNX Runtime has no switch that caps its ISA, and a CPU without CPUID
faulting cannot hide features from it, so on an AVX-512 machine the
benchmarks patch a copy of its library instead: every place that reads the
OS's enabled register state (XCR0) and decides on AVX-512 from it is made to
see the AVX-512 state bits (5-7) clear, so MLAS, cpuinfo and ORT's own
CPUIDInfo pick their AVX2/FMA kernels, as on an AVX2-only CPU. The patterns
belong to onnxruntime-node 1.30.0 (the version bench/common.sh installs);
if the library does not hold each exactly as often as expected, nothing is
written and the script fails, so a new version cannot be capped silently
wrong. Usage: ort_cap_avx2.py SOURCE_NODE_MODULES DEST_NODE_MODULES
"""
import shutil
import sys
from pathlib import Path

LIBRARY = "onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"

# (what, found, replaced by, how many times 1.30.0 holds it)
PATCHES = [
    # MLAS's platform setup and cpuinfo: `xgetbv; mov %eax,%eax` becomes
    # `xgetbv; and $0x1f,%al` (the upper half of rax is already zero).
    ("XCR0 read by MLAS and cpuinfo", "0f01d089c0", "0f01d0241f", 2),
    # ORT's CPUIDInfo: `and $0xe6,%r14d` before its `cmp $0xe6` becomes
    # `and $0x06,%r14d`, so AVX-512's state never compares equal.
    ("XCR0 mask in CPUIDInfo", "4181e6e6000000", "4181e606000000", 1),
]


def main(source: Path, dest: Path) -> int:
    library = bytearray((source / LIBRARY).read_bytes())
    for what, found, replaced, expected in PATCHES:
        count = library.count(bytes.fromhex(found))
        if count != expected:
            print(f"{source / LIBRARY}: {what}: found {count} times, expected {expected};"
                  " not an onnxruntime-node this script knows", file=sys.stderr)
            return 1
        library = library.replace(bytes.fromhex(found), bytes.fromhex(replaced))
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, symlinks=True)
    (dest / LIBRARY).write_bytes(library)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
