"""etch.compile and etch.Program: et-compile (the wheel's, or the build
tree's) on a torch.export program, an nn.Module or a .pt2 / .onnx file."""
import os
import re
import subprocess
import tempfile

from . import _native
from ._error import Error


class Program:
    """A compiled program: buffer (its bytes, what et-compile writes),
    summary (the partition summary: ops per target, delegates, fallbacks),
    weights_path (its external weights file, or None)."""

    def __init__(self, buffer, summary, weights_path=None):
        self.buffer, self.summary = buffer, summary
        self.weights_path = weights_path

    def save(self, path):
        """Writes the program; one with external weights finds them by the
        file's name beside it (or etch.load(path, weights=...))."""
        with open(path, "wb") as file:
            file.write(self.buffer)

    def verify(self, rtol=1e-4, atol=1e-5):
        """Runs the test cases bundled at compile time (etch.compile's
        bundle=) with et-run --verify. Returns one dict per case: case,
        method, passed, rel_l2 (None when it did not run) and line (et-run's
        text); raises etch.Error when the program has no cases."""
        with tempfile.TemporaryDirectory(prefix="etch-verify-") as folder:
            path = os.path.join(folder, "program.etp")
            self.save(path)
            command = [_native.tool("et-run"), path, "--verify",
                       "--rtol", repr(float(rtol)), "--atol", repr(float(atol))]
            if self.weights_path:
                command += ["--weights", self.weights_path]
            run = subprocess.run(command, capture_output=True, text=True)
        cases = []
        for line in run.stdout.splitlines():
            match = re.match(r"case '(.*)' \((.*)\): (pass|FAIL)", line)
            if match:
                error = re.search(r"rel-L2 (\S+?),", line)
                cases.append({"case": match[1], "method": match[2],
                              "passed": match[3] == "pass",
                              "rel_l2": float(error[1]) if error else None, "line": line})
        if not cases:
            raise Error(run.stderr.strip() or "et-run --verify gave no result")
        return cases

    def __repr__(self):
        return f"<etch.Program, {len(self.buffer)} bytes>"


def _save_torch(model, example_inputs, folder, name="model"):
    """Writes model (an ExportedProgram, or an nn.Module exported with
    example_inputs) as folder/name.pt2; None when it is neither."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    export = getattr(torch, "export", None)
    if isinstance(model, torch.nn.Module) and export is None:
        raise Error(f"etch.compile: torch {torch.__version__} has no torch.export; "
                    "give a .pt2 written by torch 2.x or a .onnx file")
    if isinstance(model, torch.nn.Module):
        if example_inputs is None:
            raise Error("etch.compile: an nn.Module needs example_inputs "
                        "(a tuple of its inputs) to be exported")
        if not isinstance(example_inputs, tuple):
            example_inputs = tuple(example_inputs) if isinstance(example_inputs, list) \
                else (example_inputs,)
        try:
            model = torch.export.export(model, example_inputs)
        except Exception as error:  # torch's own message, as etch.Error
            raise Error(f"etch.compile: torch.export.export failed: {error}") from error
    if export is None or not isinstance(model, export.ExportedProgram):
        return None
    path = os.path.join(folder, name + ".pt2")
    torch.export.save(model, path)
    return path


def _model_path(model, example_inputs, folder, name="model"):
    """The file et-compile reads for model: its path, or a .pt2 written."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    path = _save_torch(model, example_inputs, folder, name)
    if path is None:
        raise Error(f"etch.compile: model is of type {type(model).__name__}; expected "
                    "a torch.export.ExportedProgram, a torch.nn.Module or "
                    "the path of a .pt2 or .onnx file")
    return path


def _save_arrays(folder, name, values, width=1):
    """values (an array or tensor, or a tuple of them) as folder/{name}0.npy,
    {name}1.npy, ... (numbers zero-padded to width)."""
    import numpy as np
    if not isinstance(values, (tuple, list)):
        values = (values,)
    for position, value in enumerate(values):
        if hasattr(value, "detach"):
            value = value.detach().cpu().numpy()
        np.save(os.path.join(folder, f"{name}{position:0{width}d}.npy"),
                np.ascontiguousarray(value))


