//===- TorchMathComposites.cpp - ATen's composite math ops ----------------===//
//
// ATen ops that torch implements as compositions of others
// (CompositeImplicitAutograd). The training IR that torch.export returns
// keeps them as they were called (`torch.square`, `nn.RMSNorm`,
// `nn.PixelShuffle`, ...); run_decompositions() would expand them. Each is
// imported as the formula torch's own composite evaluates, in the same
// order, so values match the decomposed form:
//
//   square, isnan / isinf / isposinf / isneginf / isfinite, nan_to_num,
//   erfc, exp2, frac, deg2rad / rad2deg, sinc, logit, xlogy, hypot, atan2,
//   fmax / fmin, copysign, ldexp,
//   logaddexp, logaddexp2, logsumexp, addcmul / addcdiv, lerp, isclose,
//   selu / celu, mish, log_sigmoid, softshrink / hardshrink, threshold, glu,
//   prelu, rms_norm, instance_norm, cosine_similarity, isin, clamp with
//   tensor bounds, count_nonzero, and
//   mul / add of bools (logical and / or, as ATen computes them).
//
//===----------------------------------------------------------------------===//
#include "Formula.h"

#include "edge/EdgeTypeUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace etch::torch_import {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// The op's functional name: in-place forms ("aten::addcmul_") come through
/// the same handlers.
StringRef functionalName(TorchNode &node) {
  StringRef aten = node.aten();
  if (aten.ends_with("_") && !aten.ends_with("__"))
    aten = aten.drop_back();
  return aten;
}

/// The recorded result element type; null after an error.
Type resultElementType(TorchNode &node, size_t index = 0) {
  FailureOr<RankedTensorType> type = node.outputType(index);
  return succeeded(type) ? type->getElementType() : Type();
}

/// Tensor argument \p name, or scalar argument \p name as a 0-d constant of
/// \p type; null (reported) when it is neither.
Value tensorOrScalar(TorchNode &node, Formula &f, StringRef name, Type type) {
  if (Value value = node.tensor(name))
    return f.cast(value, type);
  if (std::optional<double> value = node.number(name))
    return f.constant(type, *value);
  node.error() << "needs a tensor or constant scalar '" << name << "'";
  return Value();
}

/// Binds \p value, which is null when a step failed (already reported).
LogicalResult bindFormula(TorchNode &node, Value value) {
  if (!value)
    return failure();
  return node.bind(value);
}

/// A unary float formula of self, in the result's type (integer inputs
/// become float, as ATen's unary float ops promote them).
template <Value (*Compute)(Formula &, Value, TorchNode &)>
LogicalResult importUnaryFormula(TorchNode &node) {
  Value input = node.self();
  Type type = resultElementType(node);
  if (!input || !type)
    return input ? failure() : node.error() << "needs a tensor input";
  Formula f(node);
  return bindFormula(node, Compute(f, f.cast(input, type), node));
}

/// A binary formula of the op's first two arguments (self and other,
/// values, exponent, ...: tensors or scalars) in the result's type.
template <Value (*Compute)(Formula &, Value, Value)>
LogicalResult importBinaryFormula(TorchNode &node) {
  Type type = resultElementType(node);
  if (!type)
    return failure();
  if (node.args().size() < 2)
    return node.error() << "needs two operands";
  Formula f(node);
  Value a = tensorOrScalar(node, f, node.args()[0].first, type);
  Value b = a ? tensorOrScalar(node, f, node.args()[1].first, type) : Value();
  if (!a || !b)
    return failure();
  return bindFormula(node, Compute(f, a, b));
}

