//===- OnnxTensorOps.cpp - Elementwise, activation and shape ops ----------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

#include <cmath>
#include <limits>
#include <string>

using namespace mlir;

namespace etch::onnx_import {

LogicalResult OnnxImporter::convertBinary(const OnnxNode &node) {
  Value lhs = input(node, 0), rhs = input(node, 1);
  if (!lhs || !rhs)
    return failure();
  Location loc = locationOf(node);
  StringRef op = node.opType;
  if (op == "Add")
    return bind(node, edge.create<edge::AddOp>(loc, ValueRange{lhs, rhs}));
  if (op == "Sub")
    return bind(node, edge.create<edge::SubOp>(loc, ValueRange{lhs, rhs}));
  if (op == "Mul")
    return bind(node, edge.create<edge::MulOp>(loc, ValueRange{lhs, rhs}));
  if (op == "And")
    return bind(node,
                edge.create<edge::LogicalAndOp>(loc, ValueRange{lhs, rhs}));
  if (op == "Or")
    return bind(node,
                edge.create<edge::LogicalOrOp>(loc, ValueRange{lhs, rhs}));
  if (op == "Xor")
    return bind(node,
                edge.create<edge::LogicalXorOp>(loc, ValueRange{lhs, rhs}));
  if (op == "BitShift") {
    std::string direction = stringAttr(node, "direction", "");
    if (direction == "LEFT")
      return bind(node, edge.create<edge::BitwiseLeftShiftOp>(
                            loc, ValueRange{lhs, rhs}));
    if (direction == "RIGHT")
      return bind(node, edge.create<edge::BitwiseRightShiftOp>(
                            loc, ValueRange{lhs, rhs}));
    return nodeError(node) << "direction must be LEFT or RIGHT, got '"
                           << direction << "'";
  }
  // Mod takes the divisor's sign (Python's %) unless fmod=1 (C's fmod).
  if (op == "Mod") {
    if (intAttr(node, "fmod", 0) != 0)
      return bind(node, edge.create<edge::FmodOp>(loc, ValueRange{lhs, rhs}));
    return bind(node,
                edge.create<edge::RemainderOp>(loc, ValueRange{lhs, rhs}));
  }
  // ONNX integer division truncates; float division is true division.
  SmallVector<NamedAttribute> attributes;
  if (isa<IntegerType>(rankedTypeOf(lhs).getElementType()))
    attributes.push_back(
        builder.getNamedAttr("rounding_mode", builder.getStringAttr("trunc")));
  return bind(node,
              edge.create<edge::DivOp>(loc, ValueRange{lhs, rhs}, attributes));
}

LogicalResult OnnxImporter::convertUnary(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  StringRef opName =
      llvm::StringSwitch<StringRef>(node.opType)
          .Case("Relu", edge::ReluOp::getOperationName())
          .Case("Sigmoid", edge::SigmoidOp::getOperationName())
          .Case("Tanh", edge::TanhOp::getOperationName())
          .Case("HardSwish", edge::HardswishOp::getOperationName())
          .Case("Exp", edge::ExpOp::getOperationName())
          .Case("Log", edge::LogOp::getOperationName())
          .Case("Sqrt", edge::SqrtOp::getOperationName())
          .Case("Neg", edge::NegOp::getOperationName())
          .Case("Abs", edge::AbsOp::getOperationName())
          .Case("Erf", edge::ErfOp::getOperationName())
          .Case("Sin", edge::SinOp::getOperationName())
          .Case("Cos", edge::CosOp::getOperationName())
          .Case("Tan", edge::TanOp::getOperationName())
          .Case("Asin", edge::AsinOp::getOperationName())
          .Case("Acos", edge::AcosOp::getOperationName())
          .Case("Atan", edge::AtanOp::getOperationName())
          .Case("Sinh", edge::SinhOp::getOperationName())
          .Case("Cosh", edge::CoshOp::getOperationName())
          .Case("Asinh", edge::AsinhOp::getOperationName())
          .Case("Acosh", edge::AcoshOp::getOperationName())
          .Case("Atanh", edge::AtanhOp::getOperationName())
          .Case("Sign", edge::SignOp::getOperationName())
          .Case("Reciprocal", edge::ReciprocalOp::getOperationName())
          .Case("Floor", edge::FloorOp::getOperationName())
          .Case("Ceil", edge::CeilOp::getOperationName())
          .Case("Round", edge::RoundOp::getOperationName())
          .Case("Not", edge::LogicalNotOp::getOperationName())
          .Default("");
  if (opName.empty())
    return nodeError(node) << "internal: no unary mapping for " << node.opType;
  return bind(node, edge.create(locationOf(node), opName, x));
}

LogicalResult OnnxImporter::convertLeakyReluOrElu(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  Location loc = locationOf(node);
  if (node.opType == "LeakyRelu")
    return bind(node,
                edge.create<edge::LeakyReluOp>(
                    loc, x,
                    {builder.getNamedAttr("negative_slope",
                                          builder.getF64FloatAttr(floatAttr(
                                              node, "alpha", 0.01f)))}));
  return bind(node, edge.create<edge::EluOp>(
                        loc, x,
                        {builder.getNamedAttr(
                            "alpha", builder.getF64FloatAttr(
                                         floatAttr(node, "alpha", 1.0f)))}));
}

LogicalResult OnnxImporter::convertClip(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  // Bounds known only at run time are maximum/minimum with those tensors.
  bool runtimeBound = false;
  for (size_t index : {1, 2})
    runtimeBound |= hasInput(node, index) && !constantInput(node, index);
  if (runtimeBound) {
    Compose compose(*this, node);
    Value result = x;
    if (hasInput(node, 1))
      result = compose.op<edge::MaximumOp>({result, compose.in(1)});
    if (hasInput(node, 2))
      result = compose.op<edge::MinimumOp>({result, compose.in(2)});
    return compose.bind(result);
  }
  auto bound = [&](size_t index) -> FailureOr<std::optional<double>> {
    if (!hasInput(node, index))
      return std::optional<double>();
    const OnnxTensor *tensor = constantInput(node, index);
    std::optional<std::vector<double>> values =
        tensor ? constantDoubles(*tensor) : std::nullopt;
    if (!values || values->size() != 1)
      return nodeError(node) << "input #" << index << " must be a scalar";
    return std::optional<double>(values->front());
  };
  FailureOr<std::optional<double>> low = bound(1), high = bound(2);
  if (failed(low) || failed(high))
    return failure();
  Location loc = locationOf(node);
  if (!*low && !*high) {
    values[node.outputs.front()] = x;
    return success();
  }
  bool isFloat = isa<FloatType>(rankedTypeOf(x).getElementType());
  if (isFloat && *low && *high)
    return bind(
        node,
        edge.create<edge::HardtanhOp>(
            loc, x,
            {builder.getNamedAttr("min_val", builder.getF64FloatAttr(**low)),
             builder.getNamedAttr("max_val",
                                  builder.getF64FloatAttr(**high))}));
  if (isFloat && *low && **low == 0.0 && !*high)
    return bind(node, edge.create<edge::ReluOp>(loc, x));
  SmallVector<NamedAttribute> attributes;
  if (*low)
    attributes.push_back(
        builder.getNamedAttr("min", builder.getF64FloatAttr(**low)));
  if (*high)
    attributes.push_back(
        builder.getNamedAttr("max", builder.getF64FloatAttr(**high)));
  return bind(node, edge.create<edge::ClampOp>(loc, x, attributes));
}

LogicalResult OnnxImporter::convertSoftmax(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  NamedAttribute dim = builder.getNamedAttr(
      "dim", builder.getI64IntegerAttr(intAttr(node, "axis", -1)));
  if (node.opType == "Softmax")
    return bind(node, edge.create<edge::SoftmaxOp>(locationOf(node), x, {dim}));
  return bind(node,
              edge.create<edge::LogSoftmaxOp>(locationOf(node), x, {dim}));
}

/// Product of extents; kDynamic when any is dynamic.
static int64_t product(ArrayRef<int64_t> extents) {
  int64_t result = 1;
  for (int64_t extent : extents) {
    if (ShapedType::isDynamic(extent))
      return ShapedType::kDynamic;
    result *= extent;
  }
  return result;
}

LogicalResult OnnxImporter::convertFlatten(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  int64_t axis = intAttr(node, "axis", 1);
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis > type.getRank())
    return nodeError(node) << "axis " << intAttr(node, "axis", 1)
                           << " is out of range for " << type;
  int64_t outer = product(type.getShape().take_front(axis));
  int64_t inner = product(type.getShape().drop_front(axis));
  if (ShapedType::isDynamic(outer) && ShapedType::isDynamic(inner))
    return nodeError(node) << "cannot flatten " << type
                           << " with unknown extents on both sides of axis";
  return bind(node, view(locationOf(node), x,
                         {ShapedType::isDynamic(outer) ? -1 : outer,
                          ShapedType::isDynamic(inner) ? -1 : inner}));
}

