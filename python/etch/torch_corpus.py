#!/usr/bin/env python3
"""Writes torch.export programs the way users save them, with references.

Runs with a real torch 2.x (the test suite runs it inside Debian chroots:
scripts/torch-run.sh). For each model NAME:

    NAME_export.pt2       torch.export.save of what torch.export.export returns
                          (the training IR since torch 2.6)
    NAME_decomposed.pt2   the same after run_decompositions() (core ATen IR)
    NAME_inK.npy          example inputs (K = 0, 1, ...)
    NAME_outK.npy         eager outputs for those inputs
    NAME_sS_inK.npy, NAME_sS_outK.npy
                          for models with a dynamic dim: inputs and outputs
                          at other sizes S within the bounds

plus manifest.json (torch version, files, what each model is). Weights are
random from fixed seeds; nothing is downloaded.

    torch_corpus.py --out DIR [--models a,b,...] [--list]

--models may also name the survey models (SURVEY_MODELS below).
"""
import argparse
import copy
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from etch.each_model import Unavailable, make_each  # noqa: E402
from etch.reinit import SEED, reinit_weights  # noqa: E402
# Conv/BN/ReLU/pool/linear (the training IR's composite ops) and buffers
# mutated in place on every call (the KV-cache pattern in miniature).
from etch.export_corpus import RunningMean, SmallCnn  # noqa: E402


def generator(offset=1):
    return torch.Generator().manual_seed(SEED + offset)


class CompositeOps(torch.nn.Module):
    """The training IR's composite and in-place ops that the named models do
    not all reach: 1-D convolution and pooling, padding='same' with
    dilation, transposed and grouped convolution, matmul at mixed ranks,
    grouped-query attention with a bool mask, in-place activations,
    masked_fill, cumsum, triu, comparisons with Python scalars."""

    def __init__(self):
        super().__init__()
        self.conv1d = torch.nn.Conv1d(4, 8, 3, padding=1)
        self.same = torch.nn.Conv2d(4, 8, 3, padding="same", dilation=2, groups=2)
        self.up = torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1)
        self.proj = torch.nn.Linear(4, 16)

    def forward(self, seq, image):
        t = torch.nn.functional.max_pool1d(torch.relu_(self.conv1d(seq)), 2)
        t = torch.nn.functional.avg_pool1d(t, 2, ceil_mode=True)          # [2, 8, 4]
        q = self.proj(seq.transpose(1, 2)[:, :4]).view(2, 4, 2, 8).transpose(1, 2)
        kv = q[:, ::2]                                                    # 1 kv head per 2
        mask = torch.ones(4, 4, dtype=torch.bool).tril()
        att = torch.nn.functional.scaled_dot_product_attention(
            q, kv, kv, attn_mask=mask, enable_gqa=True)                   # [2, 2, 4, 8]
        scores = torch.matmul(att.flatten(1, 2), t)                       # [2, 8, 4]
        scores = scores.masked_fill(scores > 2.0, 2.0).cumsum(-1).triu()
        image = torch.nn.functional.hardtanh_(self.same(image), -1.0, 1.0)
        image = self.up(image)
        return scores, image, (scores.sum(-1) == 0).to(torch.float32)


def torchvision_model(name):
    import torchvision
    return getattr(torchvision.models, name)(weights=None)


def transformer_encoder_layer():
    return torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                            dropout=0.0, batch_first=True)


def bert():
    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128,
                        max_position_embeddings=64, hidden_act="gelu")
    torch.manual_seed(SEED)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = BertModel(config, add_pooling_layer=False)

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids,
                             attention_mask=attention_mask).last_hidden_state

    return Encoder()


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2,
                         intermediate_size=128, max_position_embeddings=128,
                         rms_norm_eps=1e-5, rope_theta=10000.0)
    torch.manual_seed(SEED)

    class CausalLm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = LlamaForCausalLM(config)

        def forward(self, input_ids):
            return self.lm(input_ids=input_ids, use_cache=False).logits

    return CausalLm()


def token_ids(shape, vocab=1000, offset=1):
    return torch.randint(0, vocab, shape, generator=generator(offset))


