#!/usr/bin/env python3
"""Compares an output .npy with a reference .npy.

    compare.py ACTUAL.npy EXPECTED.npy [--rtol-l2 1e-4]

Prints shape, max-abs error and relative L2 error (||a - e|| / ||e||) and
exits 1 when the shapes differ or the relative L2 error exceeds the bound.
"""
import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("actual")
    parser.add_argument("expected")
    parser.add_argument("--rtol-l2", type=float, default=1e-4)
    args = parser.parse_args()
    actual = np.load(args.actual).astype(np.float64)
    expected = np.load(args.expected).astype(np.float64)
    if actual.shape != expected.shape:
        print(f"FAIL shape {actual.shape} != expected {expected.shape}")
        return 1
    diff = actual - expected
    max_abs = float(np.max(np.abs(diff))) if diff.size else 0.0
    norm = float(np.linalg.norm(expected))
    rel_l2 = float(np.linalg.norm(diff)) / norm if norm else float(np.linalg.norm(diff))
    verdict = "ok" if rel_l2 <= args.rtol_l2 and np.all(np.isfinite(actual)) else "FAIL"
    print(f"{verdict} shape {actual.shape} max-abs {max_abs:.3e} rel-L2 {rel_l2:.3e} "
          f"(bound {args.rtol_l2:.0e})")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
