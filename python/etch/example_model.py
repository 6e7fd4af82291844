#!/usr/bin/env python3
"""Writes the bundled example model; the files are committed, this script
documents how they were made.

    small_cnn.pt2: torch.export.export then
        torch.export.save with torch 2.14 (the training IR, as users save it):
        scripts/torch-run.sh sid docs/examples python/etch/example_model.py --format pt2
    small_cnn.onnx: Debian's torch 1.13:
        /usr/bin/python3 python/etch/example_model.py --out docs/examples --format onnx
    small_cnn_input.npy, small_cnn_expected.npy: the input and eager output of
        both (the same seeds give the same weights and input in both torch
        versions).
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.reinit import SEED, reinit_weights  # noqa: E402


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.BatchNorm2d(32),
            torch.nn.Hardswish(),
            torch.nn.Conv2d(32, 32, 3, padding=1, groups=32), torch.nn.ReLU6(),
            torch.nn.AdaptiveAvgPool2d(1))
        self.classifier = torch.nn.Linear(32, 10)

    def forward(self, x):
        return torch.softmax(self.classifier(self.features(x).flatten(1)), dim=-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--format", choices=["onnx", "pt2"], required=True)
    args = parser.parse_args()
    out = args.out
    torch.manual_seed(SEED)
    model = reinit_weights(SmallCnn())
    example = torch.randn((1, 3, 32, 32), generator=torch.Generator().manual_seed(SEED + 1))
    with torch.no_grad():
        expected = model(example)
    if args.format == "pt2":
        model.requires_grad_(False)
        program = torch.export.export(model, (example,))
        torch.export.save(program, os.path.join(out, "small_cnn.pt2"))
    else:
        torch.onnx.export(model, example, os.path.join(out, "small_cnn.onnx"),
                          opset_version=17, input_names=["image"],
                          output_names=["probabilities"])
    np.save(os.path.join(out, "small_cnn_input.npy"), example.numpy())
    np.save(os.path.join(out, "small_cnn_expected.npy"), expected.numpy())


if __name__ == "__main__":
    main()
