"""numpy reference for reduce-norm-tile.test: reads x.npy and v.npy from the
folder given, writes the expected outputs there. The weights are
make_pt2.py's (parameters drawn in order from default_rng(1))."""
import os
import sys

import numpy as np

out = sys.argv[1]
x = np.load(os.path.join(out, "x.npy")).astype(np.float64)
v = np.load(os.path.join(out, "v.npy")).astype(np.float64)
rng = np.random.default_rng(1)
gw = rng.standard_normal(6).astype(np.float32).astype(np.float64)
gb = rng.standard_normal(6).astype(np.float32).astype(np.float64)
g = x.reshape(2, 3, -1)
g = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
gn = g.reshape(x.shape) * gw.reshape(6, 1, 1) + gb.reshape(6, 1, 1)
expected = {
    "gn": gn,
    "a": v.max(1) + v.var(1, ddof=1),
    "at": v.argmax(1),
    "b": v.std(1, ddof=0, keepdims=True) + v.min(),
    "rp": np.tile(v, (2, 2)),
    "fl": v[::-1, ::-1],
}
for name, array in expected.items():
    np.save(os.path.join(out, name + ".npy"),
            array if name == "at" else array.astype(np.float32))
