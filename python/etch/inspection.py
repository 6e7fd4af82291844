"""etch.inspect: where an etch program's numbers part from the producer's.

    report = etch.inspect(exported_program, (image,), targets=["portable"])
    print(report)                        # one row per value, in program order
    row = report.first_divergence(1e-4)  # the first value past 1e-4, or None

The program runs with et-run --dump-intermediates; torch runs the same
exported graph node by node (an FX interpreter over ExportedProgram.module(),
in float32 and again in float64 for torch's own rounding error), ONNX models
run in onnxruntime with every node output made a graph output. Values are
aligned by the program's debug handles: each instruction output names the
producer node (and result) that computes it. A value computed by several
instructions (an op the importer decomposed) is compared where it is
complete, at the last of them. Inside a delegate only its outputs can be
compared; compile for ["portable"] to see every op.
"""
import json
import math
import os
import subprocess
import tempfile

import numpy as np

from . import _native
from ._error import Error
from .compiler import compile as _compile

_COLUMNS = ("instruction", "node", "op", "target", "shape", "rel_l2", "max_abs", "snr_db",
            "torch_fp32_error", "source")


class Report:
    """rows: one dict per compared value, in program order, with keys
    instruction, node, op, target, shape, dtype, rel_l2, max_abs, snr_db,
    torch_fp32_error (torch's float32 run against its float64 run at that
    node, how sensitive the value is to rounding; None where not measured) and source (the producer's source line)."""

    def __init__(self, rows, skipped):
        self.rows, self.skipped = rows, skipped

    def first_divergence(self, threshold):
        """The first row whose rel_l2 is past threshold, or None."""
        return next((row for row in self.rows if row["rel_l2"] > threshold), None)

    def worst(self):
        return max(self.rows, key=lambda row: row["rel_l2"], default=None)

    def __str__(self):
        def cell(row, key):
            value = row[key]
            if value is None:
                return "-"
            if isinstance(value, float):
                return f"{value:.3g}"
            if isinstance(value, list):
                return "x".join(map(str, value)) or "scalar"
            return str(value)
        def fit(text, key):  # a path keeps its end: the file and line
            if len(text) <= 40:
                return text
            return "..." + text[-37:] if key == "source" else text[:40]
        table = [_COLUMNS] + [tuple(fit(cell(row, key), key) for key in _COLUMNS)
                              for row in self.rows]
        widths = [max(len(line[i]) for line in table) for i in range(len(_COLUMNS))]
        lines = ["  ".join(text.ljust(width) for text, width in zip(line, widths)).rstrip()
                 for line in table]
        if self.skipped:
            lines.append(f"({len(self.skipped)} values without a producer value to compare: "
                         + ", ".join(self.skipped[:6]) + (", ..." if len(self.skipped) > 6 else "")
                         + ")")
        return "\n".join(lines)

    def __repr__(self):
        return f"<etch.Report, {len(self.rows)} rows>"


def _errors(actual, expected):
    actual = np.asarray(actual, np.float64).ravel()
    expected = np.asarray(expected, np.float64).ravel()
    finite = np.isfinite(actual) & np.isfinite(expected)
    same_specials = np.array_equal(actual[~finite], expected[~finite], equal_nan=True)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf where not finite
        difference = np.where(finite, actual - expected, 0.0)
    noise = float(np.dot(difference, difference))
    signal = float(np.dot(np.where(finite, expected, 0.0), np.where(finite, expected, 0.0)))
    rel_l2 = math.sqrt(noise / signal) if signal > 0 else math.sqrt(noise)
    if not same_specials:
        rel_l2 = math.inf  # a NaN or infinity where the producer has none
    max_abs = float(np.max(np.abs(difference))) if difference.size else 0.0
    snr_db = math.inf if noise == 0 else (10 * math.log10(signal / noise) if signal > 0
                                           else -math.inf)
    return rel_l2, max_abs, snr_db


def _as_numpy(value):
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        return value.numpy()
    return np.asarray(value)


