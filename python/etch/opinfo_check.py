#!/usr/bin/env python3
"""Compiles and runs the samples opinfo_corpus.py exported; sums up by cause.

    opinfo_check.py --bin build/bin --corpus DIR [--targets portable]
                    [--jobs 2] [--verbose]

For each sample and IR form: et-compile (--targets), et-run on the sample's
inputs, every output compared with eager torch's (rel-L2 1e-4). Prints the
counts of samples that match, and each cause of failure (the compiler's
first error with node names left out, the runtime's error, a mismatch) with
how many samples and IR forms it stopped. Exits 0: it is a survey, not a
test (many OpInfo ops are outside what an on-device compiler takes:
linear algebra solvers, random sampling, special functions).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare  # noqa: E402


def cause(text):
    lines = [line for line in text.strip().split("\n") if "error" in line] or text.strip().split("\n")
    line = re.sub(r"^.*?error: ", "", lines[0])
    line = re.sub(r"node '[^']*'", "node", line)
    return re.sub(r": etch has no Edge op or kernel for this operator.*", ": no Edge op", line)[:160]


def check(args, entry, form):
    name = entry["name"]
    out = os.path.join(args.work, f"{name}_{form}")
    os.makedirs(out, exist_ok=True)
    program = os.path.join(out, "model.etp")
    compiled = subprocess.run([os.path.join(args.bin, "et-compile"),
                               os.path.join(args.corpus, f"{name}_{form}.pt2"),
                               f"--targets={args.targets}", "-o", program],
                              capture_output=True, text=True)
    if compiled.returncode:
        return "compile: " + cause(compiled.stderr or compiled.stdout)
    command = [os.path.join(args.bin, "et-run"), program, "--output-dir", out]
    for index in range(entry["inputs"]):
        command += ["--input", os.path.join(args.corpus, f"{name}_in{index}.npy")]
    try:
        executed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "run: over 120 s"
    if executed.returncode:
        return "run: " + cause(executed.stderr or executed.stdout)
    for index in range(entry["outputs"]):
        expected = os.path.join(args.corpus, f"{name}_out{index}.npy")
        ok, line = compare(os.path.join(out, f"output{index}.npy"), expected, 1e-4)
        if not ok:
            return f"mismatch: output {index}: {line.split(' max-abs')[0]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--targets", default="portable")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    args.work = args.work or os.path.join(args.corpus, "runs", args.targets.replace(",", "-"))
    with open(os.path.join(args.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    jobs = [(e, form) for e in manifest if "error" not in e for form in ("training", "core")]
    causes = collections.defaultdict(list)
    passed = {"training": 0, "core": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (entry, form), problem in zip(jobs, pool.map(lambda job: check(args, *job), jobs)):
            if problem is None:
                passed[form] += 1
            else:
                causes[problem].append(f"{entry['name']} ({form})")
            if args.verbose:
                print(f"{'ok' if problem is None else 'FAIL'} {entry['name']} {form} {problem or ''}")
    samples = len(jobs) // 2
    print(f"{samples} samples of {len({e['op'] for e in manifest})} OpInfo ops "
          f"({len(manifest) - samples} refused by torch's exporter); match eager torch: "
          f"training IR {passed['training']}, core ATen {passed['core']}")
    for problem, where in sorted(causes.items(), key=lambda item: -len(item[1])):
        print(f"{len(where):4d}  {problem}  [{', '.join(where[:3])}{', ...' if len(where) > 3 else ''}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
