#!/usr/bin/env python3
"""Packs a torch.export program spec into a .pt2 file for the importer's tests.

    make_pt2.py SPEC.json OUT.pt2 [--layout flat|archive] [--break KIND]

SPEC holds either the compact notation of graph_text.py or "program" (an ExportedProgram in the torch.export JSON schema),
"weights" and "constants" ({fqn: {"dtype": "float32", "shape": [...]}},
filled from a fixed seed). Boilerplate the importer ignores (opset_version,
module_call_graph, ...) is added when absent, and "tensor_values" entries may
be written as "f32[2,s0]" and are expanded to full TensorMeta objects.

--layout flat     torch <= 2.7: serialized_exported_program.json plus
                  serialized_state_dict.pt / serialized_constants.pt written
                  by torch.save (Debian's torch 1.13 writes the same zip format)
--layout archive  torch >= 2.8 PT2 archive: <root>/archive_format,
                  models/model.json, data/weights/model_weights_config.json and
                  raw weight files (two weights share one storage when the spec
                  says "view_of")
--break           writes a deliberately broken file: short-weight,
                  no-model-json, schema-major, not-zip, truncated
--reference DIR   also evaluates the graph on random float32 inputs and writes
                  input<N>.npy and expected<N>.npy: numpy formulas for the ops
                  listed in reference(), torch's own ATen op (this python's
                  torch 1.13) for any other
"""
import argparse
import copy
import io
import json
import os
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_text  # noqa: E402

DTYPES = {  # name -> (schema ScalarType, numpy dtype, torch dtype name)
    "float32": (7, np.float32, "float32"),
    "float64": (8, np.float64, "float64"),
    "float16": (6, np.float16, "float16"),
    "int64": (5, np.int64, "int64"),
    "int32": (4, np.int32, "int32"),
    "int8": (2, np.int8, "int8"),
    "uint8": (1, np.uint8, "uint8"),
    "bool": (12, np.bool_, "bool"),
}
SHORT = {"f32": 7, "f64": 8, "f16": 6, "i64": 5, "i32": 4, "i8": 2, "u8": 1,
         "b8": 12, "bf16": 13, "c64": 10, "x99": 99}


def sym(value):
    if isinstance(value, int):
        return {"as_int": value}
    return {"as_expr": {"expr_str": value, "hint": {"as_int": 2}}}


def tensor_meta(dtype_code, sizes):
    strides, step = [], 1
    for size in reversed(sizes):
        strides.insert(0, step if isinstance(size, int) else 1)
        step *= size if isinstance(size, int) else 1
    return {"dtype": dtype_code, "sizes": [sym(s) for s in sizes],
            "requires_grad": False, "device": {"type": "cpu", "index": None},
            "strides": [sym(s) for s in strides], "storage_offset": {"as_int": 0},
            "layout": 7}


def expand_meta(text):
    kind, dims = text.split("[", 1)
    dims = dims.rstrip("]")
    sizes = [int(d) if d.lstrip("-").isdigit() else d for d in dims.split(",") if d]
    return tensor_meta(SHORT[kind], sizes)


def make_arrays(specs, seed):
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, spec in specs.items():
        if "view_of" in spec:
            continue
        _, np_dtype, _ = DTYPES[spec["dtype"]]
        shape = spec["shape"]
        if np.issubdtype(np_dtype, np.floating):
            arrays[name] = rng.standard_normal(shape).astype(np_dtype)
        elif np_dtype == np.bool_:
            arrays[name] = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            arrays[name] = rng.integers(0, 10, shape).astype(np_dtype)
    for name, spec in specs.items():
        if "view_of" in spec:  # a transposed view sharing its base's storage
            arrays[name] = arrays[spec["view_of"]].T
    return arrays


