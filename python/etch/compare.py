#!/usr/bin/env python3
"""Compares an output .npy with a reference .npy.

    compare.py ACTUAL.npy EXPECTED.npy [--rtol-l2 1e-4]

Prints shape, max-abs error and relative L2 error (||a - e|| / ||e||) and
exits 1 when the shapes differ or the relative L2 error exceeds the bound.
"""
import argparse
import sys

import numpy as np


def compare(actual_path, expected_path, rtol_l2=1e-4):
    """(ok, message) for one output against its reference."""
    actual = np.load(actual_path).astype(np.float64)
    expected = np.load(expected_path).astype(np.float64)
    if actual.shape != expected.shape:
        return False, f"FAIL shape {actual.shape} != expected {expected.shape}"
    diff = actual - expected
    max_abs = float(np.max(np.abs(diff))) if diff.size else 0.0
    norm = float(np.linalg.norm(expected))
    rel_l2 = float(np.linalg.norm(diff)) / norm if norm else float(np.linalg.norm(diff))
    ok = rel_l2 <= rtol_l2 and bool(np.all(np.isfinite(actual)))
    return ok, (f"{'ok' if ok else 'FAIL'} shape {actual.shape} max-abs {max_abs:.3e} "
                f"rel-L2 {rel_l2:.3e} (bound {rtol_l2:.0e})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("actual")
    parser.add_argument("expected")
    parser.add_argument("--rtol-l2", type=float, default=1e-4)
    args = parser.parse_args()
    ok, line = compare(args.actual, args.expected, args.rtol_l2)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