def bert_inputs():
    ids = token_ids((2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 12:] = 0  # padding in the second sequence
    return ids, mask


# name -> (factory, inputs(), {input index: (dim, min, max, other sizes)},
#          needs transformers, re-initialise weights)
class SortingOps(torch.nn.Module):
    """Ordering ops as detection heads and samplers use them: topk (largest
    and smallest, any dim), sort (ascending, descending, stable), argsort,
    and indices that feed a gather."""

    def forward(self, x):  # [3, 10, 6]
        values, indices = torch.topk(x, 4, dim=1)
        low, _ = torch.topk(x, 2, dim=-1, largest=False)
        ordered, order = torch.sort(x, dim=0, descending=True)
        steps, _ = torch.sort(x.round(), dim=-1, stable=True)
        rank = torch.argsort(x, dim=1)
        picked = torch.gather(x, 1, indices)
        return values + picked, indices, low, ordered, order, steps, rank


class DataDependentOps(torch.nn.Module):
    """Shapes the values decide: nonzero, boolean masks selecting elements
    and rows, a masked assignment, unique with inverse and counts; their
    results feed more ops."""

    def forward(self, x):  # [4, 6]
        where = torch.nonzero(x > 0.5)
        picked = x[x > 0] * 2
        rows = x[x.sum(1) > 0].relu()
        clipped = x.clone()
        clipped[clipped < -1] = 0.0
        levels, inverse, counts = torch.unique(
            (x * 2).round(), return_inverse=True, return_counts=True)
        return where, picked, rows, clipped, levels * 3, inverse, counts


class CtcGreedyDecode(torch.nn.Module):
    """Greedy CTC decoding as speech recognizers do it after their encoder
    (wav2vec2, Conformer): the best token per frame, runs merged with
    unique_consecutive, blanks dropped with masked_select; rows merged along
    a dim; a mask that broadcasts. torch 2.6 cannot export
    unique_consecutive (no meta function for its data-dependent shape)."""

    def forward(self, logits):  # [T, V], token 0 the blank
        best = logits.argmax(-1)
        tokens, inverse, counts = torch.unique_consecutive(
            best, return_inverse=True, return_counts=True)
        text = torch.masked_select(tokens, tokens != 0)
        frames = (logits > 1.0).to(torch.int64)
        runs, row_of, lengths = torch.unique_consecutive(
            frames, return_inverse=True, return_counts=True, dim=0)
        confident = torch.masked_select(logits, logits.amax(0) > 2.5) * 2
        return text, inverse, counts, runs, row_of, lengths, confident


def ctc_logits():
    """[12, 5] logits whose best tokens repeat in runs, blanks between."""
    best = torch.tensor([0, 0, 2, 2, 2, 0, 3, 3, 1, 1, 0, 2])
    return (torch.randn(12, 5, generator=generator())
            + 4.0 * torch.nn.functional.one_hot(best, 5),)


class ScatterOps(torch.nn.Module):
    """scatter with a src and a value, scatter_add, scatter_reduce (amax,
    prod), an in-place scatter_add_: one-hot targets, histograms, pooling by
    segment; and prod over a dim and over an int64 tensor."""

    def forward(self, x, index):  # x [4, 6], index [4, 3] in [0, 6)
        onehot = torch.zeros(4, 6).scatter(1, index[:, :1], 1.0)
        spread = torch.zeros(4, 6).scatter(1, index, x[:, :3])
        counts = torch.zeros(6).scatter_add(0, index.flatten(), torch.ones(12))
        peak = x.scatter_reduce(1, index, x[:, 3:], reduce="amax")
        product = x.scatter_reduce(0, index[:2] % 4, x[2:, :3], reduce="prod")
        acc = x.clone()
        acc.scatter_add_(1, index, x[:, :3])
        return (onehot, spread, counts, peak, product, acc,
                x.prod(1, keepdim=True), (index + 1).prod())


class GridSampleOps(torch.nn.Module):
    """F.grid_sample in every mode, padding and corner convention (spatial
    transformers, optical-flow warping), with a grid reaching outside."""

    def forward(self, x, grid):  # x [2, 3, 5, 7], grid [2, 4, 6, 2]
        samples = [torch.nn.functional.grid_sample(
            x, grid, mode=mode, padding_mode=padding, align_corners=align)
            for mode in ("bilinear", "nearest", "bicubic")
            for padding in ("zeros", "border", "reflection")
            for align in (False, True)]
        return torch.cat(samples, 1)


class DetectionOps(torch.nn.Module):
    """Detector heads: torchvision.ops.nms, the kept boxes and scores
    gathered, batched_nms (per class, by coordinate offsets), and roi_align
    over a feature map at 1/4 scale in both corner conventions and with an
    adaptive sampling grid."""

    def forward(self, boxes, scores, labels, features):
        # boxes [40, 4] x1y1x2y2 in a 30 x 30 image, scores [40], labels [40],
        # features [2, 3, 8, 8]
        import torchvision
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        per_class = torchvision.ops.batched_nms(boxes, scores, labels, 0.3)
        rois = torch.cat([(labels % 2).to(boxes.dtype)[:, None], boxes], 1)
        aligned = torchvision.ops.roi_align(features, rois, (3, 4), 0.25, 2, True)
        adaptive = torchvision.ops.roi_align(features, rois, 2, 0.25, -1, False)
        return keep, boxes[keep], scores[keep] * 2, per_class, aligned, adaptive


def detection_inputs():
    corner = torch.rand(40, 2, generator=generator()) * 20
    size = torch.rand(40, 2, generator=generator(2)) * 10 + 1
    return (torch.cat([corner, corner + size], 1), torch.rand(40, generator=generator(3)),
            torch.randint(0, 3, (40,), generator=generator(4)),
            torch.randn(2, 3, 8, 8, generator=generator(5)))


class LinalgOps(torch.nn.Module):
    """Determinants: torch.linalg.det over a batch, torch.det of a product
    (the LU factorization core ATen records as _linalg_det)."""

    def forward(self, x):  # x [2, 3, 4, 4]
        return torch.linalg.det(x), torch.det(x[0] @ x[1].transpose(-1, -2)) * 0.5


class UniqueSlices(torch.nn.Module):
    """torch.unique with dim: distinct rows of an integer table with their
    inverse and counts, and distinct columns of its float copy."""

    def forward(self, x):  # x [6, 3] int64 with repeated rows and columns
        rows, inverse, counts = torch.unique(x, dim=0, return_inverse=True,
                                             return_counts=True)
        return rows, inverse, counts, torch.unique(x.float() * 0.5, dim=1)


class VolumetricOps(torch.nn.Module):
    """3-D convolution and pooling (video and volumetric models): strided,
    dilated, grouped, 'same'-padded and transposed Conv3d, BatchNorm3d,
    MaxPool3d with ceil_mode and dilation, AvgPool3d without the padding
    counted, and AdaptiveAvgPool3d to one value per channel."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2))
        self.norm = torch.nn.BatchNorm3d(8)
        self.grouped = torch.nn.Conv3d(8, 8, 3, padding=2, dilation=2, groups=4, bias=False)
        self.same = torch.nn.Conv3d(8, 6, (2, 3, 4), padding="same")
        self.up = torch.nn.ConvTranspose3d(6, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):  # x [2, 3, 6, 10, 12]
        y = torch.relu(self.norm(self.stem(x)))
        y = self.grouped(y) + y
        pooled = torch.nn.functional.max_pool3d(y, 3, stride=2, padding=1, ceil_mode=True)
        dilated = torch.nn.functional.max_pool3d(y, 2, stride=1, dilation=(1, 2, 2))
        average = torch.nn.functional.avg_pool3d(y, (2, 3, 3), stride=(1, 2, 2), padding=1,
                                                 count_include_pad=False)
        up = self.up(self.same(pooled))
        summary = torch.nn.functional.adaptive_avg_pool3d(y, 1).flatten(1)
        return up, dilated, average, summary


class TrainingIrOps(torch.nn.Module):
    """Composite ops the training IR keeps whole that transformers and
    torchvision models reach (BEiT, ConvNeXt V2, Swin V2, wav2vec2, BLOOM,
    MaxViT, GPT-J, CodeGen, Mamba, Mixtral): stack, meshgrid in both
    indexings, swapaxes/swapdims, softmax and sums with a dtype, vector norms
    of every order, F.normalize, weight norm, einsum (batched, ellipsis,
    implicit output, three operands), baddbmm with alpha and beta, an unread
    torch.rand (layer drop), repeat_interleave, softplus, cumsum to int32,
    ATen's aliases (multiply, true_divide), histc, F.unfold and F.fold
    (ConvBERT, MobileViT V2: im2col, col2im), bicubic resizing (YOLOS)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.utils.parametrizations.weight_norm(
            torch.nn.Conv1d(4, 4, 3, padding=1), dim=2)
        self.mix = torch.nn.Parameter(torch.randn(4, 6, generator=generator(3)))

    def forward(self, x, y):  # x [2, 4, 6], y [2, 6, 5]
        torch.rand([])  # layer drop draws even when it cannot skip
        grid_i, grid_j = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
        grid_x, grid_y = torch.meshgrid(torch.arange(3.0), torch.arange(4.0), indexing="xy")
        grids = torch.stack([grid_i, grid_j], dim=-1).float().sum(-1) + grid_x.T * grid_y.T
        attn = torch.softmax(torch.baddbmm(y[:, :4], x, y, beta=0.5, alpha=0.25),
                             dim=-1, dtype=torch.float32)
        norms = (torch.linalg.vector_norm(x, dim=-1)
                 + torch.linalg.vector_norm(x, ord=1, dim=(0, 2), keepdim=True).squeeze(-1)
                 + torch.linalg.vector_norm(x, ord=float("inf"), dim=-1)
                 - torch.linalg.vector_norm(x, ord=float("-inf"), dim=-1)
                 + torch.linalg.vector_norm(x, ord=3.0, dim=-1)
                 + torch.linalg.vector_norm(x.round(), ord=0, dim=-1)
                 + torch.linalg.vector_norm(x))
        unit = torch.nn.functional.normalize(x, dim=1)
        mixed = (torch.einsum("bij,jk->bik", unit, self.mix.T)
                 + torch.einsum("...j,kj", x, self.mix).mean()
                 + torch.einsum("bij,bjk,kl->bil", x, y, torch.ones(5, 4)))
        swapped = x.swapaxes(1, 2).swapdims(0, -1) + self.conv(x).permute(1, 2, 0)
        total = torch.log_softmax(x, -1, dtype=torch.float64).sum(dtype=torch.float32)
        # Rotary embeddings of GPT-J and CodeGen, Mamba's softplus, an MoE
        # router's int32 token counts, ATen's aliases.
        pairs = torch.multiply(x.repeat_interleave(2, dim=-1)[..., 3:9], 0.5)
        counts = torch.cumsum((x > 0).to(torch.int32), dim=-1, dtype=torch.int32)
        smooth = torch.nn.functional.softplus(torch.true_divide(x, 0.25), beta=2.0, threshold=5.0)
        extra = pairs + counts + smooth + torch.repeat_interleave(x[0, 0, :2], 3).sum()
        # histc over a fixed range (values outside it left out) and over the
        # data's own range (min = max)
        bins = torch.cat([torch.histc(x, bins=5, min=-1.0, max=1.0), torch.histc(y, bins=3)])
        # Sliding blocks with dilation, padding and stride, folded back;
        # unbatched; bicubic resizes to a size and by scale factors.
        image = x.unsqueeze(0)  # [1, 2, 4, 6]
        window = dict(kernel_size=(2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2))
        patches = torch.nn.functional.unfold(image, **window)
        folded = torch.nn.functional.fold(patches.exp(), (4, 6), **window)
        resized = torch.nn.functional.interpolate(image, size=(5, 9), mode="bicubic")
        scaled = torch.nn.functional.interpolate(image, scale_factor=1.5, mode="bicubic",
                                                 align_corners=True)
        windows = torch.cat([patches.flatten(), folded.flatten(), resized.flatten(),
                             scaled.flatten(), torch.nn.functional.unfold(x, 2).flatten()])
        return (attn, norms, mixed + grids[:, :1].sum(), swapped * total, extra, bins,
                windows)


class CompositeMath(torch.nn.Module):
    """Math ops torch implements as compositions of others, which the
    training IR keeps as called: nn.RMSNorm, PixelShuffle / PixelUnshuffle,
    ChannelShuffle, PReLU, SELU, CELU, Mish, LogSigmoid, GLU, Softshrink,
    Hardshrink, Threshold; square, the NaN and infinity tests, nan_to_num,
    logsumexp, logaddexp, addcmul / addcdiv, lerp, erfc, exp2, frac,
    deg2rad, sinc, logit, xlogy, hypot, atan2, isclose, clamp with tensor
    bounds, count_nonzero, tile, ravel, broadcast_to, var_mean / std_mean;
    sums of bools (int64), reductions of a 0-d tensor over dim 0, products
    of bools; outer, dot, mv, addmv, addr, inner, tensordot, diagonal,
    trace, Tensor.unfold, hstack / vstack / dstack / column_stack,
    atleast_3d, fliplr / flipud, broadcast_tensors, fmax / fmin, copysign,
    heaviside, signbit, float_power, ldexp, cosine_similarity,
    InstanceNorm2d, isin."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(8)
        self.prelu = torch.nn.PReLU(4)
        self.shuffle = torch.nn.Sequential(torch.nn.PixelUnshuffle(2), torch.nn.ChannelShuffle(4),
                                           torch.nn.PixelShuffle(2))
        self.activations = torch.nn.ModuleList([
            torch.nn.SELU(), torch.nn.CELU(0.7), torch.nn.Mish(), torch.nn.LogSigmoid(),
            torch.nn.Softshrink(0.3), torch.nn.Hardshrink(0.4), torch.nn.Threshold(0.1, -2.0)])
        self.glu = torch.nn.GLU(dim=-1)
        self.instance_norm = torch.nn.InstanceNorm2d(4, affine=True)
        with torch.no_grad():
            self.instance_norm.weight.uniform_(0.5, 1.5, generator=generator(5))

    def products(self, x, y):
        """Vector products, diagonals, windows, stacking, flips, broadcasting,
        cosine similarity, instance norm, isin and sign-bit ops."""
        v, w = x[0, 0, 0], y[0, 0, 0]  # [8]
        m = x[0, 0, :, :4]  # [4, 4]
        freqs = torch.outer(torch.arange(6.0), v)  # rotary embeddings' angles
        a, b = torch.broadcast_tensors(v[:, None], w)
        products = torch.cat([freqs.flatten(), torch.dot(v, w)[None], torch.mv(m, v[:4]),
                              torch.addmv(v[:4], m, w[:4], beta=0.5, alpha=2.0),
                              torch.addr(m, v[:4], w[:4]).flatten(),
                              torch.inner(m, m).flatten(),
                              torch.tensordot(x[0], y[0], dims=([1, 2], [1, 2])).flatten(),
                              torch.diagonal(x, offset=1, dim1=1, dim2=3).flatten(),
                              torch.diagonal(m, -1), torch.trace(m)[None],
                              (a * b).flatten()])
        windows = torch.cat([x.unfold(3, 3, 2).flatten(), v.unfold(0, 4, 4).flatten(),
                             torch.hstack([v, w]), torch.vstack([v, w]).flatten(),
                             torch.dstack([m, m]).flatten(), torch.column_stack([v, w]).flatten(),
                             torch.atleast_3d(v).flatten(), torch.fliplr(m).flatten(),
                             torch.flipud(m).flatten()])
        signs = torch.cat([torch.fmax(v, w.masked_fill(w > 1, float("nan"))),
                           torch.fmin(v, w), torch.copysign(v, -w), torch.heaviside(v, w),
                           torch.signbit(v * 0 - (w > 0).float() * 0.0).float(),
                           torch.float_power(v.abs() + 0.5, 1.5).float(), torch.ldexp(v, torch.arange(8))])
        similar = torch.nn.functional.cosine_similarity(x, y, dim=-1).flatten()
        found = torch.isin(x.round(), torch.tensor([0.0, 1.0])).float().flatten()
        return torch.cat([products, windows, signs, similar, found,
                          self.instance_norm(x).flatten()])

    def forward(self, x, y):  # x [2, 4, 4, 8], y [2, 4, 4, 8]
        normed = self.norm(x) + self.prelu(x) + self.shuffle(x) + self.glu(torch.cat([x, y], -1))
        acts = sum(act(x) for act in self.activations)
        # Infinities and NaNs made in the graph, then tested and replaced.
        odd = torch.where(x > 1.2, float("inf"), torch.where(x < -1.2, float("-inf"), x))
        odd = torch.where(y > 1.5, float("nan"), odd)
        flags = torch.stack([odd.isnan(), odd.isinf(), odd.isfinite(), odd.isposinf(),
                             odd.isneginf(), torch.isclose(x, y, atol=0.5),
                             torch.isclose(odd, odd, equal_nan=True),
                             (x > 0) * (y > 0)])
        cleaned = torch.nan_to_num(odd, nan=0.5, posinf=3.0) + torch.nan_to_num(odd).clamp(-9, 9)
        p = torch.sigmoid(y)
        maths = (torch.square(x) + torch.logsumexp(x, dim=-1, keepdim=True)
                 + torch.logsumexp(x, dim=(1, 2)).mean() + torch.logaddexp(x, y)
                 + torch.addcmul(x, y, p, value=0.5) + torch.addcdiv(x, y, p + 1, value=-2)
                 + torch.lerp(x, y, 0.3) + torch.lerp(x, y, p) + torch.erfc(x) + torch.exp2(y)
                 + torch.frac(3 * x) + torch.deg2rad(y) + torch.sinc(x) + torch.logit(p, eps=0.2)
                 + torch.xlogy(x.round(), p) + torch.hypot(x, y) + torch.atan2(y, x)
                 + x.clamp(min=y - 1, max=p + 1) + x.clamp_min(y) + x.clamp_max(p))
        var, mean = torch.var_mean(x, dim=(1, 3), keepdim=True)
        std, mean2 = torch.std_mean(x, dim=2, correction=0)
        stats = torch.cat([(var + mean).flatten(), (std * mean2).flatten(),
                           torch.tile(x[0, 0, 0], (2,)), torch.tile(x[0, 0], (2, 1, 1)).ravel(),
                           torch.broadcast_to(y[:, :1], (2, 3, 4, 8)).ravel()])
        counts = torch.stack([(x > 0).sum(), torch.count_nonzero(x.round(), dim=(0, 2)).sum(),
                              (x[0, 0, 0, 0] > 0).sum(0), x[0, 0, 0, 0].round().long().sum(-1)])
        scalar = x[0, 0, 0, 0]
        reduced = torch.stack([scalar.mean(0), scalar.amax(-1), scalar.argmax(0).float(),
                               torch.logsumexp(scalar, 0)])
        return (normed + acts + maths + cleaned, flags, stats, counts, reduced,
                self.products(x, y))


MODELS = {
    "mobilenet_v2": (lambda: torchvision_model("mobilenet_v2"),
                     lambda: (torch.randn(1, 3, 224, 224, generator=generator()),), None,
                     False, True),
    "resnet18": (lambda: torchvision_model("resnet18"),
                 lambda: (torch.randn(1, 3, 224, 224, generator=generator()),), None,
                 False, True),
    "transformer_encoder_layer": (transformer_encoder_layer,
                                  lambda: (torch.randn(2, 16, 64, generator=generator()),),
                                  None, False, False),
    "small_cnn_dynamic": (SmallCnn, lambda: (torch.randn(4, 3, 32, 32, generator=generator()),),
                          {0: (0, 1, 8, (1, 3, 8))}, False, True),
    "running_stats": (RunningMean, lambda: (torch.randn(4, 8, generator=generator()),), None,
                      False, False),
    "composite_ops": (CompositeOps,
                      lambda: (torch.randn(2, 4, 16, generator=generator()),
                               torch.randn(1, 4, 9, 9, generator=generator(2))),
                      None, False, False),
    "sorting_ops": (SortingOps, lambda: (torch.randn(3, 10, 6, generator=generator()),),
                    None, False, False),
    "data_dependent_ops": (DataDependentOps,
                           lambda: (torch.randn(4, 6, generator=generator()),),
                           None, False, False),
    "ctc_greedy_decode": (CtcGreedyDecode, ctc_logits, None, False, False),
    "scatter_ops": (ScatterOps,
                    lambda: (torch.randn(4, 6, generator=generator()),
                             torch.randint(0, 6, (4, 3), generator=generator())),
                    None, False, False),
    "grid_sample_ops": (GridSampleOps,
                        lambda: (torch.randn(2, 3, 5, 7, generator=generator()),
                                 torch.rand(2, 4, 6, 2, generator=generator(2)) * 2.6 - 1.3),
                        None, False, False),
    "detection_ops": (DetectionOps, detection_inputs, None, False, False),
    "unique_slices": (UniqueSlices,
                      lambda: (torch.tensor([[1, 2, 1], [0, 5, 0], [1, 2, 1], [3, 3, 3],
                                             [0, 5, 0], [1, 2, 1]]),),
                      None, False, False),
    "linalg_ops": (LinalgOps, lambda: (torch.randn(2, 3, 4, 4, generator=generator()),),
                   None, False, False),
    "volumetric_ops": (VolumetricOps,
                       lambda: (torch.randn(2, 3, 6, 10, 12, generator=generator()),),
                       None, False, True),
    "composite_math": (CompositeMath,
                       lambda: (torch.randn(2, 4, 4, 8, generator=generator()),
                                torch.randn(2, 4, 4, 8, generator=generator(2))),
                       None, False, False),
    "training_ir_ops": (TrainingIrOps,
                        lambda: (torch.randn(2, 4, 6, generator=generator()),
                                 torch.randn(2, 6, 5, generator=generator(2))),
                        None, False, False),
    "bert": (bert, bert_inputs, None, True, False),
    "llama": (llama, lambda: (token_ids((1, 16)),), None, True, False),
}


def first_output(model, key=None):
    """Wraps a model whose forward returns a dict or a ModelOutput."""
    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = model

        def forward(self, *args):
            out = self.inner(*args)
            return out[key] if key else out.last_hidden_state

    return Wrapped()


def tiny_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4,
                             hidden_dim=64, mlp_dim=128, num_classes=10)


def tiny_swin():
    """Shifted-window attention: the training IR builds its masks by writing
    into slices of a fresh tensor; pad and roll."""
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                           window_size=[4, 4], num_classes=10)


def tiny_convnext():
    """Depthwise 7x7 convolutions, channels-last LayerNorm, layer scale."""
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 2)], num_classes=10)


def gpt2():
    from transformers import GPT2Config, GPT2Model
    torch.manual_seed(SEED)
    return first_output(GPT2Model(GPT2Config(vocab_size=1000, n_positions=64, n_embd=64,
                                             n_layer=2, n_head=4)))


def whisper_encoder():
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    torch.manual_seed(SEED)
    config = WhisperConfig(vocab_size=1000, num_mel_bins=16, encoder_layers=2,
                           encoder_attention_heads=4, d_model=64, encoder_ffn_dim=128,
                           max_source_positions=32)
    return first_output(WhisperEncoder(config))


def hf_vit():
    from transformers import ViTConfig, ViTModel
    torch.manual_seed(SEED)
    return first_output(ViTModel(ViTConfig(hidden_size=64, num_hidden_layers=2,
                                           num_attention_heads=4, intermediate_size=128,
                                           image_size=32, patch_size=8)))


def tiny_hf(kind):
    """Tiny transformers models of other families, random weights."""
    import transformers as t
    torch.manual_seed(SEED)
    common = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=128)
    if kind == "t5_encoder":
        return first_output(t.T5EncoderModel(t.T5Config(vocab_size=1000, d_model=64, d_kv=16,
                                                        d_ff=128, num_layers=2, num_heads=4)))
    if kind == "distilbert":
        return first_output(t.DistilBertModel(t.DistilBertConfig(
            vocab_size=1000, dim=64, n_layers=2, n_heads=4, hidden_dim=128)))
    if kind == "qwen2":
        return first_output(t.Qwen2ForCausalLM(t.Qwen2Config(num_key_value_heads=2, **common)),
                            "logits")
    if kind == "gemma":
        return first_output(t.GemmaForCausalLM(t.GemmaConfig(num_key_value_heads=1, head_dim=16,
                                                             **common)), "logits")
    if kind == "mixtral":
        # transformers 5's experts: tokens sorted by expert, histc counts,
        # its own grouped_mm_fallback op
        return first_output(t.MixtralForCausalLM(t.MixtralConfig(
            num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2, **common)),
            "logits")
    if kind == "opt":
        return first_output(t.OPTForCausalLM(t.OPTConfig(
            vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            ffn_dim=128, word_embed_proj_dim=64)), "logits")
    raise ValueError(kind)


def llama_static_cache():
    """One decode step of a Llama with transformers' static KV cache (its
    ExecuTorch export wrapper): caches are buffers written in place
    (index_copy_ in the training IR, index_put once decomposed)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
    torch.manual_seed(SEED)
    config = LlamaConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
                         max_position_embeddings=64)
    model = LlamaForCausalLM(config).eval()
    model.generation_config.cache_implementation = "static"
    wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)

    class Step(torch.nn.Module):  # positional inputs for torch.export.export
        def __init__(self):
            super().__init__()
            self.wrapper = wrapper

        def forward(self, input_ids, cache_position):
            return self.wrapper.model(input_ids=input_ids, cache_position=cache_position)

        def etch_export(self, input_ids, cache_position):
            """The program as transformers' own exporter makes it."""
            return self.wrapper.export(input_ids=input_ids, cache_position=cache_position)

    return Step()


