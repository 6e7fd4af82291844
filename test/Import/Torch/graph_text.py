"""A compact notation for torch.export graphs in the importer's tests.

A spec with "graph" (instead of "program") is expanded here to the
torch.export JSON schema. Each node is one line, written like the printed
graph of an ExportedProgram, every argument named as the op's schema names it:

    {"inputs": {"x": "f32[2,3,8]"},
     "parameters": {"w": "f32[4,3,3]"},            # -> "weights", random
     "buffers": {"mean": "f32[4]"},                 # -> "weights", random
     "constants": {"c": "f32[4]"},                  # -> "constants", random
     "nodes": ["y: f32[2,4,6] = aten.conv1d.default(input=x, weight=w)",
               "n: sym = aten.sym_size.int(self=x, dim=0)",
               "[a: f32[1,4,6], b: f32[1,4,6]] = aten.split.Tensor(self=y, split_size=1)"],
     "outputs": ["y"],
     "mutations": {"mean": "new_mean"},             # buffer -> the value written
     "range_constraints": {"s0": [1, 8]},
     "stack_traces": {"y": "File \\"net.py\\", line 7, in forward"},
     "verifiers": ["TRAINING"]}

Argument values: a tensor's name; a sym value's name (as_sym_int); numbers,
True/False/None and strings; lists of those; torch.float32 and friends
(as_scalar_type); torch.contiguous_format (as_memory_format); float('inf'),
float('-inf') and float('nan') (as torch.export spells them). A list output
is written in brackets; a node whose target starts with "_operator." works on
sym values, one starting with "torch." keeps its target as written (functorch's
Python-level ops), and one written " = target(...)" has no outputs. Sizes may be symbols ("f32[s0,3]").
"""
import ast
import re

SCALAR_TYPES = {"uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
                "float16": 6, "float32": 7, "float64": 8, "bool": 12, "bfloat16": 13}
MEMORY_FORMATS = {"contiguous_format": 1, "preserve_format": 2, "channels_last": 3}
DTYPE_NAMES = {"f32": "float32", "f64": "float64", "f16": "float16", "i64": "int64",
               "i32": "int32", "i8": "int8", "u8": "uint8", "b8": "bool"}


def weight_spec(meta):
    kind, dims = meta.split("[", 1)
    return {"dtype": DTYPE_NAMES[kind], "shape": [int(d) for d in dims.rstrip("]").split(",") if d]}