Value square(Formula &f, Value x, TorchNode &) { return f.mul(x, x); }
Value erfc(Formula &f, Value x, TorchNode &) {
  return f.sub(f.constant(x, 1.0), f.op<edge::ErfOp>(x));
}
Value exp2(Formula &f, Value x, TorchNode &) {
  return f.op<edge::PowOp>(f.constant(x, 2.0), x);
}
Value frac(Formula &f, Value x, TorchNode &) {
  return f.sub(x, f.op<edge::TruncOp>(x));
}
Value deg2rad(Formula &f, Value x, TorchNode &) {
  return f.mul(x, f.constant(x, kPi / 180.0));
}
Value rad2deg(Formula &f, Value x, TorchNode &) {
  return f.mul(x, f.constant(x, 180.0 / kPi));
}
Value sinc(Formula &f, Value x, TorchNode &) {
  // sin(pi x) / (pi x), 1 at 0.
  Value scaled = f.mul(x, f.constant(x, kPi));
  return f.where(f.eq(x, f.constant(x, 0.0)), f.constant(x, 1.0),
                 f.div(f.op<edge::SinOp>(scaled), scaled));
}
Value logit(Formula &f, Value x, TorchNode &node) {
  // log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given.
  if (std::optional<double> eps = node.number("eps"))
    x = f.clamp(x, *eps, 1.0 - *eps);
  return f.log(f.div(x, f.sub(f.constant(x, 1.0), x)));
}
Value mish(Formula &f, Value x, TorchNode &) {
  // x * tanh(softplus(x)), softplus linear above 20 as ATen's.
  Value softplus = f.where(f.gt(x, f.constant(x, 20.0)), x, f.log1p(f.exp(x)));
  return f.mul(x, f.op<edge::TanhOp>(softplus));
}
Value logSigmoid(Formula &f, Value x, TorchNode &) {
  // min(x, 0) - log1p(exp(-|x|)): no overflow either way.
  Value zero = f.constant(x, 0.0);
  return f.sub(f.minimum(x, zero), f.log1p(f.exp(f.neg(f.abs(x)))));
}
Value selu(Formula &f, Value x, TorchNode &) {
  return f.op<edge::EluOp>(x, f.attr(1.6732632423543772848170429916717),
                           f.attr(1.0507009873554804934193349852946),
                           f.attr(1.0));
}
Value celu(Formula &f, Value x, TorchNode &node) {
  double alpha = node.number("alpha").value_or(1.0);
  return f.op<edge::EluOp>(x, f.attr(alpha), f.attr(1.0), f.attr(1.0 / alpha));
}
Value softshrink(Formula &f, Value x, TorchNode &node) {
  double lambda = node.number("lambd").value_or(0.5);
  Value high = f.constant(x, lambda), low = f.constant(x, -lambda);
  return f.where(f.gt(x, high), f.sub(x, high),
                 f.where(f.lt(x, low), f.add(x, high), f.constant(x, 0.0)));
}
Value hardshrink(Formula &f, Value x, TorchNode &node) {
  double lambda = node.number("lambd").value_or(0.5);
  Value outside =
      f.either(f.gt(x, f.constant(x, lambda)), f.lt(x, f.constant(x, -lambda)));
  return f.where(outside, x, f.constant(x, 0.0));
}
Value threshold(Formula &f, Value x, TorchNode &node) {
  std::optional<double> bound = node.number("threshold"),
                        value = node.number("value");
  if (!bound || !value) {
    node.error() << "needs constant 'threshold' and 'value'";
    return Value();
  }
  return f.where(f.gt(x, f.constant(x, *bound)), x, f.constant(x, *value));
}

/// isnan / isinf / isposinf / isneginf / isfinite: bool results; integers
/// are never NaN or infinite.
LogicalResult importFloatClass(TorchNode &node) {
  Value x = node.self();
  if (!x)
    return node.error() << "needs a tensor input";
  Formula f(node);
  StringRef aten = functionalName(node);
  if (!isa<FloatType>(getElementTypeOrSelf(x.getType()))) {
    Value same = aten == "aten::isfinite" ? f.eq(x, x) : f.ne(x, x);
    return bindFormula(node, same);
  }
  Value result;
  if (aten == "aten::isnan")
    result = f.ne(x, x);
  else if (aten == "aten::isinf")
    result = f.eq(f.abs(x), f.constant(x, kInfinity));
  else if (aten == "aten::isposinf")
    result = f.eq(x, f.constant(x, kInfinity));
  else if (aten == "aten::isneginf")
    result = f.eq(x, f.constant(x, -kInfinity));
  else // isfinite: neither NaN nor infinite
    result = f.lt(f.abs(x), f.constant(x, kInfinity));
  return bindFormula(node, result);
}

