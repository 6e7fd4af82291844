//===- XnnpackQuantizer.cpp - XNNPACK's int8 scheme -----------------------===//
//
// What --quantize=int8 runs in int8 for XNNPACK, following its 2022 int8
// nodes (and ExecuTorch's XNNPACKQuantizer): int8 asymmetric per-tensor
// activations, symmetric per-channel weights for convolutions, symmetric
// per-tensor weights for fully connected layers (the only int8 filter
// XNNPACK 2022 takes there), float biases made int32 at lowering; relu /
// hardtanh / clamp after a convolution, linear or add run inside it; max
// pooling, reshapes and standalone clamps keep their input's parameters.
// Anything else (hardswish, sigmoid, softmax, ...) stays float, between
// converts in the same delegate.
//
//===----------------------------------------------------------------------===//
#include "XnnpackRules.h"

#include "edge/EdgeDialect.h"

using namespace mlir;
using namespace etch::edge;
using etch::quantization::OpScheme;
using etch::quantization::WeightGranularity;

namespace etch::xnnpack {
namespace {

class XnnpackQuantizer : public quantization::Quantizer {
public:
  std::optional<OpScheme> scheme(Operation *op) const override {
    if (!whyUnsupported(op).empty())
      return std::nullopt; // XNNPACK would not take the op at all
    OpScheme scheme;
    auto weighted = [&](unsigned input, unsigned weight,
                        WeightGranularity granularity) {
      scheme.activations = {input};
      scheme.weight = weight;
      scheme.weightGranularity = granularity;
      scheme.fusesActivation = true;
      return scheme;
    };
    if (isa<ConvolutionOp>(op))
      return weighted(0, 1, WeightGranularity::PerChannel);
    if (isa<LinearOp>(op))
      return weighted(0, 1, WeightGranularity::PerTensor);
    if (isa<AddmmOp>(op)) // bias, input, W^T
      return weighted(1, 2, WeightGranularity::PerTensor);
    if (isa<MmOp>(op))
      return weighted(0, 1, WeightGranularity::PerTensor);
    if (isa<AddOp, MulOp>(op)) {
      if (isConstant(op->getOperand(0)) || isConstant(op->getOperand(1)))
        return std::nullopt;
      scheme.activations = {0, 1};
      scheme.fusesActivation = true;
      return scheme;
    }
    if (isa<AdaptiveAvgPool2dOp, MeanOp>(op)) {
      scheme.activations = {0};
      return scheme;
    }
    float low, high;
    if (isa<MaxPool2dOp, ViewOp, SqueezeOp, UnsqueezeOp>(op) ||
        isClampLike(op, low, high)) {
      scheme.activations = {0};
      scheme.sharesInputParameters = true;
      return scheme;
    }
    return std::nullopt;
  }
};

} // namespace

const quantization::Quantizer &quantizer() {
  static XnnpackQuantizer instance;
  return instance;
}

} // namespace etch::xnnpack
