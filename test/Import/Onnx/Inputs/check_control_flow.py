"""numpy reference for control-flow.test: the unrolled Loop, both Ifs and
the two Scans of make_onnx.py control_flow, for the input in FOLDER/x.npy
and the run-time condition FOLDER/flag.npy; prints ok or raises."""
import os
import sys

import numpy as np

folder = sys.argv[1]
x = np.load(os.path.join(folder, "x.npy"))
flag = bool(np.load(os.path.join(folder, "flag.npy")))
got = [np.load(os.path.join(folder, "out", f"output{k}.npy")) for k in range(7)]

acc, totals = x.copy(), []
for i in range(3):
    acc = acc * 2 + i
    totals.append(acc.sum())
running = np.cumsum(x, 0)
running_back = np.cumsum(x[::-1], 0)[::-1]
expected = [acc, np.array(totals, np.float32), x + 1,
            np.maximum(x, 0) if flag else -x, x.sum(0), running, running_back]
for index, (g, e) in enumerate(zip(got, expected)):
    np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=f"output {index}")
print(f"flag {flag}: ok")