def image(size=224):
    return lambda: (torch.randn(1, 3, size, size, generator=generator()),)


# Models beyond the named ones, exported on request (--models) to survey
# what imports; the suite tests the named ones.
SURVEY_MODELS = {
    **{name: (lambda name=name: torchvision_model(name), image(), None, False, True)
       for name in ("mobilenet_v3_small", "efficientnet_b0", "convnext_tiny", "squeezenet1_1",
                    "shufflenet_v2_x0_5", "densenet121", "regnet_x_400mf", "swin_t",
                    "mnasnet0_5")},
    "googlenet": (lambda: torchvision_model_kw("googlenet", aux_logits=False,
                                               init_weights=False), image(), None, False, True),
    "deeplabv3": (lambda: first_output(torchvision_segmentation(), "out"), image(128), None,
                  False, True),
    "vit_tiny": (tiny_vit, image(64), None, False, False),
    "swin_tiny": (tiny_swin, image(32), None, False, True),
    "convnext_tiny_config": (tiny_convnext, image(64), None, False, True),
    "gpt2": (gpt2, lambda: (token_ids((1, 16)),), None, True, False),
    "whisper_encoder": (whisper_encoder,
                        lambda: (torch.randn(1, 16, 64, generator=generator()),), None, True,
                        False),
    "hf_vit": (hf_vit, image(32), None, True, False),
    "llama_static_cache": (llama_static_cache,
                           lambda: (token_ids((1, 1)), torch.tensor([0], dtype=torch.long)),
                           None, True, False),
    **{kind: (lambda kind=kind: tiny_hf(kind), lambda: (token_ids((1, 16)),), None, True, False)
       for kind in ("t5_encoder", "distilbert", "qwen2", "gemma", "opt", "mixtral")},
}