/// nan_to_num(self, nan=0, posinf=None, neginf=None): None means the type's
/// largest and lowest finite values.
LogicalResult importNanToNum(TorchNode &node) {
  Value x = node.self();
  if (!x)
    return node.error() << "needs a tensor input";
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(x.getType()));
  if (!type)
    return node.bind(x); // integers hold no NaN or infinity
  double largest =
      APFloat::getLargest(type.getFloatSemantics()).convertToDouble();
  Formula f(node);
  Value posinf = f.constant(x, node.number("posinf").value_or(largest));
  Value neginf = f.constant(x, node.number("neginf").value_or(-largest));
  Value result =
      f.where(f.ne(x, x), f.constant(x, node.number("nan").value_or(0)), x);
  result = f.where(f.eq(x, f.constant(x, kInfinity)), posinf, result);
  result = f.where(f.eq(x, f.constant(x, -kInfinity)), neginf, result);
  return bindFormula(node, result);
}

Value hypot(Formula &f, Value a, Value b) {
  return f.op<edge::SqrtOp>(f.add(f.mul(a, a), f.mul(b, b)));
}
Value xlogy(Formula &f, Value x, Value y) {
  // 0 where x is 0 (unless y is NaN), x * log(y) elsewhere.
  Value zero = f.constant(x, 0.0);
  Value product = f.mul(x, f.log(y));
  return f.where(f.both(f.eq(x, zero), f.eq(y, y)), zero, product);
}
Value atan2(Formula &f, Value y, Value x) {
  // atan(y / x), moved into the quadrant of (x, y); on the axes as C's
  // atan2 for non-zero arguments.
  Value zero = f.constant(x, 0.0), pi = f.constant(x, kPi);
  Value base = f.op<edge::AtanOp>(f.div(y, x));
  Value negativeX = f.lt(x, zero);
  Value shifted = f.where(f.ge(y, zero), f.add(base, pi), f.sub(base, pi));
  Value result = f.where(negativeX, shifted, base);
  Value halfPi = f.constant(x, kPi / 2);
  Value onAxis = f.where(f.gt(y, zero), halfPi,
                         f.where(f.lt(y, zero), f.constant(x, -kPi / 2), zero));
  return f.where(f.eq(x, zero), onAxis, result);
}
Value power(Formula &f, Value base, Value exponent) {
  return f.op<edge::PowOp>(base, exponent);
}

/// heaviside(self, values): values where self is 0, else self > 0.
Value heaviside(Formula &f, Value x, Value values) {
  Value zero = f.constant(x, 0.0);
  return f.where(f.eq(x, zero), values,
                 f.where(f.gt(x, zero), f.constant(x, 1.0), zero));
}

/// Whether \p x's sign bit is set: negative, or -0 (1 / -0 is -inf).
Value signBit(Formula &f, Value x) {
  Value zero = f.constant(x, 0.0);
  return f.either(
      f.lt(x, zero),
      f.both(f.eq(x, zero), f.lt(f.div(f.constant(x, 1.0), x), zero)));
}

LogicalResult importSignbit(TorchNode &node) {
  Value x = node.self();
  if (!x)
    return node.error() << "needs a tensor input";
  Formula f(node);
  if (!isa<FloatType>(getElementTypeOrSelf(x.getType())))
    return bindFormula(node, f.lt(x, f.constant(x, 0.0)));
  return bindFormula(node, signBit(f, x));
}

/// fmax / fmin: the other value where one is NaN (maximum / minimum
/// propagate NaN).
Value ignoringNaN(Formula &f, Value a, Value b, Value both) {
  return f.where(f.ne(a, a), b, f.where(f.ne(b, b), a, both));
}
Value fmax(Formula &f, Value a, Value b) {
  return ignoringNaN(f, a, b, f.maximum(a, b));
}
Value fmin(Formula &f, Value a, Value b) {
  return ignoringNaN(f, a, b, f.minimum(a, b));
}
Value copysign(Formula &f, Value a, Value b) {
  Value magnitude = f.abs(a);
  return f.where(signBit(f, b), f.neg(magnitude), magnitude);
}
Value ldexp(Formula &f, Value x, Value exponent) {
  return f.mul(x, f.op<edge::PowOp>(f.constant(x, 2.0), exponent));
}

