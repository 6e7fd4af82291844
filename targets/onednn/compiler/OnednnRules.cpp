//===- OnednnRules.cpp - Support rules of the oneDNN target ---------------===//
#include "OnednnRules.h"

#include "etch/Quantization/QdqPattern.h"
#include "etch/Target/Activation.h"
#include "etch/Target/ChannelsLast.h"

#include <cfloat>

using namespace mlir;
using namespace etch::edge;

namespace etch::onednn {
namespace {

bool isStaticF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32() && tensor.hasStaticShape() &&
         tensor.getRank() >= 1 && tensor.getRank() <= 6 &&
         tensor.getNumElements() > 0;
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

std::string constantWeights(Value weight, Value bias) {
  if (!isConstant(weight) || (bias && !isConstant(bias)))
    return "weight and bias must be constants";
  return "";
}

std::string convolutionRule(ConvolutionOp conv) {
  if (conv.getTransposed())
    return "transposed convolution";
  if (conv.getInput().getType().getRank() != 4)
    return "only 2-D convolution (rank-4 input)";
  return constantWeights(conv.getWeight(), conv.getBias());
}

/// oneDNN binary ops broadcast their second operand only; add and mul may
/// swap theirs.
std::string binaryRule(Operation *op) {
  if (auto alpha = op->getAttrOfType<FloatAttr>("alpha"))
    if (alpha.getValueAsDouble() != 1.0)
      return "alpha != 1";
  if (op->getAttr("rounding_mode"))
    return "rounding_mode";
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  auto full = [&](Value operand) { return operand.getType() == result; };
  bool commutes = isa<AddOp, MulOp, MaximumOp, MinimumOp>(op);
  if (!full(op->getOperand(0)) && !(commutes && full(op->getOperand(1))))
    return "broadcasts its first operand (oneDNN broadcasts the second only)";
  for (Value operand : op->getOperands())
    if (result.getRank() == 4 && rankOf(operand) < 4 && !isConstant(operand))
      return "broadcasts a lower-rank tensor against an NHWC tensor";
  return "";
}

std::string poolingRule(Operation *op) {
  if (auto pool = dyn_cast<MaxPool2dOp>(op))
    return rankOf(pool.getSelf()) == 4 ? "" : "needs NCHW input";
  if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
    // ATen divides the cells a ceil-mode window adds past the padding by
    // nothing; oneDNN's include-padding mode would count them.
    bool padded = llvm::any_of(pool.getPadding(), [](int64_t p) { return p; });
    if (rankOf(pool.getSelf()) != 4 || pool.getDivisorOverride() ||
        (pool.getCeilMode() && padded && pool.getCountIncludePad()))
      return "divisor_override, or ceil_mode with padding counted";
    return "";
  }
  return whyNotGlobalAveragePool(op);
}

} // namespace

std::optional<EltwiseForm> eltwiseForm(Operation *op) {
  std::optional<ActivationForm> form = activationForm(op);
  if (!form)
    return std::nullopt;
  using Kind = ActivationForm::Kind;
  switch (form->kind) {
  case Kind::Relu:
    return EltwiseForm{Eltwise::Relu};
  case Kind::Clamp:
    return EltwiseForm{Eltwise::Clip, form->alpha, form->beta};
  case Kind::LeakyRelu: // oneDNN's relu takes the negative slope as alpha
    return EltwiseForm{Eltwise::Relu, form->alpha};
  case Kind::Elu:
    return EltwiseForm{Eltwise::Elu, form->alpha};
  case Kind::GeluErf:
    return EltwiseForm{Eltwise::GeluErf};
  case Kind::GeluTanh:
    return EltwiseForm{Eltwise::GeluTanh};
  case Kind::Silu: // x * sigmoid(alpha x)
    return EltwiseForm{Eltwise::Swish, 1.0f};
  case Kind::Neg: // alpha x + beta
    return EltwiseForm{Eltwise::Linear, -1.0f, 0.0f};
  case Kind::Hardswish:
    return EltwiseForm{Eltwise::Hardswish};
  case Kind::Sigmoid:
    return EltwiseForm{Eltwise::Logistic};
  case Kind::Tanh:
    return EltwiseForm{Eltwise::Tanh};
  case Kind::Abs:
    return EltwiseForm{Eltwise::Abs};
  case Kind::Sqrt:
    return EltwiseForm{Eltwise::Sqrt};
  case Kind::Exp:
    return EltwiseForm{Eltwise::Exp};
  case Kind::Log:
    return EltwiseForm{Eltwise::Log};
  case Kind::Round:
    return EltwiseForm{Eltwise::Round};
  default: // no oneDNN eltwise algorithm computes it
    return std::nullopt;
  }
}