def _write_calibration(samples, folder):
    """One subfolder per sample, one .npy per input (et-compile's
    --calibration-data layout)."""
    root = os.path.join(folder, "calibration")
    for index, sample in enumerate(samples):
        sample_folder = os.path.join(root, f"sample{index:06d}")
        os.makedirs(sample_folder)
        _save_arrays(sample_folder, "input", sample, width=3)
    if not os.path.isdir(root):
        raise Error("etch.compile: calibration_data holds no samples")
    return root


def _write_bundle(cases, folder):
    """One subfolder per case: input0.npy... and expected0.npy...
    (et-compile's --bundle layout)."""
    root = os.path.join(folder, "bundle")
    for index, case in enumerate(cases):
        if not isinstance(case, (tuple, list)) or len(case) != 2:
            raise Error("etch.compile: each bundle case is a pair (inputs, expected outputs)")
        case_folder = os.path.join(root, f"case{index:04d}")
        os.makedirs(case_folder)
        _save_arrays(case_folder, "input", case[0])
        _save_arrays(case_folder, "expected", case[1])
    if not os.path.isdir(root):
        raise Error("etch.compile: bundle holds no cases")
    return root


def compile(model, example_inputs=None, *, targets=None, quantize=None,
            calibration_data=None, target_options=None, bundle=None,
            external_weights=None):
    """Compiles model -- a torch.export.ExportedProgram, an nn.Module
    (exported with example_inputs) or the path of a .pt2 / .onnx file; or a
    dict {method name: model} for a program of several methods (equal
    weights stored once, state buffers shared by name), example_inputs then
    a dict too -- into an etch.Program. targets: target names in priority order (None:
    et-compile's defaults); quantize: "int8", "int8-weight" or
    "int4-weight", as et-compile --quantize; calibration_data: samples (an
    input, or a tuple of inputs each) for int8; target_options:
    "target:name=value" strings; bundle: test cases stored in the program,
    each a pair (inputs, expected outputs), run by Program.verify();
    external_weights: a weights file path (et-compile --external-weights):
    the weights go there, kept with what the file already holds."""
    with tempfile.TemporaryDirectory(prefix="etch-compile-") as folder:
        if isinstance(model, dict):
            # One method per entry (et-compile --method NAME=MODEL).
            if not model:
                raise Error("etch.compile: a dict of models needs at least one method")
            inputs = example_inputs or {}
            models = [f"--method={name}=" + _model_path(each, inputs.get(name), folder,
                                                        f"method_{index}")
                      for index, (name, each) in enumerate(model.items())]
        else:
            models = [_model_path(model, example_inputs, folder)]
        output = os.path.join(folder, "program.etp")
        command = [_native.tool("et-compile")] + models + ["-o", output,
                                                           "--print-partition-summary"]
        if targets is not None:
            if isinstance(targets, str) or not targets:
                raise Error("etch.compile: targets is a list of target names, "
                            "like ['xnnpack', 'portable']")
            command.append("--targets=" + ",".join(targets))
        if quantize is not None:
            command.append(f"--quantize={quantize}")
        if calibration_data is not None:
            command.append("--calibration-data=" +
                           _write_calibration(calibration_data, folder))
        if bundle is not None:
            command.append("--bundle=" + _write_bundle(bundle, folder))
        for option in target_options or ():
            command.append(f"--target-option={option}")
        if external_weights is not None:
            external_weights = os.path.abspath(os.fspath(external_weights))
            command.append("--external-weights=" + external_weights)
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            message = run.stderr.strip() or \
                f"et-compile stopped with status {run.returncode} and no message"
            raise Error(message)
        with open(output, "rb") as file:
            return Program(file.read(), run.stdout, external_weights)