LogicalResult OnnxImporter::convertReshape(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  const OnnxTensor *shapeTensor = constantInput(node, 1);
  std::optional<std::vector<int64_t>> shape =
      shapeTensor ? constantInts(*shapeTensor) : std::nullopt;
  if (!shape)
    return nodeError(node) << "the target shape must be a constant";
  RankedTensorType type = rankedTypeOf(x);
  bool allowZero = intAttr(node, "allowzero", 0) != 0;
  for (size_t i = 0; i < shape->size(); ++i) {
    if ((*shape)[i] != 0 || allowZero)
      continue;
    // 0 copies the input extent at the same position.
    if (static_cast<int64_t>(i) >= type.getRank() || type.isDynamicDim(i))
      return nodeError(node) << "shape entry " << i
                             << " is 0 but the input extent there is unknown";
    (*shape)[i] = type.getDimSize(i);
  }
  return bind(node, view(locationOf(node), x, *shape));
}

LogicalResult OnnxImporter::convertTranspose(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  int64_t rank = rankedTypeOf(x).getRank();
  std::vector<int64_t> perm =
      intsAttr(node, "perm").value_or(std::vector<int64_t>());
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  return bind(node, permute(locationOf(node), x, perm));
}

LogicalResult OnnxImporter::convertConcat(const OnnxNode &node) {
  SmallVector<Value> tensors;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    Value value = input(node, i);
    if (!value)
      return failure();
    tensors.push_back(value);
  }
  return bind(
      node, edge.create<edge::CatOp>(
                locationOf(node), tensors,
                {builder.getNamedAttr("dim", builder.getI64IntegerAttr(
                                                 intAttr(node, "axis", 0)))}));
}

