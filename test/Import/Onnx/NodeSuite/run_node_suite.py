#!/usr/bin/python3
"""Runs ONNX's backend node tests (Debian's libonnx-testdata) through etch.

Each case folder holds model.onnx and test_data_set_N/{input,output}_K.pb
written by onnx itself. A case passes when et-compile compiles the model
and et-run's outputs match every data set's expected outputs (shape, dtype
kind and values at --rtol/--atol, NaN where NaN is expected).

The expected-failures file lists the cases that do not pass yet, one per
line, `name  # reason`. The run fails when a case not on the list fails
(a regression) or when a listed case passes (shrink the list:
--update rewrites it, keeping the reasons of cases still failing).
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def data_sets(case_dir):
    sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
    for name in sets:
        folder = os.path.join(case_dir, name)

        def files(prefix, folder=folder):
            found = [f for f in os.listdir(folder) if f.startswith(prefix) and f.endswith(".pb")]
            return [os.path.join(folder, f)
                    for f in sorted(found, key=lambda f: int(f[len(prefix):-3]))]

        yield files("input_"), files("output_")


def first_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    # et-compile's diagnostics lead with the location; the message is what
    # names the problem.
    for line in lines:
        if "error:" in line:
            return line[line.index("error:"):].strip()[:300]
    return (lines[0] if lines else "no message")[:300]


def compare(name, got, want, rtol, atol):
    if got.shape != want.shape:
        return "output %s: shape %s, expected %s" % (name, list(got.shape), list(want.shape))
    if want.dtype.kind != got.dtype.kind or (
            want.dtype.kind != "f" and want.dtype.itemsize != got.dtype.itemsize):
        return "output %s: dtype %s, expected %s" % (name, got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        if not np.array_equal(got, want):
            return "output %s: %d of %d values differ" % (
                name, int(np.sum(got != want)), want.size)
        return None
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not ok.all():
        return "output %s: %d of %d values differ (max |diff| %.3g)" % (
            name, int(np.sum(~ok)), want.size, float(np.nanmax(np.abs(g - w))))
    return None


def frozen_model(case_dir, inputs, path):
    """The case's model with every graph input but the first made an
    initializer holding this data set's value (what a deployed model has
    where onnx's tests feed shape parameters as inputs)."""
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    graph = model.graph
    initialized = {t.name for t in graph.initializer}
    runtime = [i for i in graph.input if i.name not in initialized]
    for value_info, pb in list(zip(runtime, inputs))[1:]:
        graph.initializer.append(numpy_helper.from_array(read_tensor(pb), value_info.name))
        graph.input.remove(value_info)
    onnx.save(model, path)


def runtime_input_count(case_dir):
    graph = onnx.load(os.path.join(case_dir, "model.onnx")).graph
    initialized = {t.name for t in graph.initializer}
    return sum(1 for i in graph.input if i.name not in initialized)


def run_case(case_dir, tools, targets, rtol, atol, freeze=False):
    """Returns None when the case passes, else a one-line reason."""
    work = tempfile.mkdtemp(prefix="etch-node-")
    try:
        reason = check_case(case_dir, work, tools, targets, rtol, atol, freeze)
        # The temporary folder's name would make every reason differ per run.
        return reason.replace(work + "/", "") if reason else None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_model(model, program, tools, targets):
    cmd = [os.path.join(tools, "et-compile"), model, "-o", program]
    if targets:
        cmd.append("--targets=" + targets)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return "compile: " + first_line(done.stderr or done.stdout)
    return None