def _run_program(program, inputs, folder):
    path = os.path.join(folder, "program.etp")
    program.save(path)
    command = [_native.tool("et-run"), path, "--dump-intermediates",
               os.path.join(folder, "dump"), "--output-dir", os.path.join(folder, "out")]
    if program.weights_path:
        command += ["--weights", program.weights_path]
    for index, value in enumerate(inputs):
        file = os.path.join(folder, f"input{index}.npy")
        np.save(file, np.ascontiguousarray(_as_numpy(value)))
        command += ["--input", file]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise Error(run.stderr.strip() or f"et-run stopped with status {run.returncode}")
    dump = os.path.join(folder, "dump")
    with open(os.path.join(dump, "index.json")) as file:
        entries = json.load(file)
    for entry in entries:
        entry["value"] = np.load(os.path.join(dump, entry["file"]))
    return entries


def _torch_values(exported, inputs):
    """{node name: value} for every node of the exported graph, in float32
    as exported and in float64 (None where that cannot run), plus the
    getitem nodes' sources: {getitem name: (producer name, index)}."""
    import torch
    import torch.fx

    module = exported.module()

    class Recorder(torch.fx.Interpreter):
        def __init__(self, gm, widen):
            super().__init__(gm)
            self.values, self.widen = {}, widen

        def _wide(self, value):
            if isinstance(value, torch.Tensor) and value.dtype == torch.float32:
                return value.double()
            if value is torch.float32:
                return torch.float64
            return value

        def call_function(self, target, args, kwargs):
            if not self.widen:
                return super().call_function(target, args, kwargs)
            wide = torch.utils._pytree.tree_map(self._wide, (args, kwargs))
            try:
                return super().call_function(target, *wide)
            except Exception:  # an op that takes float32 only: run it so
                narrow = torch.utils._pytree.tree_map(
                    lambda v: v.float() if isinstance(v, torch.Tensor) and
                    v.dtype == torch.float64 else v, (args, kwargs))
                return torch.utils._pytree.tree_map(
                    self._wide, super().call_function(target, *narrow))

        def run_node(self, node):
            result = super().run_node(node)
            # A copy: a later in-place op (relu_, hardswish_) would change it.
            self.values[node.name] = torch.utils._pytree.tree_map(
                lambda v: v.clone() if isinstance(v, torch.Tensor) else v, result)
            return result

    getitems = {}
    for node in module.graph.nodes:
        if node.op == "call_function" and getattr(node.target, "__name__", "") == "getitem":
            getitems[node.name] = (node.args[0].name, node.args[1])
    tensors = [value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
               for value in inputs]
    with torch.no_grad():
        narrow = Recorder(module, widen=False)
        narrow.run(*tensors)
        try:
            wide = Recorder(module, widen=True)
            wide.run(*[t.double() if t.dtype == torch.float32 else t for t in tensors])
            wide_values = wide.values
        except Exception:
            wide_values = None
    return narrow.values, wide_values, getitems


def _pick(values, getitems, node, result):
    """The value of result `result` of `node`, or None."""
    if values is None:
        return None
    if node in getitems:  # a tuple's element: the same tuple, that index
        producer, index = getitems[node]
        if result == 0:
            return values.get(node)
        node, result = producer, index + result
    value = values.get(node)
    if isinstance(value, (tuple, list)):
        return value[result] if result < len(value) else None
    return value if result == 0 else None


def _onnx_values(path, inputs):
    try:
        import onnx
        import onnxruntime
    except ImportError as error:
        raise Error(f"etch.inspect: an ONNX model is compared with onnxruntime, which this "
                    f"Python cannot import ({error})") from error
    model = onnx.load(path)
    known = {output.name for output in model.graph.output}
    by_node = {}
    for node in model.graph.node:
        by_node[node.name] = list(node.output)
        for name in node.output:
            if name and name not in known:
                model.graph.output.append(onnx.ValueInfoProto(name=name))
                known.add(name)
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    feeds = {arg.name: _as_numpy(value) for arg, value in zip(session.get_inputs(), inputs)}
    names = [output.name for output in session.get_outputs()]
    computed = dict(zip(names, session.run(names, feeds)))
    values = {node: [computed.get(name) for name in outputs]
              for node, outputs in by_node.items()}
    return values, None, {}


