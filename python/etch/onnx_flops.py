#!/usr/bin/env python3
"""Counts the multiply-adds of an ONNX model's convolutions and matrix
products (Conv, ConvTranspose, Gemm, MatMul), from onnx's shape inference.

    onnx_flops.py MODEL.onnx

Prints the floating-point operations (2 per multiply-add) as one number:
the work the benchmarks divide by a time to get GFLOP/s. Other operators
(pooling, elementwise) are not counted; for the corpus CNNs they are a few
percent of the arithmetic.
"""
import sys

import numpy as np
import onnx
from onnx import shape_inference


def dims(value_info):
    shape = value_info.type.tensor_type.shape
    if any(not d.HasField("dim_value") for d in shape.dim):
        return None
    return [d.dim_value for d in shape.dim]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: onnx_flops.py MODEL.onnx")
    model = shape_inference.infer_shapes(onnx.load(sys.argv[1]))
    graph = model.graph
    shapes = {}
    for info in list(graph.value_info) + list(graph.input) + list(graph.output):
        shapes[info.name] = dims(info)
    for init in graph.initializer:
        shapes[init.name] = list(init.dims)
    macs = 0
    for node in graph.node:
        if node.op_type in ("Conv", "ConvTranspose"):
            # Conv: each output element sums weight[1:] products (weight
            # [out, in / groups, k...]); ConvTranspose: each input element
            # meets weight[1:] (weight [in, out / groups, k...]).
            weight = shapes.get(node.input[1])
            per = shapes.get(node.output[0] if node.op_type == "Conv" else node.input[0])
            if weight and per:
                macs += int(np.prod(per)) * int(np.prod(weight[1:]))
        elif node.op_type in ("Gemm", "MatMul"):
            a, out = shapes.get(node.input[0]), shapes.get(node.output[0])
            if a and out:
                transposed = any(attr.name == "transA" and attr.i for attr in node.attribute)
                k = a[-2] if transposed and len(a) >= 2 else a[-1]
                macs += int(np.prod(out)) * k
    print(2 * macs)


if __name__ == "__main__":
    main()
