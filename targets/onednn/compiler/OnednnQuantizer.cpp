//===- OnednnQuantizer.cpp - The oneDNN target's int8 scheme --------------===//
//
// What --quantize=int8 runs in int8 for oneDNN: convolutions, the op its
// VNNI kernels multiply 8-bit activations by int8 weights in (per-tensor
// asymmetric activations, symmetric per-channel weights, float biases
// scaled into the accumulator at lowering), with a following relu /
// hardtanh / clamp inside; adds of two activations, which the compiler
// folds into the convolution computing one of them as a sum post-op (a
// residual block's add and relu then cost no pass of their own); linear
// layers (8-bit source, int8 weights per output, float result). Pooling,
// reshapes and clamps keep their input's parameters. Activations
// never seen below zero are uint8 with zero point 0: a source zero point
// makes oneDNN compensate in every convolution. Everything else stays
// float, between reorders in the same delegate.
//
//===----------------------------------------------------------------------===//
#include "OnednnRules.h"

#include "etch/Quantization/QdqPattern.h"

using namespace mlir;
using namespace etch::edge;
using etch::quantization::OpScheme;
using etch::quantization::WeightGranularity;

namespace etch::onednn {
namespace {

class OnednnQuantizer : public quantization::Quantizer {
public:
  std::optional<OpScheme> scheme(Operation *op) const override {
    if (!whyUnsupported(op).empty())
      return std::nullopt;
    OpScheme scheme;
    scheme.activations = {0};
    if (isa<ConvolutionOp>(op)) {
      scheme.weight = 1;
      scheme.weightGranularity = WeightGranularity::PerChannel;
      scheme.fusesActivation = true;
      return scheme;
    }
    if (isa<LinearOp>(op)) {
      scheme.weight = 1;
      scheme.weightGranularity = WeightGranularity::PerChannel;
      return scheme;
    }
    if (isa<AddOp>(op) && !isConstant(op->getOperand(0)) &&
        !isConstant(op->getOperand(1)) &&
        op->getOperand(0).getType() == op->getOperand(1).getType()) {
      scheme.activations = {0, 1};
      scheme.fusesActivation = true;
      return scheme;
    }
    float low, high;
    // An average stays inside its inputs' range.
    if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, MeanOp, ViewOp,
            SqueezeOp, UnsqueezeOp>(op) ||
        quantization::isClampLike(op, low, high)) {
      scheme.sharesInputParameters = true;
      return scheme;
    }
    return std::nullopt;
  }
  bool unsignedNonNegativeActivations() const override { return true; }
};

} // namespace

const quantization::Quantizer &quantizer() {
  static OnednnQuantizer instance;
  return instance;
}

} // namespace etch::onednn
