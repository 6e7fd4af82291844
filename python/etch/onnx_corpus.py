#!/usr/bin/env python3
"""Writes the torchvision ONNX test corpus with eager reference outputs.

Runs on Debian's /usr/bin/python3 (torch 1.13 + torchvision); nothing is
downloaded: weights are re-initialised from a fixed seed (kaiming-normal for
convolutions and linears, so activations do not collapse to ~0).

    onnx_corpus.py --out DIR --model mobilenet_v2 --opset 13

writes DIR/mobilenet_v2_op13.onnx, DIR/mobilenet_v2_input.npy and
DIR/mobilenet_v2_output.npy. Files that exist are kept (the build tree caches
them); each is written to a temporary name and renamed, so concurrent runs
never see half a file.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.reinit import SEED, reinit_weights  # noqa: E402
import torchvision

def encoder_block():
    """A transformer encoder layer: MHA, layer norm, GELU MLP."""
    return torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                            activation="gelu", batch_first=True)


class UpsampleBlock(torch.nn.Module):
    """A decoder-style block: nearest x2, bilinear to a size, aligned bilinear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        x = torch.nn.functional.interpolate(torch.relu(self.conv1(x)), scale_factor=2,
                                            mode="nearest")
        x = torch.nn.functional.interpolate(self.conv2(x), size=(27, 33), mode="bilinear",
                                            align_corners=False)
        return torch.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear",
                                               align_corners=True)


def conv1d_block():
    """An audio-style 1-D stack: strided, dilated and transposed convolutions,
    max and average pooling over [N, C, W]."""
    return torch.nn.Sequential(
        torch.nn.Conv1d(2, 8, 5, stride=2, padding=2), torch.nn.ReLU(),
        torch.nn.MaxPool1d(3, stride=2, padding=1),
        torch.nn.Conv1d(8, 8, 3, dilation=2, padding=2, groups=2), torch.nn.GELU(),
        torch.nn.AvgPool1d(2),
        torch.nn.ConvTranspose1d(8, 4, 4, stride=2, padding=1))


class EinsumBlock(torch.nn.Module):
    """Einsum equations as attention and mixers write them: batched
    contractions, outer products, ellipses, implicit outputs, sums."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 6))
        self.v = torch.nn.Parameter(torch.randn(5))

    def forward(self, x):  # x: [2, 3, 5, 8]
        scores = torch.einsum("bhqd,bhkd->bhqk", x, x)          # [2, 3, 5, 5]
        mixed = torch.einsum("bhqk,bhkd->bqhd", scores, x)      # [2, 5, 3, 8]
        projected = torch.einsum("...d,de->...e", mixed, self.w)  # [2, 5, 3, 6]
        outer = torch.einsum("bqhe,q->bhqe", projected, self.v)
        total = torch.einsum("bhqe->be", outer)                 # [2, 6]
        return torch.einsum("be,bf", total, total)              # implicit: [e, f]


IMAGE = (1, 3, 224, 224)
# name -> (constructor, input shape)
class RecurrentBlock(torch.nn.Module):
    """Sequence models as torch exports them: a two-layer bidirectional
    LSTM (reverse directions), a bidirectional GRU (linear_before_reset) and
    a ReLU RNN, every final state read."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(16, 5, batch_first=True, bidirectional=True)
        self.rnn = torch.nn.RNN(10, 4, nonlinearity="relu", batch_first=True)

    def forward(self, x):  # x: [2, 7, 6]
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(y)
        w, hr = self.rnn(z)
        states = [s.permute(1, 0, 2).flatten(1) for s in (h, c, hg, hr)]
        return torch.cat([w.flatten(1)] + states, 1)


MODELS = {
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), IMAGE),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(weights=None), IMAGE),
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), IMAGE),
    # The extended corpus: other op mixes (concat, channel shuffle, SiLU/SE,
    # layer norm + exact GELU, attention).
    "squeezenet1_0": (lambda: torchvision.models.squeezenet1_0(weights=None), IMAGE),
    "shufflenet_v2_x0_5": (lambda: torchvision.models.shufflenet_v2_x0_5(weights=None), IMAGE),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(weights=None), IMAGE),
    "convnext_tiny": (lambda: torchvision.models.convnext_tiny(weights=None), IMAGE),
    # Concatenation-heavy: inception branches; DenseNet's growing lists with
    # a batch norm on every concatenation.
    "googlenet": (lambda: torchvision.models.googlenet(weights=None, aux_logits=False,
                                                       init_weights=False), IMAGE),
    "densenet121": (lambda: torchvision.models.densenet121(weights=None), IMAGE),
    "encoder_block": (encoder_block, (2, 16, 64)),
    # A small ViT: class token expanded by ConstantOfShape/Where shape
    # arithmetic, multi-head attention, layer norms.
    "vit_small": (lambda: torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10), (1, 3, 32, 32)),
    "upsample_block": (UpsampleBlock, (1, 3, 10, 12)),
    "conv1d_block": (conv1d_block, (2, 2, 64)),
    "einsum_block": (EinsumBlock, (2, 3, 5, 8)),
    "recurrent_block": (RecurrentBlock, (2, 7, 6)),
}


def build_model(name):
    torch.manual_seed(SEED)
    return reinit_weights(MODELS[name][0]())


def write_atomic(path, write):
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", required=True, choices=sorted(MODELS))
    parser.add_argument("--opset", type=int, required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    onnx_path = os.path.join(args.out, f"{args.model}_op{args.opset}.onnx")
    input_path = os.path.join(args.out, f"{args.model}_input.npy")
    output_path = os.path.join(args.out, f"{args.model}_output.npy")
    if all(os.path.exists(p) for p in (onnx_path, input_path, output_path)):
        return 0

    torch.set_num_threads(2)
    model = build_model(args.model)
    generator = torch.Generator().manual_seed(SEED + 1)
    example = torch.randn(MODELS[args.model][1], generator=generator)
    with torch.no_grad():
        expected = model(example)

    write_atomic(input_path, lambda p: np.save(open(p, "wb"), example.numpy()))
    write_atomic(output_path, lambda p: np.save(open(p, "wb"), expected.numpy()))
    write_atomic(
        onnx_path,
        lambda p: torch.onnx.export(
            model, example, p, opset_version=args.opset,
            input_names=["input"], output_names=["logits"],
            do_constant_folding=True),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