LogicalResult OnnxImporter::convertGather(const OnnxNode &node) {
  Value data = input(node, 0);
  if (!data)
    return failure();
  int64_t axis = intAttr(node, "axis", 0);
  Location loc = locationOf(node);
  const OnnxTensor *indexTensor = constantInput(node, 1);
  if (indexTensor && indexTensor->dims.empty()) {
    std::optional<std::vector<int64_t>> index = constantInts(*indexTensor);
    if (!index)
      return nodeError(node) << "indices must be integers";
    return bind(
        node, edge.create<edge::SelectOp>(
                  loc, data,
                  {builder.getNamedAttr("dim", builder.getI64IntegerAttr(axis)),
                   builder.getNamedAttr(
                       "index", builder.getI64IntegerAttr(index->front()))}));
  }
  if (axis == 0 && rankedTypeOf(data).getRank() == 2) {
    Value indices = input(node, 1);
    if (!indices)
      return failure();
    return bind(node,
                edge.create<edge::EmbeddingOp>(loc, ValueRange{data, indices}));
  }
  Compose compose(*this, node);
  return composeGather(compose);
}

std::optional<std::vector<int64_t>>
axesOf(OnnxImporter &importer, const OnnxNode &node, size_t inputIndex) {
  if (auto axes = importer.intsAttr(node, "axes"))
    return axes;
  if (const OnnxTensor *tensor = importer.constantInput(node, inputIndex))
    return importer.constantInts(*tensor);
  return std::nullopt;
}