/// log(exp(a) + exp(b)) as max + log1p(exp(-|a - b|)); equal infinities
/// give themselves (their difference is NaN). \p base2 for logaddexp2.
Value logAddExp(Formula &f, Value a, Value b, bool base2) {
  Value larger = f.maximum(a, b);
  Value gap = f.neg(f.abs(f.sub(a, b)));
  Value rest = base2
                   ? f.div(f.log1p(f.op<edge::PowOp>(f.constant(a, 2.0), gap)),
                           f.constant(a, std::log(2.0)))
                   : f.log1p(f.exp(gap));
  Value sameInfinity =
      f.both(f.eq(a, b), f.eq(f.abs(a), f.constant(a, kInfinity)));
  return f.where(sameInfinity, a, f.add(larger, rest));
}
Value logaddexp(Formula &f, Value a, Value b) {
  return logAddExp(f, a, b, false);
}
Value logaddexp2(Formula &f, Value a, Value b) {
  return logAddExp(f, a, b, true);
}

/// Dims argument \p name as non-negative dims of a rank-\p rank tensor (all
/// dims when absent or empty).
std::optional<SmallVector<int64_t>> dimsOf(TorchNode &node, StringRef name,
                                           int64_t rank) {
  SmallVector<int64_t> dims;
  if (node.has(name)) {
    if (std::optional<int64_t> one = node.integer(name))
      dims.push_back(*one);
    else if (std::optional<SmallVector<int64_t>> many = node.ints(name))
      dims = *many;
    else
      return std::nullopt;
  }
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  for (int64_t &d : dims) {
    if (d < -std::max<int64_t>(rank, 1) || d >= std::max<int64_t>(rank, 1))
      return std::nullopt;
    d = d < 0 ? d + std::max<int64_t>(rank, 1) : d;
  }
  return dims;
}

/// logsumexp(self, dim, keepdim): max + log(sum(exp(x - max))), the max
/// taken as 0 where it is infinite (as torch).
LogicalResult importLogSumExp(TorchNode &node) {
  Value input = node.self();
  Type type = resultElementType(node);
  if (!input || !type)
    return input ? failure() : node.error() << "needs a tensor input";
  Formula f(node);
  Value x = f.cast(input, type);
  int64_t rank = edge::rankedType(input).getRank();
  std::optional<SmallVector<int64_t>> dims = dimsOf(node, "dim", rank);
  if (!dims)
    return node.error() << "needs constant dims within rank " << rank;
  if (rank == 0)
    x = f.reshape(x, {1});
  bool keepdim = node.boolean("keepdim").value_or(false);
  DenseI64ArrayAttr dimsAttr = node.builder().getDenseI64ArrayAttr(*dims);
  Value maxes = f.op<edge::AmaxOp>(x, dimsAttr, true);
  maxes = f.where(f.eq(f.abs(maxes), f.constant(x, kInfinity)),
                  f.constant(x, 0.0), maxes);
  Value sum = f.op<edge::SumOp>(f.exp(f.sub(x, maxes)), dimsAttr, keepdim);
  Value shift = keepdim ? maxes : f.op<edge::SumOp>(maxes, dimsAttr, false);
  Value result = f.add(f.log(sum), shift);
  if (rank == 0)
    result = f.reshape(result, {});
  return bindFormula(node, result);
}

