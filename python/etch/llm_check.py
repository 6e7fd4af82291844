#!/usr/bin/env python3
"""Checks an exported decoder end to end on every target configuration:
compiles it (optionally quantized), generates greedily with et-llm and
compares the tokens with transformers' generate(), then feeds that
continuation (teacher forcing) and compares the logits behind every token.

    llm_check.py --bin DIR --configs portable/xnnpack,portable --model M.pt2
                 --prefix DIR/NAME --out DIR [--quantize int8-weight]
                 [--compile-option=--last-logits-only ...]
                 [--same-tokens N] [--rtol-l2 X] [--min-agreement F]
                 [--decode-model D.pt2]

NAME_prompt.txt, NAME_generate.txt and NAME_logits.npy come from
llm_export.py. --same-tokens: at least N leading generated tokens equal the
reference (all of them by default); --compile-option: passed to et-compile
(repeatable); --rtol-l2: the logits' relative L2
error over all steps; --min-agreement: the share of forced tokens that were
the model's own top choice. --decode-model: a one-token export of the same
model; the program then has methods prefill (--model) and decode sharing
their caches, and et-llm runs the prompt on prefill and every new token on
decode. Prints one line per configuration with the
measured figures; exits 1 when any check fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def tokens_of(text):
    line = next(l for l in text.splitlines() if l.startswith("tokens:"))
    return [int(t) for t in line.split()[1:]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--configs", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--quantize", default="")
    parser.add_argument("--compile-option", action="append", default=[])
    parser.add_argument("--same-tokens", type=int, default=-1)
    parser.add_argument("--rtol-l2", type=float, default=1e-4)
    parser.add_argument("--min-agreement", type=float, default=1.0)
    parser.add_argument("--decode-model", default="")
    args = parser.parse_args()

    prompt = open(args.prefix + "_prompt.txt").read().split()
    reference = [int(t) for t in open(args.prefix + "_generate.txt").read().split()]
    expected_logits = np.load(args.prefix + "_logits.npy").astype(np.float64)
    same = len(reference) if args.same_tokens < 0 else args.same_tokens
    failures = 0
    for config in [c for c in args.configs.split("/") if c]:
        out = os.path.join(args.out, config.replace(",", "-"))
        os.makedirs(out, exist_ok=True)
        program = os.path.join(out, "model.etp")
        models = ([f"--method=prefill={args.model}", f"--method=decode={args.decode_model}"]
                  if args.decode_model else [args.model])
        compile_command = [os.path.join(args.bin, "et-compile")] + models + [
            f"--targets={config}", "-o", program]
        if args.quantize:
            compile_command.append(f"--quantize={args.quantize}")
        compile_command += args.compile_option
        compiled = run(compile_command)
        if compiled.returncode != 0:
            print(f"{config}: FAIL compile\n{compiled.stdout}")
            failures += 1
            continue
        llm = os.path.join(args.bin, "et-llm")
        greedy = run([llm, program, "--prompt", " ".join(prompt), "--ignore-eos",
                      "--max-new-tokens", str(len(reference))])
        logits_path = os.path.join(out, "logits.npy")
        forced = run([llm, program, "--prompt", " ".join(prompt), "--force",
                      " ".join(map(str, reference)), "--logits", logits_path])
        if greedy.returncode != 0 or forced.returncode != 0:
            print(f"{config}: FAIL et-llm\n{greedy.stdout}{forced.stdout}")
            failures += 1
            continue
        generated = tokens_of(greedy.stdout)
        leading = next((i for i, (a, b) in enumerate(zip(generated, reference)) if a != b),
                       min(len(generated), len(reference)))
        logits = np.load(logits_path).astype(np.float64)
        error = np.linalg.norm(logits - expected_logits) / np.linalg.norm(expected_logits)
        agreement = float(np.mean(logits.argmax(axis=1) == np.array(reference)))
        problems = []
        if leading < same:
            problems.append(f"tokens differ from token {leading} on")
        if not error <= args.rtol_l2:
            problems.append(f"logits rel-L2 {error:.3g} > {args.rtol_l2:g}")
        if agreement < args.min_agreement:
            problems.append(f"agreement {agreement:.3f} < {args.min_agreement}")
        status = "FAIL " + "; ".join(problems) if problems else "ok"
        print(f"{config}: {status} (same leading tokens {leading}/{len(reference)}, "
              f"logits rel-L2 {error:.3g}, top-1 agreement {agreement:.3f})")
        failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
