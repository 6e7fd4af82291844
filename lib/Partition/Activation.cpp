//===- Activation.cpp - Elementwise functions as targets name them --------===//
#include "etch/Target/Activation.h"

#include "edge/EdgeDialect.h"

#include <cfloat>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace etch::edge;

namespace etch {

bool isClampLike(Operation *op, float &low, float &high) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  if (isa<ReluOp>(op)) {
    low = 0;
    high = inf;
    return true;
  }
  if (auto hardtanh = dyn_cast<HardtanhOp>(op)) {
    low = hardtanh.getMinVal().convertToDouble();
    high = hardtanh.getMaxVal().convertToDouble();
    return true;
  }
  if (auto clamp = dyn_cast<ClampOp>(op)) {
    low = clamp.getMin() ? clamp.getMin()->convertToDouble() : -inf;
    high = clamp.getMax() ? clamp.getMax()->convertToDouble() : inf;
    return true;
  }
  return false;
}

namespace {

using Kind = ActivationForm::Kind;

template <typename Op> bool is(Operation *op) { return isa<Op>(op); }

/// The ops that are their function, with no parameters.
struct Plain {
  bool (*matches)(Operation *);
  Kind kind;
};
const Plain kPlain[] = {
    {is<HardswishOp>, Kind::Hardswish},
    {is<HardsigmoidOp>, Kind::Hardsigmoid},
    {is<SigmoidOp>, Kind::Sigmoid},
    {is<TanhOp>, Kind::Tanh},
    {is<SiluOp>, Kind::Silu},
    {is<AbsOp>, Kind::Abs},
    {is<SqrtOp>, Kind::Sqrt},
    {is<RsqrtOp>, Kind::Rsqrt},
    {is<ExpOp>, Kind::Exp},
    {is<LogOp>, Kind::Log},
    {is<NegOp>, Kind::Neg},
    {is<ErfOp>, Kind::Erf},
    {is<ReciprocalOp>, Kind::Reciprocal},
    {is<FloorOp>, Kind::Floor},
    {is<CeilOp>, Kind::Ceil},
    {is<RoundOp>, Kind::Round},
    {is<SinOp>, Kind::Sin},
    {is<CosOp>, Kind::Cos},
    {is<TruncOp>, Kind::Trunc},
    {is<SignOp>, Kind::Sign},
    {is<Expm1Op>, Kind::Expm1},
    {is<Log1pOp>, Kind::Log1p},
};

} // namespace

std::optional<ActivationForm> activationForm(Operation *op) {
  float low, high;
  if (isClampLike(op, low, high)) {
    if (low == 0 && std::isinf(high) && high > 0)
      return ActivationForm{Kind::Relu};
    return ActivationForm{Kind::Clamp, std::max(low, -FLT_MAX),
                          std::min(high, FLT_MAX)};
  }
  if (auto leaky = dyn_cast<LeakyReluOp>(op))
    return ActivationForm{Kind::LeakyRelu,
                          float(leaky.getNegativeSlope().convertToDouble())};
  if (auto elu = dyn_cast<EluOp>(op)) {
    if (elu.getScale().convertToDouble() != 1.0 ||
        elu.getInputScale().convertToDouble() != 1.0)
      return std::nullopt;
    return ActivationForm{Kind::Elu, float(elu.getAlpha().convertToDouble())};
  }
  if (auto gelu = dyn_cast<GeluOp>(op))
    return ActivationForm{gelu.getApproximate() == "tanh" ? Kind::GeluTanh
                                                          : Kind::GeluErf};
  for (const Plain &entry : kPlain)
    if (entry.matches(op))
      return ActivationForm{entry.kind};
  return std::nullopt;
}

} // namespace etch
