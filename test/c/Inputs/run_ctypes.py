"""Runs the program DIR/cnn.etp through libetch.so and checks it against
et-run's output in DIR/ref: run_ctypes.py LIBRARY DIR"""
import os
import sys

import numpy as np

from etch.capi import EtchError, load

library, work = sys.argv[1:3]
module = load(os.path.join(work, "cnn.etp"), library=library, threads=1)
print("methods:", module.method_names)
x = np.load(os.path.join(work, "x.npy"))
for _ in range(3):  # the same every run
    outputs = module.forward(x)
expected = np.load(os.path.join(work, "ref", "output0.npy"))
same = outputs[0].shape == expected.shape and np.array_equal(outputs[0], expected)
print(f"output 0: {outputs[0].shape} {outputs[0].dtype}, "
      f"{'equal to' if same else 'DIFFERENT from'} et-run's")
try:
    module.forward(x[..., :31])
except EtchError as error:
    print("EtchError:", error)
module.close()
try:
    load(os.path.join(work, "missing.etp"), library=library)
except EtchError as error:
    print("EtchError:", error)
