"""Compiles MODEL for TARGETS with inline and with external weights, runs
both on INPUT, and prints the program's share of the bytes; fails when the
share is 5% or more or the outputs differ.
Usage: external_weights_model.py MODEL INPUT OUT_DIR TARGETS"""
import filecmp
import os
import subprocess
import sys

model, sample, out, targets = sys.argv[1:5]
folder = os.path.join(out, targets.replace(",", "_"))
os.makedirs(folder, exist_ok=True)
inline, program, weights = (os.path.join(folder, name)
                            for name in ("inline.etp", "model.etp", "model.etw"))
for path, extra in ((inline, []), (program, ["--external-weights", weights])):
    subprocess.run(["et-compile", model, "--targets=" + targets, "-o", path] + extra, check=True)
for path, result in ((inline, "inline"), (program, "external")):
    subprocess.run(["et-run", path, "--input", sample, "--output-dir",
                    os.path.join(folder, result)], check=True, capture_output=True)
same = filecmp.cmp(os.path.join(folder, "inline", "output0.npy"),
                   os.path.join(folder, "external", "output0.npy"), shallow=False)
share = os.path.getsize(program) / (os.path.getsize(program) + os.path.getsize(weights))
print(f"{targets}: program {100 * share:.2f}% of the bytes, outputs "
      f"{'equal' if same else 'DIFFER'} ({os.path.getsize(program)} + "
      f"{os.path.getsize(weights)} bytes; inline {os.path.getsize(inline)})")
sys.exit(0 if same and share < 0.05 else 1)
