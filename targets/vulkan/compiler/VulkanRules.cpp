//===- VulkanRules.cpp - Support rules of the Vulkan target ---------------===//
#include "VulkanRules.h"

#include "targets/vulkan/schema/ShaderInterface.h"

#include "edge/EdgeDialect.h"
#include "etch/Quantization/QdqPattern.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace etch::edge;

namespace etch::vulkan {
namespace {

/// Vulkan guarantees storage buffer ranges of 2^27 bytes on every device.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 27;

bool isStaticF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32() && tensor.hasStaticShape() &&
         tensor.getRank() <= kMaxRank && tensor.getNumElements() > 0 &&
         tensor.getNumElements() * 4 <= kMaxTensorBytes;
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

std::string convolutionRule(ConvolutionOp conv) {
  if (conv.getTransposed())
    return "transposed convolution";
  return "";
}

std::string addmmRule(AddmmOp addmm) {
  if (addmm.getBeta().convertToDouble() != 1.0 ||
      addmm.getAlpha().convertToDouble() != 1.0)
    return "beta or alpha != 1";
  return "";
}

/// Reductions run one dim at a time, so any dims will do.
std::string poolingRule(Operation *op) {
  if (auto pool = dyn_cast<MaxPool2dOp>(op))
    return rankOf(pool.getSelf()) == 4 ? "" : "needs NCHW input";
  if (auto pool = dyn_cast<AvgPool2dOp>(op))
    return rankOf(pool.getSelf()) == 4 ? "" : "needs NCHW input";
  auto pool = cast<AdaptiveAvgPool2dOp>(op);
  return rankOf(pool.getSelf()) == 4 ? "" : "needs NCHW input";
}

} // namespace

std::optional<ActivationForm> activationForm(Operation *op) {
  std::optional<etch::ActivationForm> form = etch::activationForm(op);
  if (!form)
    return std::nullopt;
  using Kind = etch::ActivationForm::Kind;
  static const std::pair<Kind, Activation> kShaderActivation[] = {
      {Kind::Relu, Activation::Relu},
      {Kind::Clamp, Activation::Clamp},
      {Kind::LeakyRelu, Activation::LeakyRelu},
      {Kind::Elu, Activation::Elu},
      {Kind::GeluErf, Activation::GeluErf},
      {Kind::GeluTanh, Activation::GeluTanh},
      {Kind::Hardswish, Activation::Hardswish},
      {Kind::Hardsigmoid, Activation::Hardsigmoid},
      {Kind::Sigmoid, Activation::Sigmoid},
      {Kind::Tanh, Activation::Tanh},
      {Kind::Silu, Activation::Silu},
      {Kind::Abs, Activation::Abs},
      {Kind::Sqrt, Activation::Sqrt},
      {Kind::Rsqrt, Activation::Rsqrt},
      {Kind::Exp, Activation::Exp},
      {Kind::Log, Activation::Log},
      {Kind::Neg, Activation::Neg},
      {Kind::Erf, Activation::Erf},
      {Kind::Reciprocal, Activation::Reciprocal},
      {Kind::Floor, Activation::Floor},
      {Kind::Ceil, Activation::Ceil},
      {Kind::Round, Activation::Round},
      {Kind::Sin, Activation::Sin},
      {Kind::Cos, Activation::Cos},
      {Kind::Trunc, Activation::Trunc},
      {Kind::Sign, Activation::Sign},
      {Kind::Expm1, Activation::Expm1},
      {Kind::Log1p, Activation::Log1p},
  };
  for (auto [kind, activation] : kShaderActivation)
    if (kind == form->kind)
      return ActivationForm{activation, form->alpha, form->beta};
  return std::nullopt;
}

std::optional<BinaryForm> binaryForm(Operation *op) {
  auto alphaOf = [&] {
    return float(op->getAttrOfType<FloatAttr>("alpha").getValueAsDouble());
  };
  if (isa<AddOp>(op))
    return BinaryForm{BinaryOp::Add, alphaOf()};
  if (isa<SubOp>(op))
    return BinaryForm{BinaryOp::Sub, alphaOf()};
  if (isa<MulOp>(op))
    return BinaryForm{BinaryOp::Mul};
  if (auto div = dyn_cast<DivOp>(op))
    return div->getAttr("rounding_mode") ? std::nullopt
                                         : std::optional(BinaryForm{BinaryOp::Div});
  if (isa<MaximumOp>(op))
    return BinaryForm{BinaryOp::Max};
  if (isa<MinimumOp>(op))
    return BinaryForm{BinaryOp::Min};
  if (isa<PowOp>(op))
    return BinaryForm{BinaryOp::Pow};
  return std::nullopt;
}

/// Empty when every operand and result is a tensor the shaders take;
/// otherwise which one is not.
std::string typeRule(Operation *op) {
  auto describe = [](const char *what, size_t index, Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " " << index << " is " << type
       << "; needs float32 of static shape, rank <= 6, at most 128 MiB";
    return text;
  };
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (!isStaticF32(type))
      return describe("operand", index, type);
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (!isStaticF32(type))
      return describe("result", index, type);
  return "";
}

/// Query [B, H, L, E] or [B, L, E] and key/value alike (fewer key/value
/// heads under enable_gqa); a float or bool mask of rank <= 4.
std::string attentionRule(ScaledDotProductAttentionOp attention) {
  for (Value value : {attention.getQuery(), attention.getKey(),
                      attention.getValue(), attention.getResult()})
    if (!isStaticF32(value.getType()))
      return "query, key, value and result must be float32 of static shape";
  int64_t rank = rankOf(attention.getQuery());
  if (rank != 3 && rank != 4)
    return "query of rank other than 3 or 4";
  if (attention.getDropoutP().convertToDouble() != 0.0)
    return "dropout";
  if (Value mask = attention.getAttnMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    bool boolean = type.getElementType().isInteger(1);
    if ((!isStaticF32(type) && !(boolean && type.hasStaticShape())) ||
        type.getRank() > rank)
      return "a mask other than float32 or bool of static shape";
  }
  return "";
}

std::string whyUnsupported(Operation *op) {
  if (auto attention = dyn_cast<ScaledDotProductAttentionOp>(op))
    return attentionRule(attention);
  if (std::string problem = typeRule(op); !problem.empty())
    return problem;
  if (activationForm(op))
    return "";
  if (isa<EluOp>(op))
    return "elu with scale or input_scale other than 1";
  if (binaryForm(op))
    return "";
  if (isa<DivOp>(op))
    return "div with a rounding mode";
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return convolutionRule(conv);
  if (auto addmm = dyn_cast<AddmmOp>(op))
    return addmmRule(addmm);
  if (isa<LinearOp, MmOp, BmmOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, MeanOp,
          SumOp, AmaxOp, AminOp, ViewOp, SqueezeOp, UnsqueezeOp, PermuteOp,
          TransposeOp, CatOp, SelectOp, ExpandOp>(op))
    return "";
  if (isa<SliceOp>(op))
    return ""; // a dynamic end is a size tensor, refused above
  if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp>(op))
    return poolingRule(op);
  return "no Vulkan shader";
}

} // namespace etch::vulkan