def complete_program(program):
    program = copy.deepcopy(program)
    program.setdefault("schema_version", {"major": 8, "minor": 3})
    program.setdefault("opset_version", {"aten": 10})
    program.setdefault("range_constraints", {})
    program.setdefault("verifiers", [])
    program.setdefault("torch_version", "2.5.0")
    module = program["graph_module"]
    module.setdefault("module_call_graph", [])
    module.setdefault("metadata", {})
    graph = module["graph"]
    graph.setdefault("sym_int_values", {})
    graph.setdefault("sym_bool_values", {})
    graph.setdefault("is_single_tensor_return", False)
    graph.setdefault("custom_obj_values", {})
    values = graph.setdefault("tensor_values", {})
    for name, meta in list(values.items()):
        if isinstance(meta, str):
            values[name] = expand_meta(meta)
    for node in graph["nodes"]:
        node.setdefault("metadata", {})
        node.setdefault("is_hop_single_tensor_return", None)
        for inp in node["inputs"]:
            inp.setdefault("kind", 1)
    return program


def torch_save_bytes(tensors):
    import torch
    buffer = io.BytesIO()
    state = {name: torch.from_numpy(np.ascontiguousarray(a)) if not a.flags.c_contiguous
             else torch.from_numpy(a) for name, a in tensors.items()}
    # Keep transposed views as views so the reader must honour strides.
    for name, a in tensors.items():
        if not a.flags.c_contiguous:
            state[name] = torch.from_numpy(np.ascontiguousarray(a.T)).t()
    torch.save(state, buffer)
    return buffer.getvalue()


def write_flat(out, program_json, weights, constants):
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("serialized_exported_program.json", program_json)
        archive.writestr("serialized_state_dict.pt", torch_save_bytes(weights))
        archive.writestr("serialized_constants.pt", torch_save_bytes(constants))
        archive.writestr("version", "8.3")