/// addcmul / addcdiv(self, tensor1, tensor2, value=1): self + value * t1 op t2.
LogicalResult importAddcOp(TorchNode &node) {
  Type type = resultElementType(node);
  Value self = node.self(), t1 = node.tensor("tensor1"),
        t2 = node.tensor("tensor2");
  if (!type || !self || !t1 || !t2)
    return type ? node.error() << "needs tensors self, tensor1 and tensor2"
                : failure();
  Formula f(node);
  t1 = f.cast(t1, type);
  t2 = f.cast(t2, type);
  Value term =
      functionalName(node) == "aten::addcmul" ? f.mul(t1, t2) : f.div(t1, t2);
  return bindFormula(node, f.addScaled(f.cast(self, type), term,
                                       node.number("value").value_or(1.0)));
}

/// lerp(self, end, weight): torch's two-sided form, exact at both ends.
LogicalResult importLerp(TorchNode &node) {
  Type type = resultElementType(node);
  if (!type)
    return failure();
  Formula f(node);
  Value start = f.cast(node.self(), type),
        end = f.cast(node.tensor("end"), type);
  Value weight = tensorOrScalar(node, f, "weight", type);
  if (!start || !end || !weight)
    return failure();
  Value difference = f.sub(end, start);
  auto fromStart = [&] { return f.add(start, f.mul(weight, difference)); };
  auto fromEnd = [&] {
    return f.sub(end, f.mul(difference, f.sub(f.constant(start, 1.0), weight)));
  };
  // A constant weight picks its side here; a tensor one per element.
  std::optional<double> scalarWeight = node.number("weight");
  if (scalarWeight && !node.tensor("weight"))
    return bindFormula(node,
                       std::abs(*scalarWeight) < 0.5 ? fromStart() : fromEnd());
  Value nearStart = f.lt(f.abs(weight), f.constant(start, 0.5));
  return bindFormula(node, f.where(nearStart, fromStart(), fromEnd()));
}

/// isclose(self, other, rtol, atol, equal_nan): equal, or finite and within
/// atol + rtol * |other|.
LogicalResult importIsClose(TorchNode &node) {
  Value a = node.self(), b = node.tensor("other");
  if (!a || !b)
    return node.error() << "needs tensors self and other";
  Formula f(node);
  Value equal = f.eq(a, b);
  if (node.boolean("equal_nan").value_or(false))
    equal = f.either(equal, f.both(f.ne(a, a), f.ne(b, b)));
  if (!isa<FloatType>(getElementTypeOrSelf(a.getType())))
    return bindFormula(node, equal);
  double rtol = node.number("rtol").value_or(1e-5);
  double atol = node.number("atol").value_or(1e-8);
  Value allowed =
      f.add(f.constant(a, atol), f.mul(f.constant(a, rtol), f.abs(b)));
  Value gap = f.abs(f.sub(a, b));
  Value finite = f.lt(gap, f.constant(a, kInfinity));
  return bindFormula(node, f.either(equal, f.both(finite, f.le(gap, allowed))));
}

/// glu(self, dim): a * sigmoid(b), a and b the halves along dim.
LogicalResult importGlu(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  auto type = edge::rankedType(input);
  int64_t dim = node.integer("dim").value_or(-1);
  dim = dim < 0 ? dim + type.getRank() : dim;
  if (dim < 0 || dim >= type.getRank() || type.isDynamicDim(dim) ||
      type.getDimSize(dim) % 2)
    return node.error() << "dim " << dim << " of " << type
                        << " must have a static, even size (glu halves it)";
  int64_t half = type.getDimSize(dim) / 2;
  Builder &b = node.builder();
  Formula f(node);
  auto part = [&](int64_t start, int64_t end) {
    FailureOr<Value> slice = node.build<edge::SliceOp>(
        input, Value(), b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
        b.getI64IntegerAttr(end), b.getI64IntegerAttr(1));
    return succeeded(slice) ? *slice : Value();
  };
  return bindFormula(
      node, f.mul(part(0, half), f.op<edge::SigmoidOp>(part(half, 2 * half))));
}