LogicalResult OnnxImporter::convertUnsqueeze(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  std::optional<std::vector<int64_t>> axes = axesOf(*this, node, 1);
  if (!axes)
    return nodeError(node) << "axes must be constant";
  int64_t outRank = rankedTypeOf(x).getRank() + axes->size();
  for (int64_t &axis : *axes)
    if (axis < 0)
      axis += outRank;
  llvm::sort(*axes);
  FailureOr<Value> result = x;
  for (int64_t axis : *axes) {
    result = edge.create<edge::UnsqueezeOp>(
        locationOf(node), *result,
        {builder.getNamedAttr("dim", builder.getI64IntegerAttr(axis))});
    if (failed(result))
      break;
  }
  return bind(node, result);
}

LogicalResult OnnxImporter::convertSqueeze(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  SmallVector<NamedAttribute> attributes;
  if (hasInput(node, 1) || node.attributes.count("axes")) {
    std::optional<std::vector<int64_t>> axes = axesOf(*this, node, 1);
    if (!axes)
      return nodeError(node) << "axes must be constant";
    attributes.push_back(
        builder.getNamedAttr("dim", builder.getDenseI64ArrayAttr(*axes)));
  }
  return bind(node,
              edge.create<edge::SqueezeOp>(locationOf(node), x, attributes));
}

