//===- OnnxComposedOps.cpp - ONNX ops written as several Edge ops ---------===//
//
// One small handler per ONNX operator that has no Edge op of its own but is a
// short row of Edge ops; `composedOps()` is the table the importer reads.
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;

namespace etch::onnx_import {

//===----------------------------------------------------------------------===//
// Compose
//===----------------------------------------------------------------------===//

Value Compose::scalar(Value like, double value) {
  return like ? scalarOf(typeOf(like).getElementType(), value) : Value();
}

Value Compose::scalarOf(Type element, double value) {
  return importer.edge.scalarConstant(loc, element, value);
}

Value Compose::int64s(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, importer.builder.getI64Type());
  return importer.edge.constantFromBytes(
      loc, type,
      ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(int64_t)),
      "");
}

Value Compose::flip(Value value, int64_t dim) {
  if (!value)
    return {};
  int64_t extent = typeOf(value).getDimSize(dim);
  std::vector<int64_t> reversed(extent);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return op<edge::IndexSelectOp>({value, int64s({extent}, reversed)},
                                 {attr("dim", dim)});
}

Value Compose::wrapNegative(Value index, int64_t extent) {
  if (!index)
    return {};
  // Constant indices (most models') wrap here rather than at run time.
  DenseIntElementsAttr known;
  RankedTensorType type = typeOf(index);
  if (matchPattern(index, m_Constant(&known)) && type.hasStaticShape() &&
      type.getElementType().isInteger(64)) {
    std::vector<int64_t> wrapped;
    for (const APInt &value : known.getValues<APInt>())
      wrapped.push_back(value.getSExtValue() < 0 ? value.getSExtValue() + extent
                                                 : value.getSExtValue());
    return int64s(type.getShape(), wrapped);
  }
  Value negative = op<edge::LtOp>({index, scalar(index, 0)});
  Value wrapped = op<edge::AddOp>({index, scalar(index, extent)});
  return op<edge::WhereOp>({negative, wrapped, index});
}

Value Compose::view(Value value, ArrayRef<int64_t> shape) {
  FailureOr<Value> result =
      value ? importer.view(loc, value, shape) : FailureOr<Value>(failure());
  return succeeded(result) ? *result : Value();
}

Value Compose::permute(Value value, ArrayRef<int64_t> dims) {
  FailureOr<Value> result =
      value ? importer.permute(loc, value, dims) : FailureOr<Value>(failure());
  return succeeded(result) ? *result : Value();
}

Value Compose::cast(Value value, Type element) {
  if (!value || typeOf(value).getElementType() == element)
    return value;
  return op<edge::ToCopyOp>(
      value, {importer.builder.getNamedAttr("dtype", TypeAttr::get(element))});
}

NamedAttribute Compose::attr(StringRef name, int64_t value) {
  return importer.builder.getNamedAttr(
      name, importer.builder.getI64IntegerAttr(value));
}

NamedAttribute Compose::attr(StringRef name, double value) {
  return importer.builder.getNamedAttr(name,
                                       importer.builder.getF64FloatAttr(value));
}

NamedAttribute Compose::boolAttr(StringRef name, bool value) {
  return importer.builder.getNamedAttr(name,
                                       importer.builder.getBoolAttr(value));
}

NamedAttribute Compose::attr(StringRef name, ArrayRef<int64_t> values) {
  return importer.builder.getNamedAttr(
      name, importer.builder.getDenseI64ArrayAttr(values));
}

Value Compose::affine(Value x, double alpha, double beta) {
  return op<edge::AddOp>(
      {op<edge::MulOp>({x, scalar(x, alpha)}), scalar(x, beta)});
}

Value Compose::softplusOf(Value x) {
  return op<edge::Log1pOp>(op<edge::ExpOp>(x));
}

Value Compose::softsignOf(Value x) {
  return op<edge::DivOp>(
      {x, op<edge::AddOp>({op<edge::AbsOp>(x), scalar(x, 1)})});
}

Value Compose::thresholdedReluOf(Value x, double alpha) {
  return op<edge::WhereOp>(
      {op<edge::GtOp>({x, scalar(x, alpha)}), x, scalar(x, 0)});
}

