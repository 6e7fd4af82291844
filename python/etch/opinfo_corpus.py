"""Exports torch's OpInfo samples as .pt2 files, one module per op and sample.

    torch-run.sh sid OUT python/etch/opinfo_corpus.py [--samples 2] [--ops a,b]

torch's own operator test database (torch.testing._internal's op_db) holds,
for every public op, sample inputs covering its argument forms. Each float32
sample becomes a module whose inputs are the sample's tensors (other
arguments stay constants), run eagerly for the expected outputs and exported
non-strict in both IR forms: NAME_training.pt2 (what export() returns) and
NAME_core.pt2 (after run_decompositions()). manifest.json lists each sample
with its input and output counts, or why torch could not run or export it.
opinfo_check.py compiles and runs them with etch (docs/importers.md).
"""
import argparse
import json
import os
import signal

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db


class Timeout(Exception):
    pass


def on_alarm(*_):
    raise Timeout()


def placeholders(value, tensors):
    """The argument with each tensor replaced by its index in tensors."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return ("tensor", len(tensors) - 1)
    if isinstance(value, (list, tuple)):
        return ("list" if isinstance(value, list) else "tuple",
                [placeholders(item, tensors) for item in value])
    return ("constant", value)


def rebuild(spec, values):
    kind, value = spec
    if kind == "tensor":
        return values[value]
    if kind == "list":
        return [rebuild(item, values) for item in value]
    if kind == "tuple":
        return tuple(rebuild(item, values) for item in value)
    return value


class Sample(torch.nn.Module):
    def __init__(self, op, args, kwargs):
        super().__init__()
        self.op, self.args, self.kwargs = op, args, kwargs

    def forward(self, *values):
        return self.op(*rebuild(self.args, values),
                       **{name: rebuild(spec, values) for name, spec in self.kwargs.items()})


def export_sample(info, sample, key, out):
    """The manifest entry of one sample (None: nothing etch could compare)."""
    tensors = []
    args = placeholders([sample.input] + list(sample.args), tensors)
    kwargs = {name: placeholders(value, tensors) for name, value in sample.kwargs.items()}
    if not tensors or any(t.is_complex() for t in tensors):
        return None
    module = Sample(info.op, args, kwargs)
    with torch.no_grad():
        expected = module(*tensors)
    outputs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    if not outputs or not all(isinstance(o, torch.Tensor) and not o.is_complex()
                              for o in outputs):
        return None
    for index, tensor in enumerate(tensors):
        np.save(os.path.join(out, f"{key}_in{index}.npy"), tensor.detach().contiguous().numpy())
    for index, tensor in enumerate(outputs):
        np.save(os.path.join(out, f"{key}_out{index}.npy"), tensor.detach().contiguous().numpy())
    entry = {"name": key, "op": info.name, "inputs": len(tensors), "outputs": len(outputs)}
    exported = torch.export.export(module, tuple(tensors), strict=False)
    torch.export.save(exported, os.path.join(out, f"{key}_training.pt2"))
    torch.export.save(exported.run_decompositions(), os.path.join(out, f"{key}_core.pt2"))
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all)")
    args = parser.parse_args()
    wanted = set(args.ops.split(",")) if args.ops else None
    signal.signal(signal.SIGALRM, on_alarm)
    torch.manual_seed(0)
    manifest = []
    for info in op_db:
        name = info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")
        if wanted and name not in wanted:
            continue
        try:
            if torch.float32 not in info.supported_dtypes("cpu"):
                continue
            samples = list(info.sample_inputs("cpu", torch.float32, requires_grad=False))
        except Exception:  # an OpInfo without CPU float32 samples
            continue
        for index, sample in enumerate(samples[:args.samples]):
            key = f"{name}_{index}".replace("/", "_")
            signal.alarm(30)
            try:
                entry = export_sample(info, sample, key, args.out)
            except Timeout:
                entry = {"name": key, "op": name, "error": "torch took over 30 s"}
            except Exception as error:  # torch cannot run or export it
                message = f"{type(error).__name__}: {error}".split("\n")[0][:300]
                entry = {"name": key, "op": name, "error": message}
            finally:
                signal.alarm(0)
            if entry:
                manifest.append(entry)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    exported = sum("error" not in e for e in manifest)
    print(f"{exported} samples exported, {len(manifest) - exported} refused by torch")


if __name__ == "__main__":
    main()
