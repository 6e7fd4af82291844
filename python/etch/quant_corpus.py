#!/usr/bin/env python3
"""Writes quantized programs the way real producers write them, with the
producers' own quantized outputs as references.

Runs with a real torch 2.x inside the test chroots (scripts/torch-run.sh):

  pt2e_*    torch 2.6: torch.ao's prepare_pt2e / convert_pt2e with the
            XNNPACKQuantizer (calibrated on seeded random inputs; the
            dynamic MLP chooses its activations' parameters per input), then
            torch.export.save of export() and of run_decompositions().
  qdq_*     torch 2.14: modules written with torch.ops.quantized_decomposed
            (torch 2.14 has no PT2E quantizers; torchao is not in Debian).
  ort_*     onnxruntime's quantize_static (QDQ, int8) of an fp32 ONNX file
            given with --onnx (the host's torch 1.13 exports it); its
            reference is onnxruntime's int8 run with exact integer sums on
            every CPU: without VNNI its u8 x s8 kernels add pairs of
            products in saturating 16 bits (mobilenet_v2 moved by 8.9e-2 on
            an AVX2 CPU), so the reference session sets
            session.x64quantprecision, which makes them widen first; it
            then equals the VNNI CPUs' output.

For each model NAME: NAME_export.pt2 and NAME_decomposed.pt2 (or
NAME_qdq.onnx), NAME_inK.npy and NAME_outK.npy: the quantized model's own
outputs (torch's converted module, onnxruntime's int8 run), and
NAME_fp32_outK.npy: the float model's outputs (how far int8 itself is).

    quant_corpus.py --out DIR --models a,b [--onnx FILE]
"""
import argparse
import copy
import os
import sys

import numpy as np

try:
    # Before torch: Debian sid's onnx segfaults in shape inference when
    # libtorch was loaded first (clashing symbols).
    import onnx  # noqa: F401
except ImportError:
    pass
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.each_model import make_each  # noqa: E402
from etch.reinit import SEED, reinit_weights  # noqa: E402

CALIBRATION_BATCHES = 8
TEST_INPUTS = 4


def seeded_inputs(shape, count, offset):
    generator = torch.Generator().manual_seed(SEED + offset)
    return [torch.randn(shape, generator=generator) for _ in range(count)]


class SmallCnn(torch.nn.Module):
    """Conv/ReLU, residual add, pooling, linear: XNNPACKQuantizer's patterns."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = x + torch.nn.functional.hardtanh(self.conv2(x), 0.0, 6.0)
        x = torch.nn.functional.max_pool2d(self.dw(x), 2)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def torchvision_model(name):
    import torchvision
    return reinit_weights(getattr(torchvision.models, name)(weights=None))


class SmallMlp(torch.nn.Module):
    """Linear/ReLU/linear: what dynamic quantization annotates."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def pt2e(model, shape, per_channel, dynamic=False):
    """Quantizes `model` the PT2E way and returns the converted module
    (dynamic: activations' parameters chosen at run time per input)."""
    from torch.ao.quantization.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torch.ao.quantization.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    example = (seeded_inputs(shape, 1, 0)[0],)
    # A copy: preparing folds batch norms into the captured weights, and the
    # float model stays the fp32 reference.
    captured = torch.export.export_for_training(copy.deepcopy(model), example).module()
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=per_channel,
                                          is_dynamic=dynamic))
    prepared = prepare_pt2e(captured, quantizer)
    for batch in seeded_inputs(shape, CALIBRATION_BATCHES, 100):
        prepared(batch)
    return convert_pt2e(prepared), model