/// prelu(self, weight): x where positive, weight * x elsewhere; weight has
/// one entry or one per channel (dim 1).
LogicalResult importPrelu(TorchNode &node) {
  Value x = node.self(), weight = node.tensor("weight");
  if (!x || !weight)
    return node.error() << "needs tensors self and weight";
  int64_t rank = edge::rankedType(x).getRank();
  int64_t count = edge::rankedType(weight).getNumElements();
  Formula f(node);
  if (count != 1 && rank >= 2) {
    SmallVector<int64_t> shape(rank, 1);
    shape[1] = count;
    weight = f.reshape(weight, shape);
  }
  return bindFormula(node,
                     f.where(f.gt(x, f.constant(x, 0.0)), x, f.mul(weight, x)));
}

/// rms_norm(input, normalized_shape, weight, eps): x * rsqrt(mean(x^2) + eps)
/// over the trailing dims, times weight; eps defaults to the type's epsilon.
LogicalResult importRmsNorm(TorchNode &node) {
  Value x = node.self();
  std::optional<SmallVector<int64_t>> shape = node.ints("normalized_shape");
  if (!x || !shape)
    return node.error() << "needs a tensor and a constant normalized_shape";
  auto type = edge::rankedType(x);
  auto element = dyn_cast<FloatType>(type.getElementType());
  int64_t rank = type.getRank(), count = shape->size();
  if (!element || count > rank)
    return node.error() << "needs a float input of rank at least " << count;
  SmallVector<int64_t> dims;
  for (int64_t d = rank - count; d < rank; ++d)
    dims.push_back(d);
  double epsilon =
      std::ldexp(1.0, 1 - static_cast<int>(APFloat::semanticsPrecision(
                              element.getFloatSemantics())));
  double eps = node.number("eps").value_or(epsilon);
  Formula f(node);
  Value meanSquare = f.op<edge::MeanOp>(
      f.mul(x, x), node.builder().getDenseI64ArrayAttr(dims), true);
  Value result =
      f.mul(x, f.op<edge::RsqrtOp>(f.add(meanSquare, f.constant(x, eps))));
  if (Value weight = node.tensor("weight"))
    result = f.mul(result, weight);
  return bindFormula(node, result);
}

/// clamp(self, min, max) with a tensor bound: max then min in the result
/// type; constant bounds keep the one-op form.
LogicalResult importClampTensor(TorchNode &node) {
  if (!node.tensor("min") && !node.tensor("max"))
    return node.importAs("aten::clamp");
  Type type = resultElementType(node);
  Value x = node.self();
  if (!type || !x)
    return type ? node.error() << "needs a tensor input" : failure();
  Formula f(node);
  Value result = f.cast(x, type);
  if (node.has("min"))
    result = f.maximum(result, tensorOrScalar(node, f, "min", type));
  if (node.has("max"))
    result = f.minimum(result, tensorOrScalar(node, f, "max", type));
  return bindFormula(node, result);
}

/// count_nonzero(self, dim): the nonzero entries summed as int64.
LogicalResult importCountNonzero(TorchNode &node) {
  Value x = node.self();
  if (!x)
    return node.error() << "needs a tensor input";
  int64_t rank = edge::rankedType(x).getRank();
  std::optional<SmallVector<int64_t>> dims = dimsOf(node, "dim", rank);
  if (!dims)
    return node.error() << "needs constant dims within rank " << rank;
  Formula f(node);
  Value counted =
      f.cast(f.ne(x, f.constant(x, 0.0)), node.builder().getI64Type());
  if (rank == 0)
    return bindFormula(node, counted);
  return bindFormula(
      node, f.op<edge::SumOp>(
                counted, node.builder().getDenseI64ArrayAttr(*dims), false));
}