LogicalResult OnnxImporter::convertSlice(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  auto ints = [&](size_t index) -> std::optional<std::vector<int64_t>> {
    if (!hasInput(node, index))
      return std::vector<int64_t>();
    const OnnxTensor *tensor = constantInput(node, index);
    return tensor ? constantInts(*tensor) : std::nullopt;
  };
  std::optional<std::vector<int64_t>> starts = ints(1), ends = ints(2),
                                      axes = ints(3), steps = ints(4);
  if (!starts || !ends || !axes || !steps)
    return nodeError(node) << "starts, ends, axes and steps must be constants";
  if (axes->empty())
    for (size_t i = 0; i < starts->size(); ++i)
      axes->push_back(i);
  if (steps->empty())
    steps->assign(starts->size(), 1);
  if (ends->size() != starts->size() || axes->size() != starts->size() ||
      steps->size() != starts->size())
    return nodeError(node) << "starts, ends, axes and steps differ in length";
  FailureOr<Value> result = x;
  for (size_t i = 0; i < starts->size() && succeeded(result); ++i) {
    if ((*steps)[i] == 0)
      return nodeError(node) << "step 0 is invalid";
    if ((*steps)[i] < 0) {
      // Backwards: the positions ONNX's clamping gives, picked in order.
      RankedTensorType type = rankedTypeOf(*result);
      int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + type.getRank() : (*axes)[i];
      if (axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
        return nodeError(node) << "a negative step needs a static extent along "
                                  "axis "
                               << (*axes)[i] << ", got " << type;
      int64_t extent = type.getDimSize(axis);
      int64_t start = (*starts)[i], end = (*ends)[i];
      start = std::clamp<int64_t>(start < 0 ? start + extent : start, 0,
                                  extent - 1);
      end = std::clamp<int64_t>(end < 0 ? end + extent : end, -1, extent - 1);
      std::vector<int64_t> picked;
      for (int64_t at = start; at > end; at += (*steps)[i])
        picked.push_back(at);
      Compose compose(*this, node);
      Value index =
          compose.int64s({static_cast<int64_t>(picked.size())}, picked);
      result = edge.create<edge::IndexSelectOp>(
          locationOf(node), ValueRange{*result, index},
          {builder.getNamedAttr("dim", builder.getI64IntegerAttr(axis))});
      continue;
    }
    // ONNX uses INT64_MAX-like values for "to the end"; Edge omits `end`.
    SmallVector<NamedAttribute> attributes = {
        builder.getNamedAttr("dim", builder.getI64IntegerAttr((*axes)[i])),
        builder.getNamedAttr("start", builder.getI64IntegerAttr((*starts)[i])),
        builder.getNamedAttr("step", builder.getI64IntegerAttr((*steps)[i]))};
    if ((*ends)[i] < std::numeric_limits<int32_t>::max())
      attributes.push_back(
          builder.getNamedAttr("end", builder.getI64IntegerAttr((*ends)[i])));
    result = edge.create<edge::SliceOp>(locationOf(node), *result, attributes);
  }
  return bind(node, result);
}

LogicalResult OnnxImporter::convertReduce(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  std::optional<std::vector<int64_t>> axes = axesOf(*this, node, 1);
  if (!axes && hasInput(node, 1))
    return nodeError(node) << "axes must be constant";
  bool noopWithEmptyAxes = intAttr(node, "noop_with_empty_axes", 0) != 0;
  if ((!axes || axes->empty()) && noopWithEmptyAxes) {
    values[node.outputs.front()] = x;
    return success();
  }
  SmallVector<NamedAttribute> attributes = {builder.getNamedAttr(
      "keepdim", builder.getBoolAttr(intAttr(node, "keepdims", 1) != 0))};
  if (axes && !axes->empty())
    attributes.push_back(
        builder.getNamedAttr("dim", builder.getDenseI64ArrayAttr(*axes)));
  StringRef opName = llvm::StringSwitch<StringRef>(node.opType)
                         .Case("ReduceMean", edge::MeanOp::getOperationName())
                         .Case("ReduceSum", edge::SumOp::getOperationName())
                         .Case("ReduceProd", edge::ProdOp::getOperationName())
                         .Case("ReduceMax", edge::AmaxOp::getOperationName())
                         .Case("ReduceMin", edge::AminOp::getOperationName())
                         .Default("");
  if (opName.empty())
    return nodeError(node) << "internal: no reduction mapping";
  return bind(node, edge.create(locationOf(node), opName, x, attributes));
}

LogicalResult OnnxImporter::convertArgReduce(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  if (intAttr(node, "select_last_index", 0) != 0) {
    Compose compose(*this, node);
    return composeArgReduceLast(compose);
  }
  SmallVector<NamedAttribute> attributes = {
      builder.getNamedAttr("dim",
                           builder.getI64IntegerAttr(intAttr(node, "axis", 0))),
      builder.getNamedAttr(
          "keepdim", builder.getBoolAttr(intAttr(node, "keepdims", 1) != 0))};
  if (node.opType == "ArgMax")
    return bind(node,
                edge.create<edge::ArgmaxOp>(locationOf(node), x, attributes));
  return bind(node,
              edge.create<edge::ArgminOp>(locationOf(node), x, attributes));
}

LogicalResult OnnxImporter::convertGelu(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  return bind(node,
              edge.create<edge::GeluOp>(
                  locationOf(node), x,
                  {builder.getNamedAttr("approximate",
                                        builder.getStringAttr(stringAttr(
                                            node, "approximate", "none")))}));
}

LogicalResult OnnxImporter::convertCompare(const OnnxNode &node) {
  Value lhs = input(node, 0), rhs = input(node, 1);
  if (!lhs || !rhs)
    return failure();
  StringRef opName = llvm::StringSwitch<StringRef>(node.opType)
                         .Case("Equal", edge::EqOp::getOperationName())
                         .Case("Less", edge::LtOp::getOperationName())
                         .Case("LessOrEqual", edge::LeOp::getOperationName())
                         .Case("Greater", edge::GtOp::getOperationName())
                         .Case("GreaterOrEqual", edge::GeOp::getOperationName())
                         .Default("");
  if (opName.empty())
    return nodeError(node) << "internal: no comparison mapping";
  return bind(node,
              edge.create(locationOf(node), opName, ValueRange{lhs, rhs}));
}

LogicalResult OnnxImporter::convertWhere(const OnnxNode &node) {
  Value condition = input(node, 0), lhs = input(node, 1), rhs = input(node, 2);
  if (!condition || !lhs || !rhs)
    return failure();
  return bind(node, edge.create<edge::WhereOp>(
                        locationOf(node), ValueRange{condition, lhs, rhs}));
}

LogicalResult OnnxImporter::convertCast(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  Type target =
      elementTypeOf(static_cast<OnnxDataType>(intAttr(node, "to", 0)));
  if (!target)
    return nodeError(node) << "unsupported target type "
                           << intAttr(node, "to", 0);
  if (target == rankedTypeOf(x).getElementType()) {
    values[node.outputs.front()] = x;
    return success();
  }
  return bind(node,
              edge.create<edge::ToCopyOp>(
                  locationOf(node), x,
                  {builder.getNamedAttr("dtype", TypeAttr::get(target))}));
}

/// Where padded position \p at (from -begin) reads along an axis of
/// \p extent: mirrored without repeating the edge, the edge repeated, or
/// wrapped around.
static int64_t paddedSource(int64_t at, int64_t extent, StringRef mode) {
  if (mode == "edge" || extent == 1)
    return std::clamp<int64_t>(at, 0, extent - 1);
  if (mode == "wrap")
    return ((at % extent) + extent) % extent;
  int64_t period = 2 * (extent - 1), folded = std::abs(at) % period;
  return folded < extent ? folded : period - folded;
}

/// Pad modes that copy elements: per padded axis, an index_select of the
/// positions each output element reads (negative pads crop).
LogicalResult OnnxImporter::padByIndexing(const OnnxNode &node, Value x,
                                          ArrayRef<int64_t> pads,
                                          StringRef mode) {
  RankedTensorType type = rankedTypeOf(x);
  int64_t rank = type.getRank();
  FailureOr<Value> result = x;
  Compose compose(*this, node);
  for (int64_t d = 0; d < rank && succeeded(result); ++d) {
    int64_t begin = pads[d], end = pads[rank + d];
    if (begin == 0 && end == 0)
      continue;
    int64_t extent = type.getDimSize(d);
    if (type.isDynamicDim(d) || extent < 1 || extent + begin + end < 0 ||
        (mode == "reflect" && (begin >= extent || end >= extent)))
      return nodeError(node) << mode << " padding of [" << begin << ", " << end
                             << "] needs a static extent along dim " << d
                             << " (larger than the padding for reflect), "
                             << "got " << type;
    std::vector<int64_t> sources;
    for (int64_t at = -begin; at < extent + end; ++at)
      sources.push_back(paddedSource(at, extent, mode));
    Value index =
        compose.int64s({static_cast<int64_t>(sources.size())}, sources);
    result = edge.create<edge::IndexSelectOp>(
        locationOf(node), ValueRange{*result, index},
        {builder.getNamedAttr("dim", builder.getI64IntegerAttr(d))});
  }
  return bind(node, result);
}

LogicalResult OnnxImporter::convertPad(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  std::string mode = stringAttr(node, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return nodeError(node) << "mode '" << mode
                           << "' is not one of constant, reflect, edge, wrap";
  if (hasInput(node, 3))
    return nodeError(node) << "the axes input is not supported";
  const OnnxTensor *padTensor = constantInput(node, 1);
  std::optional<std::vector<int64_t>> pads =
      padTensor ? constantInts(*padTensor) : std::nullopt;
  if (!pads)
    return nodeError(node) << "pads must be a constant";
  int64_t rank = rankedTypeOf(x).getRank();
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return nodeError(node) << "pads has " << pads->size()
                           << " entries for rank " << rank;
  if (mode != "constant")
    return padByIndexing(node, x, *pads, mode);
  double value = 0;
  if (hasInput(node, 2)) {
    const OnnxTensor *valueTensor = constantInput(node, 2);
    std::optional<std::vector<double>> values =
        valueTensor ? constantDoubles(*valueTensor) : std::nullopt;
    if (!values || values->size() != 1)
      return nodeError(node) << "constant_value must be a constant scalar";
    value = values->front();
  }
  // ONNX: [begin_0 .. begin_n, end_0 .. end_n]; ATen: (begin, end) pairs
  // from the last dim.
  std::vector<int64_t> aten;
  for (int64_t d = rank - 1; d >= 0; --d) {
    aten.push_back((*pads)[d]);
    aten.push_back((*pads)[rank + d]);
  }
  return bind(
      node,
      edge.create<edge::ConstantPadNdOp>(
          locationOf(node), x,
          {builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(aten)),
           builder.getNamedAttr("value", builder.getF64FloatAttr(value))}));
}

LogicalResult OnnxImporter::convertSplit(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
    return nodeError(node) << "needs a static split axis, got " << type;
  std::vector<int64_t> sizes =
      intsAttr(node, "split").value_or(std::vector<int64_t>());
  if (sizes.empty() && hasInput(node, 1)) {
    const OnnxTensor *tensor = constantInput(node, 1);
    std::optional<std::vector<int64_t>> values =
        tensor ? constantInts(*tensor) : std::nullopt;
    if (!values)
      return nodeError(node) << "split sizes must be constant";
    sizes = *values;
  }
  int64_t count = node.outputs.size(), extent = type.getDimSize(axis);
  if (sizes.empty()) {
    if (extent % count)
      return nodeError(node) << "cannot split " << extent << " into " << count
                             << " equal parts";
    sizes.assign(count, extent / count);
  }
  if (static_cast<int64_t>(sizes.size()) != count)
    return nodeError(node) << sizes.size() << " split sizes for " << count
                           << " outputs";
  int64_t start = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (failed(bind(
            node,
            edge.create<edge::SliceOp>(
                locationOf(node), x,
                {builder.getNamedAttr("dim", builder.getI64IntegerAttr(axis)),
                 builder.getNamedAttr("start",
                                      builder.getI64IntegerAttr(start)),
                 builder.getNamedAttr(
                     "end", builder.getI64IntegerAttr(start + sizes[i]))}),
            i)))
      return failure();
    start += sizes[i];
  }
  return success();
}