Value Compose::hardSigmoidOf(Value x, double alpha, double beta) {
  return op<edge::ClampOp>(affine(x, alpha, beta),
                           {attr("min", 0.0), attr("max", 1.0)});
}

LogicalResult Compose::bind(Value value, size_t output) {
  if (!value)
    return failure();
  return importer.bind(node, value, output);
}

LogicalResult Compose::bindResults(Value first) {
  if (!first)
    return failure();
  for (auto [index, result] :
       llvm::enumerate(first.getDefiningOp()->getResults()))
    if (failed(bind(result, index)))
      return failure();
  return success();
}

int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

FailureOr<int64_t> checkedAxis(Compose &c, int64_t axis, int64_t rank) {
  int64_t normalized = normalizedAxis(axis, rank);
  if (normalized < 0 || normalized >= rank)
    return c.importer.nodeError(c.node)
           << "axis " << axis << " is out of range for rank " << rank;
  return normalized;
}

namespace {

//===----------------------------------------------------------------------===//
// Activations and predicates
//===----------------------------------------------------------------------===//

LogicalResult softplus(Compose &c) { return c.bind(c.softplusOf(c.in(0))); }

LogicalResult softsign(Compose &c) { return c.bind(c.softsignOf(c.in(0))); }

LogicalResult selu(Compose &c) {
  return c.bind(c.op<edge::EluOp>(
      c.in(0),
      {c.attr("alpha", c.floatAttr("alpha", 1.67326319217681884765625)),
       c.attr("scale", c.floatAttr("gamma", 1.05070102214813232421875))}));
}

LogicalResult celu(Compose &c) {
  double alpha = c.floatAttr("alpha", 1.0);
  return c.bind(c.op<edge::EluOp>(
      c.in(0), {c.attr("alpha", alpha), c.attr("input_scale", 1.0 / alpha)}));
}

LogicalResult thresholdedRelu(Compose &c) {
  return c.bind(c.thresholdedReluOf(c.in(0), c.floatAttr("alpha", 1.0)));
}

LogicalResult mish(Compose &c) {
  Value x = c.in(0);
  return c.bind(c.op<edge::MulOp>({x, c.op<edge::TanhOp>(c.softplusOf(x))}));
}

LogicalResult shrink(Compose &c) {
  Value x = c.in(0);
  double lambd = c.floatAttr("lambd", 0.5), bias = c.floatAttr("bias", 0.0);
  Value below = c.op<edge::LtOp>({x, c.scalar(x, -lambd)});
  Value above = c.op<edge::GtOp>({x, c.scalar(x, lambd)});
  Value upper = c.op<edge::WhereOp>(
      {above, c.op<edge::SubOp>({x, c.scalar(x, bias)}), c.scalar(x, 0)});
  return c.bind(c.op<edge::WhereOp>(
      {below, c.op<edge::AddOp>({x, c.scalar(x, bias)}), upper}));
}

LogicalResult prelu(Compose &c) {
  Value x = c.in(0), slope = c.in(1);
  Value negative = c.op<edge::LtOp>({x, c.scalar(x, 0)});
  return c.bind(
      c.op<edge::WhereOp>({negative, c.op<edge::MulOp>({x, slope}), x}));
}

LogicalResult hardSigmoid(Compose &c) {
  return c.bind(c.hardSigmoidOf(c.in(0), c.floatAttr("alpha", 0.2),
                                c.floatAttr("beta", 0.5)));
}

LogicalResult isNaN(Compose &c) {
  Value x = c.in(0);
  return c.bind(c.op<edge::NeOp>({x, x}));
}

LogicalResult isInf(Compose &c) {
  Value x = c.in(0);
  bool positive = c.importer.intAttr(c.node, "detect_positive", 1) != 0;
  bool negative = c.importer.intAttr(c.node, "detect_negative", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  Value isPositive = c.op<edge::EqOp>({x, c.scalar(x, inf)});
  Value isNegative = c.op<edge::EqOp>({x, c.scalar(x, -inf)});
  if (positive && negative)
    return c.bind(c.op<edge::LogicalOrOp>({isPositive, isNegative}));
  if (positive || negative)
    return c.bind(positive ? isPositive : isNegative);
  return c.bind(c.op<edge::LogicalAndOp>({isPositive, isNegative}));
}

//===----------------------------------------------------------------------===//
// Variadic elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy> Value foldInputs(Compose &c) {
  Value result = c.in(0);
  for (size_t i = 1; i < c.node.inputs.size(); ++i)
    result = c.op<OpTy>({result, c.in(i)});
  return result;
}

LogicalResult sum(Compose &c) { return c.bind(foldInputs<edge::AddOp>(c)); }
LogicalResult max(Compose &c) { return c.bind(foldInputs<edge::MaximumOp>(c)); }
LogicalResult min(Compose &c) { return c.bind(foldInputs<edge::MinimumOp>(c)); }

LogicalResult mean(Compose &c) {
  Value total = foldInputs<edge::AddOp>(c);
  return c.bind(c.op<edge::DivOp>(
      {total, c.scalar(total, static_cast<double>(c.node.inputs.size()))}));
}

LogicalResult castLike(Compose &c) {
  Value x = c.in(0), like = c.in(1);
  return c.bind(like ? c.cast(x, c.typeOf(like).getElementType()) : Value());
}

//===----------------------------------------------------------------------===//
// Reductions written through sum, max and elementwise ops
//===----------------------------------------------------------------------===//

/// The reduce attributes of the node (axes from the attribute or a constant
/// input #1), or failure after an error.
FailureOr<SmallVector<NamedAttribute>> reduceAttributes(Compose &c,
                                                        bool keepdim) {
  SmallVector<NamedAttribute> attributes = {c.boolAttr("keepdim", keepdim)};
  std::optional<std::vector<int64_t>> axes = axesOf(c.importer, c.node, 1);
  if (!axes && c.importer.hasInput(c.node, 1))
    return c.importer.nodeError(c.node) << "axes must be constant";
  if (axes && !axes->empty())
    attributes.push_back(c.attr("dim", ArrayRef<int64_t>(*axes)));
  else if (c.importer.intAttr(c.node, "noop_with_empty_axes", 0) != 0)
    return c.importer.nodeError(c.node)
           << "noop_with_empty_axes=1 with no axes is not supported";
  return attributes;
}

bool keepdims(Compose &c) {
  return c.importer.intAttr(c.node, "keepdims", 1) != 0;
}

Value reduceSum(Compose &c, Value x, bool keepdim) {
  FailureOr<SmallVector<NamedAttribute>> attributes =
      reduceAttributes(c, keepdim);
  return failed(attributes) ? Value() : c.op<edge::SumOp>(x, *attributes);
}

LogicalResult reduceSumSquare(Compose &c) {
  Value x = c.in(0);
  return c.bind(reduceSum(c, c.op<edge::MulOp>({x, x}), keepdims(c)));
}

LogicalResult reduceL1(Compose &c) {
  return c.bind(reduceSum(c, c.op<edge::AbsOp>(c.in(0)), keepdims(c)));
}

LogicalResult reduceL2(Compose &c) {
  Value x = c.in(0);
  return c.bind(
      c.op<edge::SqrtOp>(reduceSum(c, c.op<edge::MulOp>({x, x}), keepdims(c))));
}

LogicalResult reduceLogSum(Compose &c) {
  return c.bind(c.op<edge::LogOp>(reduceSum(c, c.in(0), keepdims(c))));
}

LogicalResult reduceLogSumExp(Compose &c) {
  // log(sum(exp(x - m))) + m with m the maximum: no overflow in exp.
  Value x = c.in(0);
  FailureOr<SmallVector<NamedAttribute>> kept = reduceAttributes(c, true);
  if (failed(kept))
    return failure();
  Value peak = c.op<edge::AmaxOp>(x, *kept);
  Value shifted = c.op<edge::ExpOp>(c.op<edge::SubOp>({x, peak}));
  Value result =
      c.op<edge::AddOp>({c.op<edge::LogOp>(reduceSum(c, shifted, true)), peak});
  if (keepdims(c) || !result)
    return c.bind(result);
  // Drop the reduced dims (every dim when no axes are given).
  std::optional<std::vector<int64_t>> axes = axesOf(c.importer, c.node, 1);
  int64_t rank = c.typeOf(x).getRank();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced =
        !axes || axes->empty() || llvm::any_of(*axes, [&](int64_t axis) {
          return normalizedAxis(axis, rank) == d;
        });
    if (!reduced)
      shape.push_back(c.typeOf(x).getDimSize(d));
  }
  return c.bind(c.view(result, shape));
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// NegativeLogLikelihoodLoss over log-probabilities [N, C, d...] and targets
/// [N, d...]: -log_prob[n, target, d] * weight[target], zero where the target
/// is ignore_index, then reduced (mean: divided by the summed weights).
Value negativeLogLikelihood(Compose &c, Value logProb, Value target,
                            Value weight) {
  if (!logProb || !target)
    return {};
  auto ignored = c.node.attributes.find("ignore_index");
  Value keep;
  Value safeTarget = c.cast(target, c.importer.builder.getI64Type());
  if (ignored != c.node.attributes.end()) {
    keep = c.op<edge::NeOp>(
        {safeTarget,
         c.scalar(safeTarget, static_cast<double>(ignored->second.i))});
    safeTarget =
        c.op<edge::WhereOp>({keep, safeTarget, c.scalar(safeTarget, 0)});
  }
  Value picked = c.op<edge::SqueezeOp>(
      c.op<edge::GatherOp>(
          {logProb,
           c.op<edge::UnsqueezeOp>(safeTarget, {c.attr("dim", int64_t{1})})},
          {c.attr("dim", int64_t{1})}),
      {c.attr("dim", ArrayRef<int64_t>{1})});
  Value loss = c.op<edge::NegOp>(picked);
  Value weights;
  if (weight) {
    RankedTensorType targetType = c.typeOf(safeTarget);
    if (!targetType || !targetType.hasStaticShape()) {
      c.importer.nodeError(c.node) << "weights need targets of static shape";
      return {};
    }
    Value flat = c.view(safeTarget, {targetType.getNumElements()});
    weights = c.view(
        c.op<edge::IndexSelectOp>({weight, flat}, {c.attr("dim", int64_t{0})}),
        targetType.getShape());
    loss = c.op<edge::MulOp>({loss, weights});
  }
  if (keep) {
    loss = c.op<edge::WhereOp>({keep, loss, c.scalar(loss, 0)});
    if (!weights)
      weights =
          c.op<edge::WhereOp>({keep, c.scalar(loss, 1), c.scalar(loss, 0)});
    else
      weights = c.op<edge::WhereOp>({keep, weights, c.scalar(loss, 0)});
  }
  std::string reduction = c.importer.stringAttr(c.node, "reduction", "mean");
  if (reduction == "none")
    return loss;
  Value total = c.op<edge::SumOp>(loss);
  if (reduction == "sum")
    return total;
  if (!weights)
    return c.op<edge::MeanOp>(loss);
  return c.op<edge::DivOp>({total, c.op<edge::SumOp>(weights)});
}

bool checkReduction(Compose &c) {
  std::string reduction = c.importer.stringAttr(c.node, "reduction", "mean");
  if (reduction == "none" || reduction == "sum" || reduction == "mean")
    return true;
  c.importer.nodeError(c.node)
      << "reduction '" << reduction << "' is not one of none, sum, mean";
  return false;
}

Value optionalInput(Compose &c, size_t index) {
  return c.importer.hasInput(c.node, index) ? c.in(index) : Value();
}

LogicalResult nllLoss(Compose &c) {
  if (!checkReduction(c))
    return failure();
  return c.bind(
      negativeLogLikelihood(c, c.in(0), c.in(1), optionalInput(c, 2)));
}

LogicalResult softmaxCrossEntropyLoss(Compose &c) {
  if (!checkReduction(c))
    return failure();
  Value logProb =
      c.op<edge::LogSoftmaxOp>(c.in(0), {c.attr("dim", int64_t{1})});
  if (failed(c.bind(
          negativeLogLikelihood(c, logProb, c.in(1), optionalInput(c, 2)))))
    return failure();
  return c.bind(logProb, 1);
}

} // namespace