/// isin(elements, test_elements, assume_unique, invert): each element
/// compared with every test element (a trailing dim), any of them; either
/// side may be a scalar.
LogicalResult importIsIn(TorchNode &node) {
  StringRef overload = node.overload();
  Value elements = node.tensor("elements");
  Value tests = node.tensor("test_elements");
  Formula f(node);
  Value found;
  if (overload == "Tensor_Scalar") {
    if (elements)
      found = f.eq(elements,
                   tensorOrScalar(node, f, "test_element",
                                  getElementTypeOrSelf(elements.getType())));
  } else if (overload == "Scalar_Tensor") {
    if (tests)
      found = f.op<edge::AnyOp>(
          f.eq(tests, tensorOrScalar(node, f, "element",
                                     getElementTypeOrSelf(tests.getType()))),
          DenseI64ArrayAttr(), false);
  } else if (elements && tests) {
    int64_t count = edge::rankedType(tests).getNumElements();
    Value column = f.op<edge::UnsqueezeOp>(elements, int64_t(-1));
    Value hits = f.eq(column, f.reshape(tests, {count}));
    found = f.op<edge::AnyOp>(hits, node.builder().getDenseI64ArrayAttr({-1}),
                              false);
  }
  if (!found)
    return node.error() << "needs tensors (or a scalar) to compare";
  if (node.boolean("invert").value_or(false))
    found = f.op<edge::LogicalNotOp>(found);
  return bindFormula(node, found);
}

/// cosine_similarity(x1, x2, dim=1, eps=1e-8): each side divided by its
/// norm (at least eps), then the products summed, as torch's composite.
LogicalResult importCosineSimilarity(TorchNode &node) {
  Value x1 = node.tensor("x1"), x2 = node.tensor("x2");
  Type type = resultElementType(node);
  if (!x1 || !x2 || !type)
    return type ? node.error() << "needs tensors x1 and x2" : failure();
  Formula f(node);
  x1 = f.cast(x1, type);
  x2 = f.cast(x2, type);
  DenseI64ArrayAttr dim =
      node.builder().getDenseI64ArrayAttr({node.integer("dim").value_or(1)});
  double eps = node.number("eps").value_or(1e-8);
  auto unit = [&](Value x) {
    Value norm = f.op<edge::PowOp>(f.op<edge::SumOp>(f.mul(x, x), dim, true),
                                   f.constant(x, 0.5));
    return f.div(x, f.maximum(norm, f.constant(x, eps)));
  };
  Value u1 = unit(x1), u2 = unit(x2);
  return bindFormula(node, f.op<edge::SumOp>(f.mul(u2, u1), dim, false));
}

/// instance_norm(input, weight, bias, running_mean, running_var,
/// use_input_stats, momentum, eps, cudnn_enabled): each sample's channels
/// normalized over their own positions (biased variance), or with the
/// running statistics; then the per-channel affine.
LogicalResult importInstanceNorm(TorchNode &node) {
  Value x = node.self();
  if (!x || edge::rankedType(x).getRank() < 3)
    return node.error() << "needs an input of rank 3 or more ([N, C, ...])";
  int64_t rank = edge::rankedType(x).getRank();
  double eps = node.number("eps").value_or(1e-5);
  Formula f(node);
  SmallVector<int64_t> channel(rank - 1, 1);
  channel.front() = -1; // [C, 1, ...] lines up with dim 1
  Value mean, variance;
  if (node.boolean("use_input_stats").value_or(true)) {
    SmallVector<int64_t> dims;
    for (int64_t d = 2; d < rank; ++d)
      dims.push_back(d);
    DenseI64ArrayAttr over = node.builder().getDenseI64ArrayAttr(dims);
    mean = f.op<edge::MeanOp>(x, over, true);
    Value centered = f.sub(x, mean);
    variance = f.op<edge::MeanOp>(f.mul(centered, centered), over, true);
  } else {
    Value runningMean = node.tensor("running_mean"),
          runningVar = node.tensor("running_var");
    if (!runningMean || !runningVar)
      return node.error() << "use_input_stats=False needs running_mean and "
                             "running_var";
    mean = f.reshape(runningMean, channel);
    variance = f.reshape(runningVar, channel);
  }
  Value result = f.mul(
      f.sub(x, mean), f.op<edge::RsqrtOp>(f.add(variance, f.constant(x, eps))));
  if (Value weight = node.tensor("weight"))
    result = f.mul(result, f.reshape(weight, channel));
  if (Value bias = node.tensor("bias"))
    result = f.add(result, f.reshape(bias, channel));
  return bindFormula(node, result);
}

