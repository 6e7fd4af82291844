#!/usr/bin/env python3
"""Runs a model on some targets and on the portable kernels alone, with the
same seeded inputs, and compares every output.

    vs_portable.py --bin BUILD/bin --targets vulkan,portable MODEL OUT_DIR
                   [--seed 3] [--rtol-l2 1e-5] [-- ET_COMPILE_ARGS...]

Prints the partition summary's fallback count and one line per output
(compare.py's); exits 1 when a step fails or an output differs.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare  # noqa: E402


def run(command):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        print(f"FAIL {' '.join(command)}:\n{result.stdout}")
        sys.exit(1)
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--targets", required=True)
    parser.add_argument("--seed", default="3")
    parser.add_argument("--rtol-l2", type=float, default=1e-5)
    parser.add_argument("model")
    parser.add_argument("out")
    args, compile_args = parser.parse_known_args()
    compile_args = [a for a in compile_args if a != "--"]
    os.makedirs(args.out, exist_ok=True)
    outputs = {}
    for name, targets in (("targets", args.targets), ("portable", "portable")):
        program = os.path.join(args.out, name + ".etp")
        summary = run([os.path.join(args.bin, "et-compile"), args.model, "--targets=" + targets,
                       "-o", program, "--print-partition-summary"] + compile_args)
        if name == "targets":
            fallback = sum(int(n) for n in re.findall(r"fell back to portable: (\d+)", summary))
            print(f"fell back to portable: {fallback}")
        outputs[name] = os.path.join(args.out, name)
        run([os.path.join(args.bin, "et-run"), program, "--seed", args.seed,
             "--output-dir", outputs[name]])
    names = sorted((n for n in os.listdir(outputs["portable"]) if re.fullmatch(r"output\d+\.npy", n)),
                   key=lambda n: int(n[6:-4]))
    failed = 0
    for name in names:
        ok, line = compare(os.path.join(outputs["targets"], name),
                           os.path.join(outputs["portable"], name), args.rtol_l2)
        print(f"{name[:-4]}: {line}")
        failed += not ok
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