def torchvision_model_kw(name, **kwargs):
    import torchvision
    return getattr(torchvision.models, name)(weights=None, **kwargs)


def torchvision_segmentation():
    import torchvision
    return torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None)


def as_tuple(value):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def save_arrays(out, prefix, kind, tensors):
    for index, tensor in enumerate(tensors):
        np.save(os.path.join(out, f"{prefix}_{kind}{index}.npy"), tensor.detach().numpy())


def export_model(name, out):
    factory, make_inputs, dynamic, _, reinit = {**MODELS, **SURVEY_MODELS}[name]
    torch.manual_seed(SEED)
    model = factory()
    model = reinit_weights(model) if reinit else model.eval()
    # Inference: no parameter needs a gradient (torch 2.6 refuses to export
    # a buffer mutation that depends on one otherwise).
    model.requires_grad_(False)
    inputs = make_inputs()
    dynamic_shapes = None
    if dynamic:
        dynamic_shapes = [None] * len(inputs)
        for index, (dim, low, high, _) in dynamic.items():
            dynamic_shapes[index] = {dim: torch.export.Dim(f"d{index}", min=low, max=high)}
        dynamic_shapes = tuple(dynamic_shapes)
    # Eager references first, from a copy: the module may mutate its state.
    with torch.no_grad():
        expected = as_tuple(copy.deepcopy(model)(*inputs))
    if hasattr(model, "etch_export"):  # a model family's own exporter
        program = model.etch_export(*inputs)
    else:
        program = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    torch.export.save(program, os.path.join(out, f"{name}_export.pt2"))
    torch.export.save(program.run_decompositions(),
                      os.path.join(out, f"{name}_decomposed.pt2"))
    save_arrays(out, name, "in", inputs)
    save_arrays(out, name, "out", expected)
    record = {"inputs": len(inputs), "outputs": len(expected),
              "input_shapes": [list(t.shape) for t in inputs],
              "output_shapes": [list(t.shape) for t in expected]}
    if dynamic:
        record["dynamic"] = {}
        for index, (dim, low, high, sizes) in dynamic.items():
            record["dynamic"][str(index)] = {"dim": dim, "min": low, "max": high,
                                             "sizes": list(sizes)}
            for size in sizes:
                shape = list(inputs[index].shape)
                shape[dim] = size
                resized = list(inputs)
                resized[index] = torch.randn(shape, generator=generator(size + 7))
                with torch.no_grad():
                    outputs = as_tuple(copy.deepcopy(model)(*resized))
                save_arrays(out, f"{name}_s{size}", "in", resized)
                save_arrays(out, f"{name}_s{size}", "out", outputs)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    try:
        import transformers  # noqa: F401
        have_transformers = True
    except ImportError:
        have_transformers = False
    names = args.models.split(",") if args.models else list(MODELS)
    if args.list:
        print("\n".join(n for n in MODELS if have_transformers or not MODELS[n][3]))
        return 0
    os.makedirs(args.out, exist_ok=True)
    manifest = {"torch": torch.__version__, "models": {}}
    known = {**MODELS, **SURVEY_MODELS}

    def make(name):
        if name not in known:
            raise Unavailable("unknown model")
        if known[name][3] and not have_transformers:
            raise Unavailable("needs transformers, which this torch has not")
        manifest["models"][name] = export_model(name, args.out)
        return f"exported with torch {torch.__version__}"
    failures = make_each(names, make)
    with open(os.path.join(args.out, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=2, sort_keys=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