std::optional<Binary> binaryForm(Operation *op) {
  if (isa<AddOp>(op))
    return Binary::Add;
  if (isa<SubOp>(op))
    return Binary::Sub;
  if (isa<MulOp>(op))
    return Binary::Mul;
  if (isa<DivOp>(op))
    return Binary::Div;
  if (isa<MaximumOp>(op))
    return Binary::Max;
  if (isa<MinimumOp>(op))
    return Binary::Min;
  return std::nullopt;
}

unsigned delegateLayout(Operation *op) {
  return isa<ConvolutionOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp,
             MeanOp>(op)
             ? 1
             : 0;
}

bool keepsChannelsLast(DelegateOp delegate) {
  return llvm::any_of(delegate.getBody().front(), [](Operation &op) {
    return delegateLayout(&op) != 0;
  });
}

/// A static tensor of per-tensor 8-bit values: oneDNN's s8 / u8 memory.
bool isEightBitActivation(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto uniform = tensor ? dyn_cast<quant::UniformQuantizedType>(
                              tensor.getElementType())
                        : nullptr;
  return uniform && uniform.getStorageTypeIntegralWidth() == 8 &&
         uniform.getExpressedType().isF32() && tensor.hasStaticShape() &&
         tensor.getRank() >= 1 && tensor.getRank() <= 6;
}

/// Quantize and dequantize of activations are oneDNN reorders; a
/// dequantized constant is the float (or int8) weights of its readers.
std::string quantizationRule(Operation *op) {
  if (auto quantize = dyn_cast<QuantizeOp>(op))
    return isStaticF32(quantize.getInput().getType()) &&
                   isEightBitActivation(quantize.getType())
               ? ""
               : "quantizes to other than per-tensor 8-bit values";
  auto dequantize = cast<DequantizeOp>(op);
  if (isConstant(dequantize.getInput()) ||
      (isEightBitActivation(dequantize.getInput().getType()) &&
       isStaticF32(dequantize.getType())))
    return "";
  return "dequantizes other than per-tensor 8-bit activations";
}

std::string whyUnsupported(Operation *op) {
  if (isa<QuantizeOp, DequantizeOp>(op))
    return quantizationRule(op);
  auto allStatic = [](TypeRange types) {
    return llvm::all_of(types, isStaticF32);
  };
  if (!allStatic(op->getOperandTypes()) || !allStatic(op->getResultTypes()))
    return "needs float32 tensors of static shape and rank 1 to 6";
  if (eltwiseForm(op))
    return "";
  if (isa<EluOp>(op))
    return "elu with scale or input_scale other than 1";
  if (binaryForm(op))
    return binaryRule(op);
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return convolutionRule(conv);
  if (auto linear = dyn_cast<LinearOp>(op)) {
    if (rankOf(linear.getInput()) == 4)
      return "a linear layer over a rank-4 value";
    return constantWeights(linear.getWeight(), linear.getBias());
  }
  if (auto addmm = dyn_cast<AddmmOp>(op)) {
    auto bias = cast<RankedTensorType>(addmm.getSelf().getType());
    auto weight = cast<RankedTensorType>(addmm.getMat2().getType());
    if (addmm.getBeta().convertToDouble() != 1.0 ||
        addmm.getAlpha().convertToDouble() != 1.0 || bias.getRank() != 1 ||
        bias.getDimSize(0) != weight.getDimSize(1))
      return "beta or alpha != 1, or a bias that is not one value per output";
    return constantWeights(addmm.getMat2(), addmm.getSelf());
  }
  if (auto mm = dyn_cast<MmOp>(op))
    return constantWeights(mm.getMat2(), Value());
  if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, MeanOp>(op))
    return poolingRule(op);
  if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op)) {
    if (!isLayoutNeutral(op->getOperand(0)) ||
        !isLayoutNeutral(op->getResult(0)))
      return "reshapes an NCHW tensor whose H or W is not 1";
    return "";
  }
  return "no oneDNN equivalent";
}

} // namespace etch::onednn
