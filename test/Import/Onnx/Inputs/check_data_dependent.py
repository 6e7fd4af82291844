"""numpy reference for data-dependent.test: each data set's outputs (one
folder per set, in order) against NonZero and Compress as numpy computes
them; prints the shapes and ok, or raises."""
import os
import sys

import numpy as np

folder = sys.argv[1]
for index, name in enumerate(["some", "none", "all"]):
    x = np.load(os.path.join(folder, name + ".npy"))
    out = os.path.join(folder, "out", str(index))
    where, doubled, rows = (np.load(os.path.join(out, f"output{k}.npy")) for k in range(3))
    np.testing.assert_array_equal(where, np.array(np.nonzero(x > 0)))
    np.testing.assert_array_equal(doubled, x.reshape(-1)[x.reshape(-1) > 0] * 2)
    np.testing.assert_array_equal(rows, np.maximum(x[x.max(1) > 0.5], 0))
    print(f"set {index}: where {where.shape} doubled {doubled.shape} rows {rows.shape} ok")