def check_case(case_dir, work, tools, targets, rtol, atol, freeze):
    try:
        program = os.path.join(work, "model.etp")
        if not freeze:
            problem = compile_model(os.path.join(case_dir, "model.onnx"), program,
                                    tools, targets)
            if problem:
                return problem
        for index, (inputs, outputs) in enumerate(data_sets(case_dir)):
            if freeze:
                frozen = os.path.join(work, "frozen%d.onnx" % index)
                frozen_model(case_dir, inputs, frozen)
                problem = compile_model(frozen, program, tools, targets)
                if problem:
                    return problem
                inputs = inputs[:1]
            args = [os.path.join(tools, "et-run"), program, "--threads", "1",
                    "--output-dir", os.path.join(work, "out%d" % index)]
            for k, path in enumerate(inputs):
                npy = os.path.join(work, "in%d_%d.npy" % (index, k))
                np.save(npy, read_tensor(path))
                args += ["--input", npy]
            done = subprocess.run(args, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                return "run: " + first_line(done.stderr or done.stdout)
            for k, path in enumerate(outputs):
                got_path = os.path.join(work, "out%d" % index, "output%d.npy" % k)
                if not os.path.exists(got_path):
                    return "run: output %d missing" % k
                problem = compare(k, np.load(got_path), read_tensor(path), rtol, atol)
                if problem:
                    return "mismatch: " + problem
        return None
    except subprocess.TimeoutExpired:
        return "timeout"
    except Exception as error:  # a data file the harness cannot read
        return "harness: %s" % error


def read_expected(path):
    expected = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition("#")
            expected[name.strip()] = reason.strip()
    return expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True, help="folder with et-compile and et-run")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--expected-failures", required=True)
    parser.add_argument("--targets", default="", help="et-compile --targets (default: its own)")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--update", action="store_true", help="rewrite the expected-failures file")
    parser.add_argument("--verbose", action="store_true", help="print every case's result")
    parser.add_argument("--freeze-inputs", action="store_true",
                        help="make every graph input but the first a constant "
                             "(onnx's tests feed shape parameters as inputs)")
    args = parser.parse_args()

    if not os.path.isdir(args.data):
        sys.exit("run_node_suite: %s not found (scripts/setup.sh installs libonnx-testdata)"
                 % args.data)
    cases = sorted(d for d in os.listdir(args.data)
                   if args.filter in d and os.path.exists(os.path.join(args.data, d, "model.onnx")))
    if args.freeze_inputs:
        # Freezing changes only the cases with more than one graph input.
        cases = [c for c in cases if runtime_input_count(os.path.join(args.data, c)) > 1]
    expected = read_expected(args.expected_failures)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(cases, pool.map(
            lambda c: run_case(os.path.join(args.data, c), args.tools, args.targets,
                               args.rtol, args.atol, args.freeze_inputs), cases)))

    failed = {c: r for c, r in results.items() if r is not None}
    regressions = sorted(c for c in failed if c not in expected)
    fixed = sorted(c for c in cases if c in expected and c not in failed)
    if args.verbose:
        for case in cases:
            print("%s %s%s" % ("FAIL" if case in failed else "PASS", case,
                               ": " + failed[case] if case in failed else ""))
    for case in regressions:
        print("REGRESSION %s: %s" % (case, failed[case]))
    for case in fixed:
        print("NOW PASSES %s (remove it from the expected failures)" % case)
    passed = len(cases) - len(failed)
    print("node suite%s: %d of %d cases pass (%.1f%%), %d expected failures, "
          "%d regressions, %d now pass"
          % (" (inputs after the first frozen)" if args.freeze_inputs else "",
             passed, len(cases), 100.0 * passed / max(len(cases), 1),
             len(failed) - len(regressions), len(regressions), len(fixed)))

    if args.update:
        kept = dict(failed)
        # A listed case outside this run's filter keeps its line.
        for case, reason in expected.items():
            if case not in results:
                kept[case] = reason
        with open(args.expected_failures, "w") as f:
            f.write("# ONNX node-suite cases etch does not pass yet, with the reason\n"
                    "# (run_node_suite.py --update rewrites this file).\n")
            for case in sorted(kept):
                f.write("%s  # %s\n" % (case, kept[case]))
        return 0
    return 1 if regressions or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