LogicalResult composeLayerNormWithStatistics(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  int64_t rank = c.typeOf(x).getRank();
  FailureOr<int64_t> axis =
      checkedAxis(c, c.importer.intAttr(c.node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> dims;
  for (int64_t d = *axis; d < rank; ++d)
    dims.push_back(d);
  SmallVector<NamedAttribute> over = {c.attr("dim", ArrayRef(dims)),
                                      c.boolAttr("keepdim", true)};
  Value mean = c.op<edge::MeanOp>(x, over);
  Value centered = c.op<edge::SubOp>({x, mean});
  Value variance =
      c.op<edge::MeanOp>(c.op<edge::MulOp>({centered, centered}), over);
  double epsilon = c.floatAttr("epsilon", 1e-5);
  Value invStdDev = c.op<edge::RsqrtOp>(
      c.op<edge::AddOp>({variance, c.scalar(variance, epsilon)}));
  Value y = c.op<edge::MulOp>({centered, invStdDev});
  y = c.op<edge::MulOp>({y, c.in(1)});
  if (c.importer.hasInput(c.node, 2))
    y = c.op<edge::AddOp>({y, c.in(2)});
  if (failed(c.bind(y)) || failed(c.bind(mean, 1)))
    return failure();
  return c.bind(invStdDev, 2);
}

LogicalResult composeArgReduceLast(Compose &c) {
  // The last extreme is the first one of the reversed axis.
  Value x = c.in(0);
  if (!x)
    return failure();
  FailureOr<int64_t> axis = checkedAxis(
      c, c.importer.intAttr(c.node, "axis", 0), c.typeOf(x).getRank());
  if (failed(axis))
    return failure();
  int64_t extent = c.typeOf(x).getDimSize(*axis);
  if (ShapedType::isDynamic(extent))
    return c.importer.nodeError(c.node)
           << "select_last_index=1 needs a static extent along the axis";
  SmallVector<NamedAttribute> attributes = {
      c.attr("dim", *axis),
      c.boolAttr("keepdim", c.importer.intAttr(c.node, "keepdims", 1) != 0)};
  Value reversed = c.flip(x, *axis);
  Value index = c.node.opType == "ArgMax"
                    ? c.op<edge::ArgmaxOp>(reversed, attributes)
                    : c.op<edge::ArgminOp>(reversed, attributes);
  return c.bind(c.op<edge::SubOp>({c.scalar(index, extent - 1), index}));
}

static llvm::StringMap<Composition> buildTable() {
  llvm::StringMap<Composition> table = {
      {"Softplus", softplus},
      {"Softsign", softsign},
      {"Selu", selu},
      {"Celu", celu},
      {"ThresholdedRelu", thresholdedRelu},
      {"Mish", mish},
      {"Shrink", shrink},
      {"PRelu", prelu},
      {"HardSigmoid", hardSigmoid},
      {"IsNaN", isNaN},
      {"IsInf", isInf},
      {"Sum", sum},
      {"Mean", mean},
      {"Max", max},
      {"Min", min},
      {"CastLike", castLike},
      {"ReduceSumSquare", reduceSumSquare},
      {"ReduceL1", reduceL1},
      {"ReduceL2", reduceL2},
      {"ReduceLogSum", reduceLogSum},
      {"ReduceLogSumExp", reduceLogSumExp},
      {"Einsum", composeEinsum},
      {"RNN", composeRecurrent},
      {"GRU", composeRecurrent},
      {"LSTM", composeRecurrent},
      {"NegativeLogLikelihoodLoss", nllLoss},
      {"SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss},
  };
  addDataDependentCompositions(table);
  addIndexCompositions(table);
  return table;
}

const llvm::StringMap<Composition> &composedOps() {
  static const llvm::StringMap<Composition> table = buildTable();
  return table;
}

LogicalResult OnnxImporter::convertComposed(const OnnxNode &node) {
  Compose compose(*this, node);
  return composedOps().lookup(node.opType)(compose);
}

LogicalResult OnnxImporter::convertHardSigmoid(const OnnxNode &node) {
  // ATen's hardsigmoid is ONNX HardSigmoid with alpha = 1/6, beta = 1/2.
  float alpha = floatAttr(node, "alpha", 0.2f),
        beta = floatAttr(node, "beta", 0.5f);
  if (std::fabs(alpha - 1.0f / 6.0f) > 1e-6f || std::fabs(beta - 0.5f) > 1e-6f)
    return convertComposed(node);
  Value x = input(node, 0);
  if (!x)
    return failure();
  return bind(node, edge.create<edge::HardsigmoidOp>(locationOf(node), x));
}

} // namespace etch::onnx_import
