#!/usr/bin/env python3
"""Measures what `et-compile --quantize=int8` costs in accuracy.

    quant_eval.py --bin DIR --model M --shape 1,3,224,224 --out DIR
                  [--calibration 32] [--eval 100] [--targets xnnpack,portable]
                  [--observer mse] [--max-rel-l2 X] [--min-top1 F] [--one-delegate]

Calibrates on --calibration seeded standard-normal inputs (a folder of .npy
files, as a user passes real data), compiles the model in fp32 and int8 for
the same targets, runs both on --eval other seeded inputs and prints the
median and worst relative L2 error of int8 against fp32 and how often their
top-1 classes agree. Exits 1 when a bound is broken, or (--one-delegate) when
the int8 program is not one delegate without portable fallback.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np


def run(command):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode:
        sys.exit(f"quant_eval: {' '.join(command)} failed:\n{result.stdout}")
    return result.stdout


def write_inputs(folder, shape, count, seed):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for k in range(count):
        path = os.path.join(folder, f"sample{k:04d}.npy")
        np.save(path, rng.standard_normal(shape).astype(np.float32))
        paths.append(path)
    return paths


def outputs(bin_dir, program, inputs, out):
    """The program's first output for each input: one et-run that loads the
    program once (--input-sets)."""
    os.makedirs(out, exist_ok=True)
    listing = os.path.join(out, "inputs.txt")
    with open(listing, "w") as file:
        file.write("".join(path + "\n" for path in inputs))
    run([os.path.join(bin_dir, "et-run"), program, "--input-sets", listing,
         "--output-dir", out])
    return [np.load(os.path.join(out, str(k), "output0.npy")).astype(np.float64)
            for k in range(len(inputs))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--shape", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--calibration", type=int, default=32)
    parser.add_argument("--eval", type=int, default=100)
    parser.add_argument("--targets", default="xnnpack,portable")
    parser.add_argument("--observer", default="mse")
    parser.add_argument("--max-rel-l2", type=float)
    parser.add_argument("--min-top1", type=float)
    parser.add_argument("--one-delegate", action="store_true")
    parser.add_argument("--compile-only", action="store_true",
                        help="calibrate and compile, check --one-delegate, run nothing "
                             "(a CPU the int8 program does not load on)")
    args = parser.parse_args()
    shape = tuple(int(d) for d in args.shape.split(","))
    calibration = os.path.join(args.out, "calibration")
    write_inputs(calibration, shape, args.calibration, seed=1)
    compile_ = os.path.join(args.bin, "et-compile")
    int8 = os.path.join(args.out, "int8.etp")
    summary = run([compile_, args.model, "-o", int8, f"--targets={args.targets}",
                   "--quantize=int8", f"--calibration-data={calibration}",
                   f"--calibration-observer={args.observer}", "--print-partition-summary"])
    delegates = sum(int(m) for m in re.findall(r"^  delegates: (\d+)$", summary, re.M))
    fallback = sum(int(m) for m in re.findall(r"^  fell back to portable: (\d+)$", summary, re.M))
    one_delegate_missed = args.one_delegate and (delegates != 1 or fallback != 0)
    if args.compile_only:
        print(f"{os.path.basename(args.model)}: int8 compiled, {delegates} delegate(s), "
              f"{fallback} op(s) on portable")
        if one_delegate_missed:
            print("FAIL: the int8 program is not one delegate without fallback")
        return 1 if one_delegate_missed else 0
    evaluation = write_inputs(os.path.join(args.out, "eval"), shape, args.eval, seed=2)
    fp32 = os.path.join(args.out, "fp32.etp")
    run([compile_, args.model, "-o", fp32, f"--targets={args.targets}"])
    reference = outputs(args.bin, fp32, evaluation, os.path.join(args.out, "fp32"))
    quantized = outputs(args.bin, int8, evaluation, os.path.join(args.out, "int8"))
    errors = [np.linalg.norm(q - r) / np.linalg.norm(r) for q, r in zip(quantized, reference)]
    top1 = np.mean([q.reshape(-1).argmax() == r.reshape(-1).argmax()
                    for q, r in zip(quantized, reference)])
    name = os.path.basename(args.model)
    print(f"{name}: int8 vs fp32 over {args.eval} inputs: rel-L2 median {np.median(errors):.3e} "
          f"worst {max(errors):.3e}, top-1 agreement {top1:.2f}; "
          f"{delegates} delegate(s), {fallback} op(s) on portable")
    failed = False
    if args.max_rel_l2 is not None and np.median(errors) > args.max_rel_l2:
        print(f"FAIL: median rel-L2 above {args.max_rel_l2}")
        failed = True
    if args.min_top1 is not None and top1 < args.min_top1:
        print(f"FAIL: top-1 agreement below {args.min_top1}")
        failed = True
    if one_delegate_missed:
        print("FAIL: the int8 program is not one delegate without fallback")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