def payload_config(arrays, specs, prefix, breaks):
    config, files, bases = {}, {}, {}
    for name, array in arrays.items():
        spec = specs[name]
        code = DTYPES[spec["dtype"]][0]
        if "view_of" in spec:
            base = bases[spec["view_of"]]
            sizes = list(array.shape)
            strides = [s // array.itemsize for s in array.strides]
            meta = tensor_meta(code, sizes)
            meta["strides"] = [{"as_int": s} for s in strides]
            config[name] = {"path_name": base, "is_param": True, "use_pickle": False,
                            "tensor_meta": meta}
            continue
        path = f"{prefix}{len(files)}"
        data = np.ascontiguousarray(array).tobytes()
        if breaks == "short-weight" and not files:
            data = data[: len(data) // 2]
        files[path] = data
        bases[name] = path
        config[name] = {"path_name": path, "is_param": True, "use_pickle": False,
                        "tensor_meta": tensor_meta(code, list(array.shape))}
    return {"config": config}, files


def write_archive(out, program_json, weights, constants, specs, breaks):
    root = "model_pt2/"
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(root + "archive_format", "pt2")
        archive.writestr(root + "archive_version", "0")
        archive.writestr(root + "byteorder", "little")
        if breaks != "no-model-json":
            archive.writestr(root + "models/model.json", program_json)
        config, files = payload_config(weights, specs, "weight_", breaks)
        archive.writestr(root + "data/weights/model_weights_config.json",
                         json.dumps(config))
        for path, data in files.items():
            archive.writestr(root + "data/weights/" + path, data)
        config, files = payload_config(constants, specs, "tensor_", None)
        archive.writestr(root + "data/constants/model_constants_config.json",
                         json.dumps(config))
        for path, data in files.items():
            archive.writestr(root + "data/constants/" + path, data)


SCALAR_TYPE_UINT8 = 1  # torch.export's code for torch.uint8


def reference(program, weights, constants, seed=3):
    """Evaluates the graph with numpy for the ops e2e tests use; returns
    (inputs, outputs) of the user inputs/outputs."""
    graph = program["graph_module"]["graph"]
    signature = program["graph_module"]["signature"]
    values, inputs = {}, []
    rng = np.random.default_rng(seed)
    for spec in signature["input_specs"]:
        kind, body = next(iter(spec.items()))
        if kind == "user_input":
            name = body["arg"]["as_tensor"]["name"]
            meta = graph["tensor_values"][name]
            shape = [s["as_int"] for s in meta["sizes"]]
            values[name] = rng.standard_normal(shape).astype(np.float32)
            inputs.append(values[name])
        elif kind == "parameter":
            values[body["arg"]["name"]] = weights[body["parameter_name"]]
        elif kind == "buffer":
            values[body["arg"]["name"]] = weights[body["buffer_name"]]
        elif kind == "tensor_constant":
            values[body["arg"]["name"]] = constants[body["tensor_constant_name"]]

    def arg(node, name, default=None):
        for item in node["inputs"]:
            if item["name"] == name:
                kind, payload = next(iter(item["arg"].items()))
                return values[payload["name"]] if kind == "as_tensor" else payload
        return default

    def choose_qparams(node, symmetric):
        x = arg(node, "input")
        qmin, qmax = arg(node, "quant_min"), arg(node, "quant_max")
        low = np.float32(min(x.min(), 0))
        high = np.float32(max(x.max(), 0))
        if symmetric:
            scale = np.float32(max(-low, high) / np.float32((qmax - qmin) / 2))
        else:
            scale = np.float32((high - low) / np.float32(qmax - qmin))
        scale = max(scale, np.float32(arg(node, "eps")))
        if symmetric:
            zero_point = 128 if arg(node, "dtype") == SCALAR_TYPE_UINT8 else 0
        else:
            zero_point = np.clip(qmin - np.round(low / scale), qmin, qmax)
        return np.array([scale]), np.array([zero_point])

    ops = {
        "t": lambda n: arg(n, "self").T,
        "relu": lambda n: np.maximum(arg(n, "self"), 0),
        "sigmoid": lambda n: 1 / (1 + np.exp(-arg(n, "self"))),
        "addmm": lambda n: arg(n, "beta", 1) * arg(n, "self") +
                           arg(n, "alpha", 1) * (arg(n, "mat1") @ arg(n, "mat2")),
        "linear": lambda n: arg(n, "input") @ arg(n, "weight").T +
                            (arg(n, "bias") if isinstance(arg(n, "bias"), np.ndarray) else 0),
        "add": lambda n: arg(n, "self") + arg(n, "other"),
        "mul": lambda n: arg(n, "self") * arg(n, "other"),
        "view": lambda n: arg(n, "self").reshape(arg(n, "size")),
        "permute": lambda n: arg(n, "self").transpose(arg(n, "dims")),
        "leaky_relu": lambda n: np.where(arg(n, "self") > 0, arg(n, "self"),
                                         arg(n, "negative_slope", 0.01) * arg(n, "self")),
        "elu": lambda n: arg(n, "scale", 1) * np.where(
            arg(n, "self") > 0, arg(n, "self"),
            arg(n, "alpha", 1) * np.expm1(arg(n, "input_scale", 1) * arg(n, "self"))),
        "rsub": lambda n: arg(n, "other") - arg(n, "alpha", 1) * arg(n, "self"),
        "full": lambda n: np.full(arg(n, "size"), arg(n, "fill_value")),
        "zeros_like": lambda n: np.zeros_like(arg(n, "self")),
        "scalar_tensor": lambda n: np.array(arg(n, "s")),
        "arange": lambda n: np.arange(arg(n, "start", 0), arg(n, "end"),
                                      arg(n, "step", 1)),
        # PT2E's Q/DQ: float32 arithmetic, round half to even.
        "quantize_per_tensor": lambda n: np.clip(
            np.round(arg(n, "input") / np.float32(arg(n, "scale"))) + arg(n, "zero_point"),
            arg(n, "quant_min"), arg(n, "quant_max")),
        # Dynamic quantization (determine_qparams): a range holding 0, the
        # scale at least eps, an affine or a symmetric zero point.
        "choose_qparams": lambda n: choose_qparams(n, symmetric=False),
        "choose_qparams_symmetric": lambda n: choose_qparams(n, symmetric=True),
        "dequantize_per_tensor": lambda n: (
            (arg(n, "input").astype(np.float64) - arg(n, "zero_point")).astype(np.float32)
            * np.float32(arg(n, "scale"))),
    }
    # ExecuTorch's Edge spelling of view ops computes the same values.
    for view in ("view", "permute"):
        ops[view + "_copy"] = ops[view]
    # torch.export's dtype codes -> numpy's names (numpy has no bfloat16).
    numpy_dtypes = {code: name for name, code in graph_text.SCALAR_TYPES.items()
                    if name != "bfloat16"}

    def torch_reference(node):
        """Any other ATen op: run by this python's torch (1.13), each tensor
        in the dtype the graph records for it."""
        try:
            import torch
        except ImportError:
            sys.exit(f"make_pt2.py: no numpy reference for {node['target']}")
        _, _, _, name, overload = node["target"].split(".")

        def tensor(name):
            dtype = numpy_dtypes[graph["tensor_values"][name]["dtype"]]
            return torch.from_numpy(np.asarray(values[name]).astype(dtype))

        kwargs = {}
        for item in node["inputs"]:
            kind, payload = next(iter(item["arg"].items()))
            if kind == "as_tensor":
                kwargs[item["name"]] = tensor(payload["name"])
            elif kind == "as_tensors":
                kwargs[item["name"]] = [tensor(t["name"]) for t in payload]
            elif kind == "as_none":
                kwargs[item["name"]] = None
            elif kind == "as_scalar_type":
                kwargs[item["name"]] = getattr(torch, numpy_dtypes[payload])
            else:
                kwargs[item["name"]] = payload
        op = getattr(getattr(torch.ops.aten, name), overload)
        # The schema's positional arguments in order (omitted ones take their
        # defaults; OpOverload's own first parameter is called self), the
        # keyword-only ones by name.
        positional, keywords = [], {}
        for argument in op._schema.arguments:
            if argument.kwarg_only:
                if argument.name in kwargs:
                    keywords[argument.name] = kwargs[argument.name]
            elif argument.name in kwargs:
                positional.append(kwargs[argument.name])
            else:
                positional.append(argument.default_value)
        result = op(*positional, **keywords)
        results = result if isinstance(result, (tuple, list)) else (result,)
        return tuple(r.numpy() for r in results)

    for node in graph["nodes"]:
        op = node["target"].split(".")[3]
        torch_op = op not in ops
        results = torch_reference(node) if torch_op else ops[op](node)
        output = node["outputs"][0]
        if "as_tensors" in output:  # a list output: one result per entry
            names = [entry["name"] for entry in output["as_tensors"]]
        else:
            names = [entry["as_tensor"]["name"] for entry in node["outputs"]]
        if len(names) == 1 and not torch_op:
            results = (results,)
        for name, result in zip(names, results):
            values[name] = result if torch_op else np.asarray(result, dtype=np.float32)
    outputs = [values[spec["user_output"]["arg"]["as_tensor"]["name"]]
               for spec in signature["output_specs"] if "user_output" in spec]
    return inputs, outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("out")
    parser.add_argument("--layout", choices=["flat", "archive"], default="archive")
    parser.add_argument("--break", dest="breaks",
                        choices=["short-weight", "no-model-json", "schema-major",
                                 "not-zip", "truncated"])
    parser.add_argument("--reference", metavar="DIR",
                        help="also write input<N>.npy and expected<N>.npy "
                             "(numpy, or torch's ATen ops)")
    args = parser.parse_args()
    spec = json.load(open(args.spec))
    if "nodes" in spec:  # the compact notation (graph_text.py)
        spec = graph_text.expand(spec)
    program = complete_program(spec["program"])
    if args.breaks == "schema-major":
        program["schema_version"] = {"major": 7, "minor": 1}
    program_json = json.dumps(program)
    weight_specs = spec.get("weights", {})
    constant_specs = spec.get("constants", {})
    weights = make_arrays(weight_specs, 1)
    constants = make_arrays(constant_specs, 2)
    if args.breaks == "not-zip":
        open(args.out, "wb").write(b"this is not a zip archive\n")
        return 0
    if args.layout == "flat":
        write_flat(args.out, program_json, weights, constants)
    else:
        write_archive(args.out, program_json, weights, constants,
                      {**weight_specs, **constant_specs}, args.breaks)
    if args.reference:
        os.makedirs(args.reference, exist_ok=True)
        inputs, outputs = reference(program, weights, constants)
        for i, array in enumerate(inputs):
            np.save(os.path.join(args.reference, f"input{i}.npy"), array)
        for i, array in enumerate(outputs):
            np.save(os.path.join(args.reference, f"expected{i}.npy"), array)
    if args.breaks == "truncated":
        data = open(args.out, "rb").read()
        open(args.out, "wb").write(data[: len(data) // 2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
