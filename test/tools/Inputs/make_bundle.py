"""Writes et-compile --bundle folders from the bundled example's input and
expected output: make_bundle.py EXAMPLES_DIR OUT_DIR

OUT_DIR/good: the example (case 'example') and its input scaled by 0.5
with the example's expected output (case 'wrong-expected', which fails);
OUT_DIR/shape: an input one column short; OUT_DIR/gap: input1.npy without
input0.npy."""
import os
import sys

import numpy as np

examples, out = sys.argv[1], sys.argv[2]
x = np.load(os.path.join(examples, "small_cnn_input.npy"))
y = np.load(os.path.join(examples, "small_cnn_expected.npy"))


def case(folder, **arrays):
    os.makedirs(folder, exist_ok=True)
    for name, array in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), array)


case(os.path.join(out, "good", "example"), input0=x, expected0=y)
case(os.path.join(out, "good", "wrong-expected"), input0=x * 0.5, expected0=y)
case(os.path.join(out, "pass", "example"), input0=x, expected0=y)
case(os.path.join(out, "shape", "short"), input0=x[..., :-1], expected0=y)
case(os.path.join(out, "gap", "gap"), input1=x, expected0=y)
