//===- OnednnQuantizer.cpp - The oneDNN target's int8 scheme --------------===//
//
// What --quantize=int8 runs in int8 for oneDNN: convolutions, the op its
// VNNI kernels multiply 8-bit activations by int8 weights in (per-tensor
// asymmetric activations, symmetric per-channel weights, float biases
// scaled into the accumulator at lowering), with a following relu /
// hardtanh / clamp inside. Max pooling, reshapes and clamps keep their
// input's parameters. Everything else stays float, between reorders in the
// same delegate.
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
    float low, high;
    if (isa<MaxPool2dOp, ViewOp, SqueezeOp, UnsqueezeOp>(op) ||
        quantization::isClampLike(op, low, high)) {
      scheme.sharesInputParameters = true;
      return scheme;
    }
    return std::nullopt;
  }
};

} // namespace

const quantization::Quantizer &quantizer() {
  static OnednnQuantizer instance;
  return instance;
}

} // namespace etch::onednn