const OnnxNode *OnnxImporter::producerOf(const std::string &name) const {
  return producers.lookup(name);
}

const OnnxNode *OnnxImporter::soleConsumerOf(const std::string &name) const {
  auto it = consumers.find(name);
  if (it == consumers.end() || it->second.size() != 1 ||
      useCounts.lookup(name) != 1)
    return nullptr;
  return it->second.front();
}

std::optional<double> OnnxImporter::scalarConstant(const std::string &name) {
  if (const OnnxTensor *tensor = constants.lookup(name)) {
    std::optional<std::vector<double>> values = constantDoubles(*tensor);
    if (values && values->size() == 1)
      return values->front();
    return std::nullopt;
  }
  const OnnxNode *producer = producerOf(name);
  if (!producer || producer->opType != "Constant")
    return std::nullopt;
  auto it = producer->attributes.find("value");
  if (it == producer->attributes.end() ||
      it->second.kind != OnnxAttribute::Kind::Tensor)
    return std::nullopt;
  std::optional<std::vector<double>> values = constantDoubles(it->second.t);
  if (values && values->size() == 1)
    return values->front();
  return std::nullopt;
}

/// torch.onnx exports exact GELU as x * 0.5 * (1 + erf(x / sqrt(2))):
/// Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(., 0.5), either
/// operand order. Matched at the Erf; the trailing nodes are skipped and the
/// Div is left dead (pure, removed by canonicalization).
LogicalResult OnnxImporter::convertErf(const OnnxNode &node) {
  auto near = [](std::optional<double> value, double expected) {
    return value && std::fabs(*value - expected) < 1e-4;
  };
  auto otherInput = [](const OnnxNode &binary, const std::string &known) {
    return binary.inputs.size() == 2
               ? (binary.inputs[0] == known ? binary.inputs[1]
                                            : binary.inputs[0])
               : std::string();
  };
  // Every link of the chain may be missing in a model that only looks like
  // the pattern: each is checked before it is followed.
  const OnnxNode *div =
      node.inputs.empty() ? nullptr : producerOf(node.inputs.front());
  const OnnxNode *add = soleConsumerOf(node.outputs.front());
  const OnnxNode *scale = add && !add->outputs.empty()
                              ? soleConsumerOf(add->outputs.front())
                              : nullptr;
  const OnnxNode *half = scale && !scale->outputs.empty()
                             ? soleConsumerOf(scale->outputs.front())
                             : nullptr;
  if (div && add && scale && half && !half->outputs.empty() &&
      div->opType == "Div" && div->inputs.size() == 2 &&
      near(scalarConstant(div->inputs[1]), std::sqrt(2.0)) &&
      add->opType == "Add" &&
      near(scalarConstant(otherInput(*add, node.outputs.front())), 1.0) &&
      scale->opType == "Mul" &&
      otherInput(*scale, add->outputs.front()) == div->inputs[0] &&
      half->opType == "Mul" &&
      near(scalarConstant(otherInput(*half, scale->outputs.front())), 0.5)) {
    OnnxNode gelu = *half;
    gelu.inputs = {div->inputs[0]};
    gelu.attributes.clear();
    fusedAway.insert(add);
    fusedAway.insert(scale);
    fusedAway.insert(half);
    return convertGelu(gelu);
  }
  return convertUnary(node);
}

} // namespace etch::onnx_import
