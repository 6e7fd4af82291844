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
  float low, high;
  if (quantization::isClampLike(op, low, high)) {
    if (low == 0 && std::isinf(high) && high > 0)
      return ActivationForm{Activation::Relu};
    return ActivationForm{Activation::Clamp, std::max(low, -FLT_MAX),
                          std::min(high, FLT_MAX)};
  }
  if (auto leaky = dyn_cast<LeakyReluOp>(op))
    return ActivationForm{Activation::LeakyRelu,
                          float(leaky.getNegativeSlope().convertToDouble())};
  if (auto elu = dyn_cast<EluOp>(op)) {
    if (elu.getScale().convertToDouble() != 1.0 ||
        elu.getInputScale().convertToDouble() != 1.0)
      return std::nullopt;
    return ActivationForm{Activation::Elu,
                          float(elu.getAlpha().convertToDouble())};
  }
  if (auto gelu = dyn_cast<GeluOp>(op))
    return ActivationForm{gelu.getApproximate() == "tanh"
                              ? Activation::GeluTanh
                              : Activation::GeluErf};
  struct Plain {
    bool (*matches)(Operation *);
    Activation activation;
  };
  static const Plain plain[] = {
      {[](Operation *o) { return isa<HardswishOp>(o); }, Activation::Hardswish},
      {[](Operation *o) { return isa<HardsigmoidOp>(o); },
       Activation::Hardsigmoid},
      {[](Operation *o) { return isa<SigmoidOp>(o); }, Activation::Sigmoid},
      {[](Operation *o) { return isa<TanhOp>(o); }, Activation::Tanh},
      {[](Operation *o) { return isa<SiluOp>(o); }, Activation::Silu},
      {[](Operation *o) { return isa<AbsOp>(o); }, Activation::Abs},
      {[](Operation *o) { return isa<SqrtOp>(o); }, Activation::Sqrt},
      {[](Operation *o) { return isa<RsqrtOp>(o); }, Activation::Rsqrt},
      {[](Operation *o) { return isa<ExpOp>(o); }, Activation::Exp},
      {[](Operation *o) { return isa<LogOp>(o); }, Activation::Log},
      {[](Operation *o) { return isa<NegOp>(o); }, Activation::Neg},
      {[](Operation *o) { return isa<ErfOp>(o); }, Activation::Erf},
      {[](Operation *o) { return isa<ReciprocalOp>(o); },
       Activation::Reciprocal},
      {[](Operation *o) { return isa<FloorOp>(o); }, Activation::Floor},
      {[](Operation *o) { return isa<CeilOp>(o); }, Activation::Ceil},
      {[](Operation *o) { return isa<RoundOp>(o); }, Activation::Round},
      {[](Operation *o) { return isa<SinOp>(o); }, Activation::Sin},
      {[](Operation *o) { return isa<CosOp>(o); }, Activation::Cos},
      {[](Operation *o) { return isa<TruncOp>(o); }, Activation::Trunc},
      {[](Operation *o) { return isa<SignOp>(o); }, Activation::Sign},
      {[](Operation *o) { return isa<Expm1Op>(o); }, Activation::Expm1},
      {[](Operation *o) { return isa<Log1pOp>(o); }, Activation::Log1p},
  };
  for (const Plain &entry : plain)
    if (entry.matches(op))
      return ActivationForm{entry.activation};
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