class GraphText:
    def __init__(self, spec):
        self.spec = spec
        self.tensor_values = {}
        self.sym_values = set()

    def argument(self, node, text):
        if isinstance(node, ast.Name):
            if node.id in self.sym_values:
                return {"as_sym_int": {"as_name": node.id}}
            if node.id not in self.tensor_values:
                raise SystemExit(f"graph_text: '{node.id}' in '{text}' is not defined")
            return {"as_tensor": {"name": node.id}}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.argument(node.operand, text)
            kind, payload = next(iter(value.items()))
            return {kind: -payload}
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "float" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            # torch.export writes non-finite floats as strings
            spelled = {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}
            return {"as_float": spelled[str(node.args[0].value)]}
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return {"as_none": True}
            if isinstance(value, bool):
                return {"as_bool": value}
            if isinstance(value, int):
                return {"as_int": value}
            if isinstance(value, float):
                return {"as_float": value}
            return {"as_string": value}
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "torch":
            if node.attr in SCALAR_TYPES:
                return {"as_scalar_type": SCALAR_TYPES[node.attr]}
            if node.attr in MEMORY_FORMATS:
                return {"as_memory_format": MEMORY_FORMATS[node.attr]}
        if isinstance(node, ast.List):
            items = [self.argument(item, text) for item in node.elts]
            kinds = {next(iter(item)) for item in items}
            if not items or kinds == {"as_int"}:
                return {"as_ints": [item["as_int"] for item in items]}
            if kinds == {"as_float"} or kinds == {"as_float", "as_int"}:
                return {"as_floats": [float(next(iter(i.values()))) for i in items]}
            if kinds == {"as_bool"}:
                return {"as_bools": [item["as_bool"] for item in items]}
            if kinds == {"as_tensor"}:
                return {"as_tensors": [item["as_tensor"] for item in items]}
            if kinds <= {"as_int", "as_sym_int"}:
                return {"as_sym_ints": [item if "as_int" in item else item["as_sym_int"]
                                        for item in items]}
            if kinds <= {"as_tensor", "as_none"}:
                return {"as_optional_tensors": [
                    {"as_tensor": i["as_tensor"]} if "as_tensor" in i else {"as_none": True}
                    for i in items]}
        raise SystemExit(f"graph_text: cannot read argument '{ast.unparse(node)}' in '{text}'")

    def output(self, item):
        name, _, meta = (part.strip() for part in item.partition(":"))
        if meta == "sym":
            self.sym_values.add(name)
            return {"as_sym_int": {"as_name": name}}
        self.tensor_values[name] = meta
        return {"as_tensor": {"name": name}}

    def node(self, index, text):
        lhs, _, rhs = text.partition(" = ")
        call = ast.parse(rhs.strip(), mode="eval").body
        if not isinstance(call, ast.Call) or call.args:
            raise SystemExit(f"graph_text: '{text}' is not op(name=value, ...)")
        inputs = [{"name": k.arg, "arg": self.argument(k.value, text), "kind": 1}
                  for k in call.keywords]
        lhs = lhs.strip()
        items = re.findall(r"\w+\s*:\s*(?:sym|\w+\[[^\]]*\])", lhs)
        if lhs.startswith("["):
            outputs = [{"as_tensors": [self.output(item)["as_tensor"] for item in items]}]
        else:
            outputs = [self.output(item) for item in items]
        target = ast.unparse(call.func)
        if not target.startswith(("_operator.", "torch.")):
            target = "torch.ops." + target
        name = lhs.strip("[]").split(":")[0].strip()
        metadata = {}
        if name in self.spec.get("stack_traces", {}):
            metadata["stack_trace"] = self.spec["stack_traces"][name]
        return {"target": target, "name": name or f"node{index}", "inputs": inputs,
                "outputs": outputs, "metadata": metadata}

    def program(self):
        spec = self.spec
        input_specs = []
        for section, kind, field in (("parameters", "parameter", "parameter_name"),
                                     ("buffers", "buffer", "buffer_name"),
                                     ("constants", "tensor_constant", "tensor_constant_name")):
            for name, meta in spec.get(section, {}).items():
                self.tensor_values[name] = meta
                body = {"arg": {"name": name}, field: name}
                if kind == "buffer":
                    body["persistent"] = True
                input_specs.append({kind: body})
        for name, meta in spec["inputs"].items():
            self.tensor_values[name] = meta
            input_specs.append({"user_input": {"arg": {"as_tensor": {"name": name}}}})
        graph_inputs = [{"as_tensor": {"name": name}} for name in self.tensor_values]
        nodes = [self.node(i, text) for i, text in enumerate(spec["nodes"])]
        outputs, output_specs = [], []
        for buffer, name in spec.get("mutations", {}).items():
            outputs.append({"as_tensor": {"name": name}})
            output_specs.append({"buffer_mutation": {"arg": {"name": name},
                                                     "buffer_name": buffer}})
        for name in spec["outputs"]:
            outputs.append({"as_tensor": {"name": name}})
            output_specs.append({"user_output": {"arg": {"as_tensor": {"name": name}}}})
        ranges = {symbol: {"min_val": lo, "max_val": hi}
                  for symbol, (lo, hi) in spec.get("range_constraints", {}).items()}
        return {
            "graph_module": {
                "graph": {"inputs": graph_inputs,
                          "outputs": outputs, "nodes": nodes,
                          "tensor_values": self.tensor_values},
                "signature": {"input_specs": input_specs, "output_specs": output_specs},
            },
            "range_constraints": ranges,
            "verifiers": spec.get("verifiers", []),
        }


def expand(spec):
    """The spec make_pt2.py reads ("program", "weights", "constants")."""
    weights = {name: weight_spec(meta) for section in ("parameters", "buffers")
               for name, meta in spec.get(section, {}).items()}
    constants = {name: weight_spec(meta) for name, meta in spec.get("constants", {}).items()}
    return {"program": GraphText(spec).program(), "weights": weights, "constants": constants}