class HandWrittenQdq(torch.nn.Module):
    """Q/DQ written by hand with torch 2.14's quantized_decomposed ops: int8
    per-channel conv weights, a uint8 activation, an int32 bias, a per-tensor
    linear weight, the `.tensor` overloads."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(SEED)
        weight = torch.randn(8, 3, 3, 3, generator=g) * 0.3
        self.register_buffer("w_scales", weight.abs().amax((1, 2, 3)) / 127)
        self.register_buffer("w_zero_points", torch.zeros(8, dtype=torch.int64))
        self.register_buffer("w_q", torch.clamp(torch.round(
            weight / self.w_scales[:, None, None, None]), -127, 127).to(torch.int8))
        self.register_buffer("bias_q", torch.randint(-500, 500, (8,), generator=g,
                                                     dtype=torch.int32))
        fc = torch.randn(5, 8, generator=g) * 0.2
        self.fc_scale = float(fc.abs().max() / 127)
        self.register_buffer("fc_q", torch.clamp(torch.round(fc / self.fc_scale),
                                                 -127, 127).to(torch.int8))
        self.register_buffer("act_scale", torch.tensor([0.02]))
        self.register_buffer("act_zero_point", torch.tensor([128]))

    def forward(self, x):
        import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers the ops)
        ops = torch.ops.quantized_decomposed
        x = ops.dequantize_per_tensor(ops.quantize_per_tensor(
            x, 0.03, -5, -128, 127, torch.int8), 0.03, -5, -128, 127, torch.int8)
        w = ops.dequantize_per_channel(self.w_q, self.w_scales, self.w_zero_points,
                                       0, -127, 127, torch.int8)
        b = ops.dequantize_per_tensor(self.bias_q, 0.03 * 0.002, 0,
                                      -2**31, 2**31 - 1, torch.int32)
        y = torch.relu(torch.nn.functional.conv2d(x, w, b, padding=1))
        y = ops.quantize_per_tensor.tensor(y, self.act_scale, self.act_zero_point,
                                           0, 255, torch.uint8)
        y = ops.dequantize_per_tensor.tensor(y, self.act_scale, self.act_zero_point,
                                             0, 255, torch.uint8)
        y = y.mean((2, 3))
        fc = ops.dequantize_per_tensor(self.fc_q, self.fc_scale, 0, -127, 127,
                                       torch.int8)
        return torch.nn.functional.linear(y, fc)


# name -> (build the quantized module, input shape)
PT2E_MODELS = {
    "pt2e_small_cnn": (lambda: pt2e(reinit_weights(SmallCnn()), (1, 3, 16, 16), True),
                       (1, 3, 16, 16)),
    "pt2e_small_cnn_per_tensor": (
        lambda: pt2e(reinit_weights(SmallCnn()), (1, 3, 16, 16), False), (1, 3, 16, 16)),
    "pt2e_mobilenet_v2": (
        lambda: pt2e(torchvision_model("mobilenet_v2"), (1, 3, 224, 224), True),
        (1, 3, 224, 224)),
    "pt2e_resnet18": (lambda: pt2e(torchvision_model("resnet18"), (1, 3, 224, 224), True),
                      (1, 3, 224, 224)),
    "pt2e_mobilenet_v3_small": (
        lambda: pt2e(torchvision_model("mobilenet_v3_small"), (1, 3, 224, 224), True),
        (1, 3, 224, 224)),
    "pt2e_dynamic_mlp": (
        lambda: pt2e(reinit_weights(SmallMlp()), (4, 32), True, dynamic=True), (4, 32)),
    "qdq_module": (lambda: (HandWrittenQdq().eval(), None), (1, 3, 12, 12)),
}


def save(out, name, key, array):
    np.save(os.path.join(out, f"{name}_{key}.npy"), array)


def export_pt2(name, out):
    build, shape = PT2E_MODELS[name]
    module, float_model = build()
    inputs = seeded_inputs(shape, TEST_INPUTS, 1000)
    with torch.no_grad():
        for k, x in enumerate(inputs):
            save(out, name, f"in{k}", x.numpy())
            save(out, name, f"out{k}", module(x).numpy())
            if float_model is not None:
                save(out, name, f"fp32_out{k}", float_model(x).numpy())
    program = torch.export.export(module, (inputs[0],))
    torch.export.save(program, os.path.join(out, f"{name}_export.pt2"))
    torch.export.save(program.run_decompositions(),
                      os.path.join(out, f"{name}_decomposed.pt2"))


class RandomCalibration:
    """onnxruntime's CalibrationDataReader over seeded random inputs."""

    def __init__(self, input_name, shape):
        self.batches = iter({input_name: x.numpy()}
                            for x in seeded_inputs(shape, CALIBRATION_BATCHES, 100))

    def get_next(self):
        return next(self.batches, None)

    def rewind(self):
        pass


def quantize_onnx(name, out, fp32_path):
    import onnx
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    graph = onnx.load(fp32_path).graph
    input_name = graph.input[0].name
    shape = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    prepared = os.path.join(out, f".{name}_pre.onnx")
    quant_pre_process(fp32_path, prepared)
    target = os.path.join(out, f"{name}_qdq.onnx")
    # onnxruntime's defaults (QDQ, int8 activations, int8 symmetric weights
    # per tensor), spelled out.
    quantize_static(prepared, target, RandomCalibration(input_name, shape),
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    os.remove(prepared)
    exact = onnxruntime.SessionOptions()
    exact.add_session_config_entry("session.x64quantprecision", "1")
    session = onnxruntime.InferenceSession(target, exact,
                                           providers=["CPUExecutionProvider"])
    fp32 = onnxruntime.InferenceSession(fp32_path, providers=["CPUExecutionProvider"])
    for k, x in enumerate(seeded_inputs(shape, TEST_INPUTS, 1000)):
        save(out, name, f"in{k}", x.numpy())
        save(out, name, f"out{k}", session.run(None, {input_name: x.numpy()})[0])
        save(out, name, f"fp32_out{k}", fp32.run(None, {input_name: x.numpy()})[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--onnx", help="fp32 ONNX file for ort_* models")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    def make(name):
        if name.startswith("ort_"):
            quantize_onnx(name, args.out, args.onnx)
        else:
            export_pt2(name, args.out)
        return f"written with torch {torch.__version__}"
    return 1 if make_each(args.models.split(","), make) else 0


if __name__ == "__main__":
    sys.exit(main())
