#!/usr/bin/env python3
"""Runs a packed runtime check on another machine (scripts/pack-runtime-check.sh).

    runtime_check.py DIR [--caps native,avx2,scalar] [--jobs 6]

DIR holds bin/ (the runtime-only build's tools), programs/NAME.etp (compiled
by the e2e suite) and references/NAME/output*.npy (what each program gave on
seeded inputs where it was packed). Every program runs with et-run on the
same seeded inputs under each ISA cap (ETCH_CPU_ISA; "native" leaves the
CPU uncapped) and every output is compared with its reference: rel-L2 1e-4
for float programs, 3e-2 for quantized ones (an int8 value may round the
other way between kernels). Programs whose first target is a CPU target
also go through etch-no-alloc-check uncapped. A program without references
of its own (packed by a tree that refused int8 oneDNN delegates on CPUs
without VNNI) is compared with its XNNPACK twin's. Prints one line per
run and exits 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare  # noqa: E402
from e2e import EXECUTE_ALLOCATES  # noqa: E402

SEED = "7"


def reference_dir(root, name):
    """The references of name, or of its XNNPACK (else portable) twin."""
    candidates = [name] + [name.rsplit("__", 1)[0] + "__" + twin
                           for twin in ("xnnpack-portable", "portable")]
    for candidate in candidates:
        path = os.path.join(root, "references", candidate)
        if os.path.isdir(path):
            return path
    return None


def quantized(name):
    return any(key in name for key in ("int8", "int4", "quant__", "qdq"))


def run(command, env):
    return subprocess.run(command, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def check(root, program, cap):
    name = os.path.basename(program)[:-len(".etp")]
    out = os.path.join("/tmp", "etch-runtime-check", cap, name)
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    if cap != "native":
        env["ETCH_CPU_ISA"] = cap
    executed = run([os.path.join(root, "bin", "et-run"), program, "--seed", SEED,
                    "--iterations", "2", "--threads", "2", "--output-dir", out], env)
    if executed.returncode != 0:
        return False, "et-run: " + executed.stdout.strip()[-300:]
    references = reference_dir(root, name)
    if not references:
        return False, "no reference outputs"
    bound = 3e-2 if quantized(name) else 1e-4
    lines, ok, index = [], True, 0
    while os.path.exists(os.path.join(references, f"output{index}.npy")):
        verdict, line = compare(os.path.join(out, f"output{index}.npy"),
                                os.path.join(references, f"output{index}.npy"), bound)
        ok, index = ok and verdict, index + 1
        lines.append(line)
    if cap == "native" and not any(t in name.rsplit("__", 1)[-1] for t in EXECUTE_ALLOCATES):
        allocation = run([os.path.join(root, "bin", "etch-no-alloc-check"), program,
                          "--threads", "2"], env)
        if allocation.returncode != 0:
            ok = False
            lines.append("execute allocates: " + allocation.stdout.strip()[-200:])
    return ok, f"{index} outputs vs {os.path.basename(references)}: " + "; ".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--caps", default="native,avx2,scalar")
    parser.add_argument("--jobs", type=int, default=6)
    args = parser.parse_args()
    root = os.path.abspath(args.dir)
    programs = sorted(os.path.join(root, "programs", f)
                      for f in os.listdir(os.path.join(root, "programs")) if f.endswith(".etp"))
    jobs = [(program, cap) for cap in args.caps.split(",") for program in programs]
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (program, cap), (ok, line) in zip(
                jobs, pool.map(lambda job: check(root, *job), jobs)):
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {cap:7} {os.path.basename(program)}: {line}",
                  flush=True)
    print(f"runtime check: {len(jobs) - failures}/{len(jobs)} ok over caps {args.caps}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