def inspect(model, inputs, targets=None, **compile_options):
    """Compiles `model` (a torch.export.ExportedProgram, an nn.Module, or the
    path of a .pt2 or .onnx file) with etch.compile(model, inputs,
    targets=targets, **compile_options), runs it on `inputs` with every
    intermediate value kept, and compares each value with the producer's
    (torch's FX interpreter over the same graph; onnxruntime for ONNX).
    Returns a Report."""
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    path = os.fspath(model) if isinstance(model, (str, os.PathLike)) else None
    if path is not None and path.endswith(".onnx"):
        reference = lambda: _onnx_values(path, inputs)  # noqa: E731
    else:
        import torch
        if path is not None:
            try:  # PT2E graphs: the quantized_decomposed ops must be known
                import torch.ao.quantization.fx._decomposed  # noqa: F401
            except ImportError:
                pass
            model = torch.export.load(path)
        elif isinstance(model, torch.nn.Module):
            try:
                model = torch.export.export(model, tuple(
                    value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
                    for value in inputs))
            except Exception as error:  # torch's own message, as etch.Error
                raise Error(f"etch.inspect: torch.export.export failed: {error}") from error
        exported = model
        reference = lambda: _torch_values(exported, inputs)  # noqa: E731
    program = _compile(path if path is not None else model, tuple(inputs),
                       targets=targets, **compile_options)
    with tempfile.TemporaryDirectory(prefix="etch-inspect-") as folder:
        entries = _run_program(program, inputs, folder)
    values, wide_values, getitems = reference()
    return _report(entries, values, wide_values, getitems)


def _report(entries, values, wide_values, getitems):
    instructions = [entry for entry in entries if entry["kind"] == "instruction"]
    # An op the importer split into several instructions names the same
    # producer value at each; it is complete after the last.
    last = {}
    for position, entry in enumerate(instructions):
        producer = entry.get("output_node", "").split("+")[-1]
        last[(producer, entry.get("output_result", 0))] = position
    rows, skipped = [], []
    for position, entry in enumerate(instructions):
        producer = entry.get("output_node", "").split("+")[-1]
        key = (producer, entry.get("output_result", 0))
        if not producer:
            skipped.append(f"instruction {entry['instruction']} (no debug handle)")
            continue
        if last[key] != position:
            continue
        expected = _pick(values, getitems, *key)
        actual = entry["value"]
        if expected is None:
            skipped.append(producer)
            continue
        expected = _as_numpy(expected)
        if list(expected.shape) != list(actual.shape):
            skipped.append(f"{producer} (shape {list(actual.shape)}, the producer's "
                           f"{list(expected.shape)})")
            continue
        rel_l2, max_abs, snr_db = _errors(actual, expected)
        wide = _pick(wide_values, getitems, *key)
        floor = None
        if wide is not None and expected.dtype != np.bool_:
            floor = _errors(expected, _as_numpy(wide))[0]
        nodes = entry.get("nodes", [])
        sources = entry.get("sources", [])
        full = entry.get("output_node", "")
        source = sources[nodes.index(full)] if full in nodes else ""
        op = entry["call"]
        if not op.startswith("edge.") and full in nodes:
            op = entry["ops"][nodes.index(full)]
        rows.append({"instruction": entry["instruction"], "node": full, "op": op,
                     "target": "kernels" if entry["call"].startswith("edge.") else entry["call"],
                     "shape": list(actual.shape), "dtype": str(actual.dtype),
                     "rel_l2": rel_l2, "max_abs": max_abs, "snr_db": snr_db,
                     "torch_fp32_error": floor, "source": source})
    return Report(rows, skipped)
