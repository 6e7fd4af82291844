#!/usr/bin/env python3
"""Writes the torch.export (.pt2) test corpus; needs torch >= 2.1.

For each model: MODEL.pt2 (torch.export.save of the core-ATen program),
MODEL_input.npy and MODEL_output.npy (eager reference), plus manifest.json
(torch version, shapes, how each file was made). Weights are re-initialised
from a fixed seed (kaiming-normal), nothing is downloaded. Widths are chosen
so every file stays under 16 MB.

    export_corpus.py --out test/Models/pt2 [--models mlp,small_cnn,...]

Debian's torch 1.13 has no torch.export: run this where torch >= 2.1 is
installed (the project's device machine has torch 2.11).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.each_model import make_each  # noqa: E402
from etch.reinit import SEED, reinit_weights  # noqa: E402



class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(32)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.nn.functional.hardtanh(self.bn2(self.conv2(x)), 0.0, 6.0)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.softmax(self.fc(x), dim=-1)


class EncoderBlock(torch.nn.Module):
    """MHA + layer norm + GELU MLP, as in a ViT/BERT layer."""

    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm1 = torch.nn.LayerNorm(dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class RunningMean(torch.nn.Module):
    """Mutates a buffer on every call (the KV-cache pattern in miniature)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(8))
        self.register_buffer("count", torch.zeros(1))
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        self.total.add_(y.sum(0))
        self.count.add_(x.shape[0])
        return y, self.total / self.count


def torchvision_model(name, **kwargs):
    import torchvision
    return getattr(torchvision.models, name)(weights=None, **kwargs)


MODELS = {
    "mlp": (Mlp, (4, 32), None),
    "small_cnn": (SmallCnn, (1, 3, 32, 32), None),
    "mobilenet_v2": (lambda: torchvision_model("mobilenet_v2"), (1, 3, 224, 224), None),
    "mobilenet_v3_small": (lambda: torchvision_model("mobilenet_v3_small"),
                           (1, 3, 224, 224), None),
    # Half width keeps the file under 16 MB.
    "resnet18_w32": (lambda: resnet_half_width(), (1, 3, 224, 224), None),
    "encoder_block": (EncoderBlock, (2, 16, 64), None),
    "running_mean": (RunningMean, (4, 8), None),
    "mlp_dynamic_batch": (Mlp, (4, 32), 0),
}


def resnet_half_width():
    import torchvision
    from torchvision.models.resnet import BasicBlock, ResNet

    class HalfResNet(ResNet):
        def __init__(self):
            super().__init__(BasicBlock, [2, 2, 2, 2])
            # Rebuild with 32-64-128-256 channels.
            self.inplanes = 32
            self.conv1 = torch.nn.Conv2d(3, 32, 7, 2, 3, bias=False)
            self.bn1 = torch.nn.BatchNorm2d(32)
            self.layer1 = self._make_layer(BasicBlock, 32, 2)
            self.layer2 = self._make_layer(BasicBlock, 64, 2, stride=2)
            self.layer3 = self._make_layer(BasicBlock, 128, 2, stride=2)
            self.layer4 = self._make_layer(BasicBlock, 256, 2, stride=2)
            self.fc = torch.nn.Linear(256, 1000)

    del torchvision
    return HalfResNet()


def export_one(name, out, manifest):
    factory, shape, dynamic_dim = MODELS[name]
    torch.manual_seed(SEED)
    model = reinit_weights(factory())
    example = torch.randn(shape, generator=torch.Generator().manual_seed(SEED + 1))
    dynamic_shapes = None
    if dynamic_dim is not None:
        batch = torch.export.Dim("batch", min=1, max=64)
        dynamic_shapes = ({dynamic_dim: batch},)
    program = torch.export.export(model, (example,), dynamic_shapes=dynamic_shapes)
    program = program.run_decompositions()
    with torch.no_grad():
        expected = model(example)
    if isinstance(expected, tuple):
        expected = expected[0]
    torch.export.save(program, os.path.join(out, f"{name}.pt2"))
    np.save(os.path.join(out, f"{name}_input.npy"), example.numpy())
    np.save(os.path.join(out, f"{name}_output.npy"), expected.detach().numpy())
    manifest[name] = {
        "torch": torch.__version__, "input_shape": list(shape),
        "output_shape": list(expected.shape), "dynamic_dim": dynamic_dim,
        "how": "torch.export.export(...).run_decompositions(); torch.export.save",
        "bytes": os.path.getsize(os.path.join(out, f"{name}.pt2")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    if not hasattr(torch, "export"):
        sys.exit(f"torch {torch.__version__} has no torch.export; torch >= 2.1 is needed")
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}

    def make(name):
        export_one(name, args.out, manifest)
        return f"ok ({manifest[name]['bytes']} bytes)"
    failures = make_each(args.models.split(","), make)
    json.dump(manifest, open(manifest_path, "w"), indent=2, sort_keys=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