/// mul / add of two bools: ATen's logical and / or (the Edge arithmetic
/// ops, and their kernels, take numbers).
LogicalResult importBoolArithmetic(TorchNode &node) {
  Type type = resultElementType(node);
  if (!type)
    return failure();
  StringRef aten = functionalName(node);
  bool bools = type.isInteger(1) && (aten == "aten::mul" ||
                                     node.number("alpha").value_or(1.0) == 1.0);
  if (!bools)
    return node.importAs(aten);
  Formula f(node);
  Value a = tensorOrScalar(node, f, "self", type);
  Value b = a ? tensorOrScalar(node, f, "other", type) : Value();
  return bindFormula(node, aten == "aten::mul" ? f.both(a, b) : f.either(a, b));
}

} // namespace

void addMathHandlers(TorchOpHandlers &handlers) {
  static const std::pair<const char *, TorchOpHandler> kHandlers[] = {
      {"aten::square", importUnaryFormula<square>},
      {"aten::erfc", importUnaryFormula<erfc>},
      {"aten::special_erfc", importUnaryFormula<erfc>},
      {"aten::exp2", importUnaryFormula<exp2>},
      {"aten::special_exp2", importUnaryFormula<exp2>},
      {"aten::frac", importUnaryFormula<frac>},
      {"aten::deg2rad", importUnaryFormula<deg2rad>},
      {"aten::rad2deg", importUnaryFormula<rad2deg>},
      {"aten::sinc", importUnaryFormula<sinc>},
      {"aten::special_sinc", importUnaryFormula<sinc>},
      {"aten::logit", importUnaryFormula<logit>},
      {"aten::special_logit", importUnaryFormula<logit>},
      {"aten::mish", importUnaryFormula<mish>},
      {"aten::log_sigmoid", importUnaryFormula<logSigmoid>},
      {"aten::selu", importUnaryFormula<selu>},
      {"aten::celu", importUnaryFormula<celu>},
      {"aten::softshrink", importUnaryFormula<softshrink>},
      {"aten::hardshrink", importUnaryFormula<hardshrink>},
      {"aten::threshold", importUnaryFormula<threshold>},
      {"aten::nan_to_num", importNanToNum},
      {"aten::hypot", importBinaryFormula<hypot>},
      {"aten::xlogy", importBinaryFormula<xlogy>},
      {"aten::special_xlogy", importBinaryFormula<xlogy>},
      {"aten::atan2", importBinaryFormula<atan2>},
      {"aten::arctan2", importBinaryFormula<atan2>},
      {"aten::float_power", importBinaryFormula<power>},
      {"aten::heaviside", importBinaryFormula<heaviside>},
      {"aten::signbit", importSignbit},
      {"aten::fmax", importBinaryFormula<fmax>},
      {"aten::fmin", importBinaryFormula<fmin>},
      {"aten::copysign", importBinaryFormula<copysign>},
      {"aten::ldexp", importBinaryFormula<ldexp>},
      {"aten::logaddexp", importBinaryFormula<logaddexp>},
      {"aten::logaddexp2", importBinaryFormula<logaddexp2>},
      {"aten::logsumexp", importLogSumExp},
      {"aten::special_logsumexp", importLogSumExp},
      {"aten::addcmul", importAddcOp},
      {"aten::addcdiv", importAddcOp},
      {"aten::lerp", importLerp},
      {"aten::isclose", importIsClose},
      {"aten::glu", importGlu},
      {"aten::prelu", importPrelu},
      {"aten::rms_norm", importRmsNorm},
      {"aten::count_nonzero", importCountNonzero},
      {"aten::isin", importIsIn},
      {"aten::cosine_similarity", importCosineSimilarity},
      {"aten::instance_norm", importInstanceNorm},
      {"aten::clamp", importClampTensor},
      {"aten::mul", importBoolArithmetic},
      {"aten::add", importBoolArithmetic},
      {"aten::isnan", importFloatClass},
      {"aten::isinf", importFloatClass},
      {"aten::isposinf", importFloatClass},
      {"aten::isneginf", importFloatClass},
      {"aten::isfinite", importFloatClass},
  };
  for (const auto &[name, handler] : kHandlers)
    handlers[name] = handler;
}

} // namespace etch::torch_import
