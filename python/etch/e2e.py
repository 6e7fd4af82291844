#!/usr/bin/env python3
"""Runs one model end to end on every target configuration of the build.

    e2e.py --bin DIR --configs portable/xnnpack,portable --model M
           --input x.npy [--input ...] --expected y.npy [--expected ...]
           --out DIR [--rtol-l2 1e-4] [--iterations 2]
           [--expect TARGET:delegates=N] [--expect TARGET:fallback=N]
           [--expect TARGET:converted=N] [--compile-arg ARG ...]

For each configuration (a --targets list; the lit suite passes every CPU
target built, each first, and portable alone) it compiles the model, reads
the partition summary, runs it with et-run, checks that execute allocates
nothing (etch-no-alloc-check) and compares every output with the reference.
Unless --expect says otherwise, a configuration whose first target is a real
target must delegate everything (fallback=0). Prints one line per
configuration and exits 1 on any failure. Adding a target to the build adds
its configuration here; no test changes.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare  # noqa: E402

# Targets whose delegates allocate while executing, with why: their
# programs skip etch-no-alloc-check (docs/targets.md says so too).
EXECUTE_ALLOCATES = {
    "onednn": "oneDNN 2.6's C API builds a map of the arguments on every "
              "primitive execution",
    "vulkan": "the Vulkan driver allocates inside vkQueueSubmit (lavapipe "
              "schedules every submit on its own threads); etch's execute only "
              "copies the inputs, submits and copies the outputs",
}


# Targets that run on a device through a driver: one iteration each. On
# CI's lavapipe (Vulkan on the CPU) a large model runs for over a minute
# per iteration, and repeated executes of a delegate are checked on small
# programs (test/Target/VULKAN/device.test runs three).
ONE_ITERATION = {"vulkan"}


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def summary_counts(text):
    delegates = sum(int(m) for m in re.findall(r"^  delegates: (\d+)$", text, re.M))
    fallback = sum(int(m) for m in re.findall(r"^  fell back to portable: (\d+)$", text, re.M))
    converted = sum(int(m) for m in re.findall(
        r"^  channels-last borders: \d+ kept NHWC, (\d+) converted to NCHW$", text, re.M))
    return delegates, fallback, converted


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--configs", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--expected", action="append", default=[])
    parser.add_argument("--out", required=True)
    parser.add_argument("--rtol-l2", type=float, default=1e-4)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="passed to every et-compile (e.g. "
                             "--target-option=vulkan:storage=fp16)")
    parser.add_argument("--expect", action="append", default=[],
                        help="TARGET:delegates=N, TARGET:fallback=N or TARGET:converted=N "
                             "(rank-4 borders of channels-last delegates converted to NCHW)")
    args = parser.parse_args()

    expectations = {}
    for text in args.expect:
        match = re.fullmatch(r"([\w-]+):(delegates|fallback|converted)=(\d+)", text)
        if not match:
            parser.error(f"bad --expect '{text}'")
        expectations.setdefault(match.group(1), {})[match.group(2)] = int(match.group(3))

    default_targets = run([os.path.join(args.bin, "et-compile"),
                           "--list-targets"]).stdout.split()
    failures = 0
    for config in [c for c in args.configs.split("/") if c]:
        first = config.split(",")[0]
        name = config.replace(",", "-")
        out = os.path.join(args.out, name)
        os.makedirs(out, exist_ok=True)
        program = os.path.join(out, "model.etp")
        problems = []
        last_line = ""
        compiled = run([os.path.join(args.bin, "et-compile"), args.model, f"--targets={config}",
                        "-o", program, "--print-partition-summary"] + args.compile_arg)
        if compiled.returncode != 0:
            print(f"{config}: FAIL compile\n{compiled.stdout}")
            failures += 1
            continue
        delegates, fallback, converted = summary_counts(compiled.stdout)
        if first != "portable":
            # A default target claims the whole model unless the test says
            # otherwise; an opt-in one is checked for its numbers only.
            expected = {"fallback": 0} if first in default_targets else {}
            expected.update(expectations.get(first, {}))
            counts = {"delegates": delegates, "fallback": fallback, "converted": converted}
            for key, value in expected.items():
                actual = counts[key]
                if actual != value:
                    problems.append(f"{key} {actual}, expected {value}")
        iterations = 1 if first in ONE_ITERATION else args.iterations
        command = [os.path.join(args.bin, "et-run"), program, "--output-dir", out,
                   "--iterations", str(iterations), "--threads", str(args.threads)]
        for path in args.input:
            command += ["--input", path]
        executed = run(command)
        if executed.returncode != 0:
            problems.append("et-run failed: " + executed.stdout.strip())
        else:
            for index, expected_path in enumerate(args.expected):
                verdict, line = compare(os.path.join(out, f"output{index}.npy"), expected_path,
                                        args.rtol_l2)
                if not verdict:
                    problems.append(f"output {index}: {line}")
                last_line = line
        if first in EXECUTE_ALLOCATES:
            last_line = f"{last_line}; execute allocates inside {first} (not checked)"
        else:
            allocation = run([os.path.join(args.bin, "etch-no-alloc-check"), program,
                              "--threads", str(args.threads)])
            if allocation.returncode != 0:
                problems.append("execute allocates: " + allocation.stdout.strip())
        if problems:
            failures += 1
            print(f"{config}: FAIL delegates {delegates}, fallback {fallback}; " + "; ".join(problems))
        else:
            print(f"{config}: ok delegates {delegates}, fallback {fallback}; {last_line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
