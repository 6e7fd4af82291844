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

namespace {

//===----------------------------------------------------------------------===//
// Activations and predicates
//===----------------------------------------------------------------------===//

double floatAttr(Compose &c, StringRef name, double fallback) {
  return c.importer.floatAttr(c.node, name, static_cast<float>(fallback));
}

LogicalResult softplus(Compose &c) { return c.bind(c.softplusOf(c.in(0))); }

LogicalResult softsign(Compose &c) { return c.bind(c.softsignOf(c.in(0))); }

LogicalResult selu(Compose &c) {
  return c.bind(c.op<edge::EluOp>(
      c.in(0),
      {c.attr("alpha", floatAttr(c, "alpha", 1.67326319217681884765625)),
       c.attr("scale", floatAttr(c, "gamma", 1.05070102214813232421875))}));
}

LogicalResult celu(Compose &c) {
  double alpha = floatAttr(c, "alpha", 1.0);
  return c.bind(c.op<edge::EluOp>(
      c.in(0), {c.attr("alpha", alpha), c.attr("input_scale", 1.0 / alpha)}));
}

LogicalResult thresholdedRelu(Compose &c) {
  return c.bind(c.thresholdedReluOf(c.in(0), floatAttr(c, "alpha", 1.0)));
}

LogicalResult mish(Compose &c) {
  Value x = c.in(0);
  return c.bind(c.op<edge::MulOp>({x, c.op<edge::TanhOp>(c.softplusOf(x))}));
}

LogicalResult shrink(Compose &c) {
  Value x = c.in(0);
  double lambd = floatAttr(c, "lambd", 0.5), bias = floatAttr(c, "bias", 0.0);
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
  return c.bind(c.hardSigmoidOf(c.in(0), floatAttr(c, "alpha", 0.2),
                                floatAttr(c, "beta", 0.5)));
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

int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
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
// Indexing and layout
//===----------------------------------------------------------------------===//

FailureOr<int64_t> checkedAxis(Compose &c, int64_t axis, int64_t rank) {
  int64_t normalized = normalizedAxis(axis, rank);
  if (normalized < 0 || normalized >= rank)
    return c.importer.nodeError(c.node)
           << "axis " << axis << " is out of range for rank " << rank;
  return normalized;
}

/// Indices as i64 with negative ones wrapped by \p extent.
Value indices(Compose &c, Value index, int64_t extent) {
  if (!index)
    return {};
  index = c.cast(index, c.importer.builder.getI64Type());
  if (ShapedType::isDynamic(extent))
    return index;
  return c.wrapNegative(index, extent);
}

LogicalResult gatherElements(Compose &c) {
  Value data = c.in(0), index = c.in(1);
  if (!data || !index)
    return failure();
  FailureOr<int64_t> axis = checkedAxis(
      c, c.importer.intAttr(c.node, "axis", 0), c.typeOf(data).getRank());
  if (failed(axis))
    return failure();
  Value wrapped = indices(c, index, c.typeOf(data).getDimSize(*axis));
  return c.bind(c.op<edge::GatherOp>({data, wrapped}, {c.attr("dim", *axis)}));
}

} // namespace

/// ONNX Gather in general: index_select on the flattened indices, viewed as
/// data[:axis] + indices + data[axis+1:].
LogicalResult composeGather(Compose &c) {
  Value data = c.in(0), index = c.in(1);
  if (!data || !index)
    return failure();
  RankedTensorType dataType = c.typeOf(data), indexType = c.typeOf(index);
  FailureOr<int64_t> axis =
      checkedAxis(c, c.importer.intAttr(c.node, "axis", 0), dataType.getRank());
  if (failed(axis))
    return failure();
  if (!indexType.hasStaticShape())
    return c.importer.nodeError(c.node)
           << "indices of unknown shape " << indexType << " are not supported";
  Value flat = c.view(indices(c, index, dataType.getDimSize(*axis)),
                      {indexType.getNumElements()});
  Value picked =
      c.op<edge::IndexSelectOp>({data, flat}, {c.attr("dim", *axis)});
  SmallVector<int64_t> shape(dataType.getShape().take_front(*axis));
  llvm::append_range(shape, indexType.getShape());
  llvm::append_range(shape, dataType.getShape().drop_front(*axis + 1));
  for (int64_t &extent : shape)
    if (ShapedType::isDynamic(extent))
      extent = -1;
  return c.bind(c.view(picked, shape));
}

namespace {

std::optional<std::vector<int64_t>> constantInts(Compose &c, size_t index) {
  const OnnxTensor *tensor = c.importer.constantInput(c.node, index);
  return tensor ? c.importer.constantInts(*tensor) : std::nullopt;
}

/// [0, 1, ..., extent-1] laid along dimension \p dim of a rank-\p rank
/// tensor whose other extents are 1.
Value positions(Compose &c, int64_t extent, int64_t dim, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = extent;
  std::vector<int64_t> values(extent);
  std::iota(values.begin(), values.end(), 0);
  return c.int64s(shape, values);
}

LogicalResult trilu(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  bool upper = c.importer.intAttr(c.node, "upper", 1) != 0;
  int64_t k = 0;
  if (c.importer.hasInput(c.node, 1)) {
    std::optional<std::vector<int64_t>> diagonal = constantInts(c, 1);
    if (!diagonal) {
      // k known only at run time: keep where column - row compares with k.
      RankedTensorType type = c.typeOf(x);
      int64_t rank = type.getRank();
      if (rank < 2 || type.isDynamicDim(rank - 1) ||
          type.isDynamicDim(rank - 2))
        return c.importer.nodeError(c.node)
               << "expected static matrix extents, got " << type;
      Value offset = c.op<edge::SubOp>(
          {positions(c, type.getDimSize(rank - 1), rank - 1, rank),
           positions(c, type.getDimSize(rank - 2), rank - 2, rank)});
      Value diagonalK = c.cast(c.in(1), c.importer.builder.getI64Type());
      Value keep = upper ? c.op<edge::GeOp>({offset, diagonalK})
                         : c.op<edge::LeOp>({offset, diagonalK});
      return c.bind(c.op<edge::WhereOp>({keep, x, c.scalar(x, 0)}));
    }
    if (diagonal->size() != 1)
      return c.importer.nodeError(c.node) << "k must be a scalar";
    k = diagonal->front();
  }
  if (upper)
    return c.bind(c.op<edge::TriuOp>(x, {c.attr("diagonal", k)}));
  return c.bind(c.op<edge::TrilOp>(x, {c.attr("diagonal", k)}));
}

/// The components of ONNX's index tuples ([..., k] -> k tensors [...]),
/// each wrapped by its dimension's extent in \p data.
FailureOr<SmallVector<Value>> indexComponents(Compose &c, Value data,
                                              Value index, int64_t first) {
  RankedTensorType indexType = c.typeOf(index);
  int64_t last = indexType.getRank() - 1;
  int64_t k = last < 0 ? ShapedType::kDynamic : indexType.getDimSize(last);
  if (ShapedType::isDynamic(k) || first + k > c.typeOf(data).getRank())
    return c.importer.nodeError(c.node)
           << "indices " << indexType << " need a static last extent of at "
           << "most the data's rank " << c.typeOf(data).getRank();
  SmallVector<Value> components;
  for (int64_t j = 0; j < k; ++j)
    components.push_back(indices(
        c,
        c.op<edge::SelectOp>(index, {c.attr("dim", last), c.attr("index", j)}),
        c.typeOf(data).getDimSize(first + j)));
  return components;
}

LogicalResult gatherND(Compose &c) {
  Value data = c.in(0), index = c.in(1);
  if (!data || !index)
    return failure();
  int64_t batch = c.importer.intAttr(c.node, "batch_dims", 0);
  RankedTensorType indexType = c.typeOf(index);
  if (batch < 0 || batch >= indexType.getRank() || !indexType.hasStaticShape())
    return c.importer.nodeError(c.node)
           << "batch_dims " << batch << " does not fit indices " << indexType;
  FailureOr<SmallVector<Value>> components =
      indexComponents(c, data, index, batch);
  if (failed(components))
    return failure();
  // Batch dimensions are indexed by their own position.
  int64_t gridRank = indexType.getRank() - 1;
  SmallVector<Value> all;
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < batch; ++d) {
    all.push_back(positions(c, indexType.getDimSize(d), d, gridRank));
    dims.push_back(d);
  }
  for (auto [j, component] : llvm::enumerate(*components)) {
    all.push_back(component);
    dims.push_back(batch + static_cast<int64_t>(j));
  }
  SmallVector<Value> operands = {data};
  llvm::append_range(operands, all);
  return c.bind(
      c.op<edge::IndexOp>(operands, {c.attr("indexed_dims", ArrayRef(dims))}));
}

/// index_put of \p updates at the index tuples; add accumulates.
FailureOr<bool> scatterAccumulates(Compose &c) {
  std::string reduction = c.importer.stringAttr(c.node, "reduction", "none");
  if (reduction == "none" || reduction == "add")
    return reduction == "add";
  return c.importer.nodeError(c.node)
         << "reduction '" << reduction
         << "' is not supported (none, add, mul, max, min)";
}

/// ScatterND with reduction mul, max or min: every updated element's flat
/// position in data (the index components times data's strides, plus the
/// position within the slice), then one scatter over the flattened data.
LogicalResult scatterNDReduced(Compose &c, StringRef reduce) {
  Value data = c.in(0), index = c.in(1), updates = c.in(2);
  if (!data || !index || !updates)
    return failure();
  RankedTensorType dataType = c.typeOf(data), updatesType = c.typeOf(updates);
  if (!dataType.hasStaticShape() || !updatesType.hasStaticShape())
    return c.importer.nodeError(c.node)
           << "a reduced ScatterND needs static data and updates, got "
           << dataType << " and " << updatesType;
  FailureOr<SmallVector<Value>> components = indexComponents(c, data, index, 0);
  if (failed(components))
    return failure();
  ArrayRef<int64_t> shape = dataType.getShape();
  int64_t k = static_cast<int64_t>(components->size()), slice = 1;
  for (int64_t d = k; d < dataType.getRank(); ++d)
    slice *= shape[d];
  Value base;
  int64_t stride = slice;
  for (int64_t j = k - 1; j >= 0; --j) {
    Value term = c.op<edge::MulOp>(
        {(*components)[j], c.scalar((*components)[j], stride)});
    base = base ? c.op<edge::AddOp>({base, term}) : term;
    stride *= shape[j];
  }
  // [batch..., 1] + [slice] positions within each slice.
  RankedTensorType baseType = c.typeOf(base);
  SmallVector<int64_t> column(baseType.getShape());
  column.push_back(1);
  std::vector<int64_t> within(slice);
  std::iota(within.begin(), within.end(), 0);
  Value flat =
      c.op<edge::AddOp>({c.view(base, column), c.int64s({slice}, within)});
  int64_t count = updatesType.getNumElements();
  OpBuilder &b = c.importer.builder;
  Value scattered = c.op<edge::ScatterOp>(
      {c.view(data, {dataType.getNumElements()}), c.view(flat, {count}),
       c.view(updates, {count})},
      {c.attr("dim", int64_t(0)),
       b.getNamedAttr("reduce", b.getStringAttr(reduce))});
  return c.bind(c.view(scattered, shape));
}

LogicalResult scatterND(Compose &c) {
  std::string reduction = c.importer.stringAttr(c.node, "reduction", "none");
  if (reduction == "mul" || reduction == "max" || reduction == "min")
    return scatterNDReduced(c, reduction == "mul"   ? "multiply"
                               : reduction == "max" ? "amax"
                                                    : "amin");
  Value data = c.in(0), index = c.in(1), updates = c.in(2);
  FailureOr<bool> accumulate = scatterAccumulates(c);
  if (!data || !index || !updates || failed(accumulate))
    return failure();
  FailureOr<SmallVector<Value>> components = indexComponents(c, data, index, 0);
  if (failed(components))
    return failure();
  SmallVector<int64_t> dims;
  for (size_t j = 0; j < components->size(); ++j)
    dims.push_back(static_cast<int64_t>(j));
  SmallVector<Value> operands = {data, updates};
  llvm::append_range(operands, *components);
  return c.bind(c.op<edge::IndexPutOp>(
      operands, {c.attr("indexed_dims", ArrayRef(dims)),
                 c.boolAttr("accumulate", *accumulate)}));
}

/// ScatterElements (and Scatter before it): edge.scatter, whose reduce
/// names ONNX's reductions as torch does.
LogicalResult scatterElements(Compose &c) {
  Value data = c.in(0), index = c.in(1), updates = c.in(2);
  if (!data || !index || !updates)
    return failure();
  FailureOr<int64_t> axis = checkedAxis(
      c, c.importer.intAttr(c.node, "axis", 0), c.typeOf(data).getRank());
  if (failed(axis))
    return failure();
  std::string reduction = c.importer.stringAttr(c.node, "reduction", "none");
  StringRef reduce = reduction == "none"  ? "none"
                     : reduction == "add" ? "add"
                     : reduction == "mul" ? "multiply"
                     : reduction == "max" ? "amax"
                     : reduction == "min" ? "amin"
                                          : "";
  if (reduce.empty())
    return c.importer.nodeError(c.node)
           << "reduction '" << reduction
           << "' is not supported (none, add, mul, max, min)";
  OpBuilder &b = c.importer.builder;
  return c.bind(c.op<edge::ScatterOp>(
      {data, index, updates},
      {c.attr("dim", *axis),
       b.getNamedAttr("reduce", b.getStringAttr(reduce))}));
}

LogicalResult hardmax(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  FailureOr<int64_t> axis =
      checkedAxis(c, c.importer.intAttr(c.node, "axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  if (type.isDynamicDim(*axis))
    return c.importer.nodeError(c.node)
           << "needs a static extent along the axis, got " << type;
  Value first = c.op<edge::ArgmaxOp>(
      x, {c.attr("dim", *axis), c.boolAttr("keepdim", true)});
  Value hot = c.op<edge::EqOp>(
      {first, positions(c, type.getDimSize(*axis), *axis, type.getRank())});
  return c.bind(c.cast(hot, type.getElementType()));
}

LogicalResult eyeLike(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  if (type.getRank() != 2 || !type.hasStaticShape())
    return c.importer.nodeError(c.node)
           << "expected a static 2-d input, got " << type;
  Type element = type.getElementType();
  auto dtype = c.node.attributes.find("dtype");
  if (dtype != c.node.attributes.end() &&
      !(element = c.importer.elementTypeOf(
            static_cast<OnnxDataType>(dtype->second.i))))
    return c.importer.nodeError(c.node)
           << "unsupported dtype " << dtype->second.i;
  int64_t k = c.importer.intAttr(c.node, "k", 0);
  Value offset = c.op<edge::SubOp>({positions(c, type.getDimSize(1), 1, 2),
                                    positions(c, type.getDimSize(0), 0, 2)});
  return c.bind(c.cast(
      c.op<edge::EqOp>({offset, c.scalarOf(c.importer.builder.getI64Type(),
                                           static_cast<double>(k))}),
      element));
}

LogicalResult instanceNormalization(Compose &c) {
  Value x = c.in(0), scale = c.in(1), bias = c.in(2);
  if (!x || !scale || !bias)
    return failure();
  RankedTensorType type = c.typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 3 || type.isDynamicDim(1))
    return c.importer.nodeError(c.node)
           << "expected [N, C, ...] with a static C, got " << type;
  SmallVector<int64_t> spatial, perChannel(rank, 1);
  for (int64_t d = 2; d < rank; ++d)
    spatial.push_back(d);
  perChannel[1] = type.getDimSize(1);
  SmallVector<NamedAttribute> over = {c.attr("dim", ArrayRef(spatial)),
                                      c.boolAttr("keepdim", true)};
  Value centered = c.op<edge::SubOp>({x, c.op<edge::MeanOp>(x, over)});
  Value variance =
      c.op<edge::MeanOp>(c.op<edge::MulOp>({centered, centered}), over);
  Value invStdDev = c.op<edge::RsqrtOp>(c.op<edge::AddOp>(
      {variance, c.scalar(variance, floatAttr(c, "epsilon", 1e-5))}));
  Value y = c.op<edge::MulOp>(
      {c.op<edge::MulOp>({centered, invStdDev}), c.view(scale, perChannel)});
  return c.bind(c.op<edge::AddOp>({y, c.view(bias, perChannel)}));
}

LogicalResult meanVarianceNormalization(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  std::vector<int64_t> axes = c.importer.intsAttr(c.node, "axes")
                                  .value_or(std::vector<int64_t>{0, 2, 3});
  SmallVector<NamedAttribute> over = {c.attr("dim", ArrayRef<int64_t>(axes)),
                                      c.boolAttr("keepdim", true)};
  Value centered = c.op<edge::SubOp>({x, c.op<edge::MeanOp>(x, over)});
  Value variance =
      c.op<edge::MeanOp>(c.op<edge::MulOp>({centered, centered}), over);
  // ONNX's definition divides by the plain standard deviation (no epsilon).
  return c.bind(c.op<edge::DivOp>({centered, c.op<edge::SqrtOp>(variance)}));
}

/// Local response normalization across channels: x / (bias + alpha *
/// mean of squares over `size` channels)^beta, the mean an average pool
/// over [N, 1, C, rest] with the channel window padded as ONNX centres it.
LogicalResult lrn(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  int64_t size = c.importer.intAttr(c.node, "size", 0);
  if (type.getRank() < 3 || !type.hasStaticShape() || size < 1)
    return c.importer.nodeError(c.node)
           << "expected a static [N, C, ...] input and a positive size, got "
           << type << " and size " << size;
  int64_t n = type.getDimSize(0), channels = type.getDimSize(1);
  int64_t rest = type.getNumElements() / std::max<int64_t>(n * channels, 1);
  Value squares = c.view(c.op<edge::MulOp>({x, x}), {n, 1, channels, rest});
  Value padded = c.op<edge::ConstantPadNdOp>(
      squares,
      {c.attr("pad", ArrayRef<int64_t>{0, 0, (size - 1) / 2, size / 2})});
  Value mean = c.op<edge::AvgPool2dOp>(
      padded, {c.attr("kernel_size", ArrayRef<int64_t>{size, 1}),
               c.attr("stride", ArrayRef<int64_t>{1, 1}),
               c.attr("padding", ArrayRef<int64_t>{0, 0})});
  double alpha = floatAttr(c, "alpha", 1e-4), beta = floatAttr(c, "beta", 0.75),
         bias = floatAttr(c, "bias", 1.0);
  Value base = c.op<edge::AddOp>(
      {c.op<edge::MulOp>({mean, c.scalar(mean, alpha)}), c.scalar(mean, bias)});
  Value scale = c.op<edge::PowOp>({base, c.scalar(base, beta)});
  return c.bind(c.op<edge::DivOp>({x, c.view(scale, type.getShape())}));
}

/// Inference Dropout: the data unchanged and a mask of ones; training mode
/// (random) only when the ratio is zero.
LogicalResult dropout(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  if (c.importer.hasInput(c.node, 2)) {
    std::optional<std::vector<int64_t>> training = constantInts(c, 2);
    std::optional<std::vector<double>> ratio;
    if (c.importer.hasInput(c.node, 1))
      if (const OnnxTensor *tensor = c.importer.constantInput(c.node, 1))
        ratio = c.importer.constantDoubles(*tensor);
    bool zeroRatio = ratio && ratio->size() == 1 && ratio->front() == 0.0;
    if (!training || training->size() != 1 ||
        (training->front() != 0 && !zeroRatio))
      return c.importer.nodeError(c.node)
             << "training_mode must be a constant false (etch runs "
                "inference; random dropout is not supported)";
  }
  if (failed(c.bind(x)))
    return failure();
  if (c.node.outputs.size() < 2 || c.node.outputs[1].empty())
    return success();
  SmallVector<int64_t> shape(c.typeOf(x).getShape());
  Value ones = c.op<edge::FullOp>(
      {}, {c.attr("size", ArrayRef(shape)), c.attr("fill_value", 1.0),
           c.importer.builder.getNamedAttr(
               "dtype", TypeAttr::get(c.importer.builder.getI64Type()))});
  return c.bind(c.cast(ones, c.importer.builder.getI1Type()), 1);
}

/// Pow in any mix of types, the result of the base's type: the exponent
/// takes the base's type, except a float exponent of an integer base, which
/// computes in float32 and truncates.
LogicalResult pow(Compose &c) {
  Value base = c.in(0), exponent = c.in(1);
  if (!base || !exponent)
    return failure();
  Type baseElement = c.typeOf(base).getElementType();
  if (isa<FloatType>(baseElement) ||
      !isa<FloatType>(c.typeOf(exponent).getElementType()))
    return c.bind(c.op<edge::PowOp>({base, c.cast(exponent, baseElement)}));
  Type wide = c.importer.builder.getF32Type();
  Value power = c.op<edge::PowOp>({c.cast(base, wide), c.cast(exponent, wide)});
  return c.bind(c.cast(power, baseElement));
}

LogicalResult expand(Compose &c) {
  Value x = c.in(0);
  std::optional<std::vector<int64_t>> shape = constantInts(c, 1);
  if (!x)
    return failure();
  if (!shape)
    return c.importer.nodeError(c.node) << "the shape must be a constant";
  // Numpy broadcasting of the input's shape with the given one.
  ArrayRef<int64_t> from = c.typeOf(x).getShape();
  size_t rank = std::max(from.size(), shape->size());
  SmallVector<int64_t> size(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - from.size() ? 1 : from[i - (rank - from.size())];
    int64_t b =
        i < rank - shape->size() ? 1 : (*shape)[i - (rank - shape->size())];
    if (ShapedType::isDynamic(a))
      a = -1;
    if (a != 1 && b != 1 && a != b && a != -1)
      return c.importer.nodeError(c.node)
             << "shape " << b << " does not broadcast with " << c.typeOf(x);
    size[i] = b == 1 ? a : b;
  }
  return c.bind(c.op<edge::ExpandOp>(x, {c.attr("size", ArrayRef(size))}));
}

LogicalResult tile(Compose &c) {
  Value x = c.in(0);
  std::optional<std::vector<int64_t>> repeats = constantInts(c, 1);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  if (!repeats || static_cast<int64_t>(repeats->size()) != type.getRank())
    return c.importer.nodeError(c.node)
           << "repeats must be a constant with one entry per dimension";
  if (!type.hasStaticShape())
    return c.importer.nodeError(c.node) << "the input's shape must be static";
  // [d0, d1] -> [1, d0, 1, d1] -> [r0, d0, r1, d1] -> [r0*d0, r1*d1]
  SmallVector<int64_t> spread, expanded, tiled;
  for (auto [extent, repeat] : llvm::zip(type.getShape(), *repeats)) {
    spread.append({1, extent});
    expanded.append({repeat, extent});
    tiled.push_back(repeat * extent);
  }
  Value wide = c.op<edge::ExpandOp>(c.view(x, spread),
                                    {c.attr("size", ArrayRef(expanded))});
  return c.bind(c.view(wide, tiled));
}

/// The static NCHW input and blocksize of DepthToSpace (\p toSpace: the
/// channels divide by blocksize^2) or SpaceToDepth (height and width divide
/// by blocksize); failure after an error.
FailureOr<std::pair<Value, int64_t>> blockedInput(Compose &c, bool toSpace) {
  Value x = c.in(0);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  int64_t b = c.importer.intAttr(c.node, "blocksize", 0);
  bool fits =
      type.getRank() == 4 && type.hasStaticShape() && b > 0 &&
      (toSpace ? type.getDimSize(1) % (b * b) == 0
               : type.getDimSize(2) % b == 0 && type.getDimSize(3) % b == 0);
  if (!fits)
    return c.importer.nodeError(c.node)
           << "expected a static 4-d input whose "
           << (toSpace ? "channels divide by blocksize^2"
                       : "height and width divide by blocksize")
           << ", got " << type << " and blocksize " << b;
  return std::make_pair(x, b);
}

LogicalResult depthToSpace(Compose &c) {
  FailureOr<std::pair<Value, int64_t>> input = blockedInput(c, true);
  if (failed(input))
    return failure();
  auto [x, b] = *input;
  ArrayRef<int64_t> shape = c.typeOf(x).getShape();
  int64_t n = shape[0], ch = shape[1] / (b * b), h = shape[2], w = shape[3];
  bool crd = c.importer.stringAttr(c.node, "mode", "DCR") == "CRD";
  Value blocks =
      crd ? c.permute(c.view(x, {n, ch, b, b, h, w}), {0, 1, 4, 2, 5, 3})
          : c.permute(c.view(x, {n, b, b, ch, h, w}), {0, 3, 4, 1, 5, 2});
  return c.bind(c.view(blocks, {n, ch, h * b, w * b}));
}

LogicalResult spaceToDepth(Compose &c) {
  FailureOr<std::pair<Value, int64_t>> input = blockedInput(c, false);
  if (failed(input))
    return failure();
  auto [x, b] = *input;
  ArrayRef<int64_t> shape = c.typeOf(x).getShape();
  int64_t n = shape[0], ch = shape[1], h = shape[2] / b, w = shape[3] / b;
  Value blocks = c.permute(c.view(x, {n, ch, h, b, w, b}), {0, 3, 5, 1, 2, 4});
  return c.bind(c.view(blocks, {n, ch * b * b, h, w}));
}

LogicalResult constantOfShape(Compose &c) {
  std::optional<std::vector<int64_t>> shape = constantInts(c, 0);
  if (!shape)
    return c.importer.nodeError(c.node) << "the shape must be a constant";
  Type element = c.importer.builder.getF32Type();
  double fill = 0;
  auto it = c.node.attributes.find("value");
  if (it != c.node.attributes.end()) {
    const OnnxTensor &value = it->second.t;
    element = c.importer.elementTypeOf(value.elementType);
    std::optional<std::vector<double>> values =
        c.importer.constantDoubles(value);
    if (!element || !values || values->size() != 1)
      return c.importer.nodeError(c.node)
             << "value must be a one-element tensor of a supported type";
    fill = values->front();
  }
  return c.bind(c.op<edge::FullOp>(
      {},
      {c.attr("size", ArrayRef<int64_t>(*shape)), c.attr("fill_value", fill),
       c.importer.builder.getNamedAttr("dtype", TypeAttr::get(element))}));
}

LogicalResult cumSum(Compose &c) {
  Value x = c.in(0);
  std::optional<std::vector<int64_t>> axisValues = constantInts(c, 1);
  if (!x)
    return failure();
  if (!axisValues || axisValues->size() != 1)
    return c.importer.nodeError(c.node) << "axis must be a constant scalar";
  FailureOr<int64_t> axis =
      checkedAxis(c, axisValues->front(), c.typeOf(x).getRank());
  if (failed(axis))
    return failure();
  bool reverse = c.importer.intAttr(c.node, "reverse", 0) != 0;
  bool exclusive = c.importer.intAttr(c.node, "exclusive", 0) != 0;
  if (reverse && c.typeOf(x).isDynamicDim(*axis))
    return c.importer.nodeError(c.node)
           << "reverse=1 needs a static extent along the axis";
  Value ordered = reverse ? c.flip(x, *axis) : x;
  Value sums = c.op<edge::CumsumOp>(ordered, {c.attr("dim", *axis)});
  if (exclusive)
    sums = c.op<edge::SubOp>({sums, ordered});
  return c.bind(reverse ? c.flip(sums, *axis) : sums);
}

LogicalResult oneHot(Compose &c) {
  Value index = c.in(0), values = c.in(2);
  std::optional<std::vector<double>> depthValues;
  if (const OnnxTensor *tensor = c.importer.constantInput(c.node, 1))
    depthValues = c.importer.constantDoubles(*tensor);
  if (!index || !values)
    return failure();
  if (!depthValues || depthValues->size() != 1 || depthValues->front() < 1)
    return c.importer.nodeError(c.node)
           << "depth must be a positive constant scalar";
  auto depth = static_cast<int64_t>(depthValues->front());
  int64_t outRank = c.typeOf(index).getRank() + 1;
  FailureOr<int64_t> axis =
      checkedAxis(c, c.importer.intAttr(c.node, "axis", -1), outRank);
  if (failed(axis))
    return failure();
  // indices[..., None, ...] == arange(depth) laid along the axis.
  Value wrapped = indices(c, index, depth);
  Value spread = c.op<edge::UnsqueezeOp>(wrapped, {c.attr("dim", *axis)});
  SmallVector<int64_t> classShape(outRank, 1);
  classShape[*axis] = depth;
  std::vector<int64_t> classes(depth);
  std::iota(classes.begin(), classes.end(), 0);
  Value hot = c.op<edge::EqOp>({spread, c.int64s(classShape, classes)});
  Value off = c.op<edge::SelectOp>(
      values, {c.attr("dim", int64_t{0}), c.attr("index", int64_t{0})});
  Value on = c.op<edge::SelectOp>(
      values, {c.attr("dim", int64_t{0}), c.attr("index", int64_t{1})});
  return c.bind(c.op<edge::WhereOp>({hot, on, off}));
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
  double epsilon = floatAttr(c, "epsilon", 1e-5);
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

namespace {

/// TopK with a constant K: Edge's topk gives both outputs.
LogicalResult topK(Compose &c) {
  Value x = c.in(0);
  std::optional<std::vector<int64_t>> k = constantInts(c, 1);
  if (!x)
    return failure();
  if (!k || k->size() != 1)
    return c.importer.nodeError(c.node)
           << "K must be a constant with one element (etch plans the "
              "outputs' shapes ahead of time)";
  Value values = c.op<edge::TopkOp>(
      x, {c.attr("k", k->front()),
          c.attr("dim", c.importer.intAttr(c.node, "axis", -1)),
          c.boolAttr("largest", c.importer.intAttr(c.node, "largest", 1)),
          c.boolAttr("sorted", c.importer.intAttr(c.node, "sorted", 1))});
  return c.bindResults(values);
}

/// NonMaxSuppression: its count and thresholds become attributes (they
/// bound the planned output), so they must be constants; absent inputs take
/// ONNX's defaults (no box kept, IoU 0, no score threshold).
LogicalResult nonMaxSuppression(Compose &c) {
  Value boxes = c.in(0), scores = c.in(1);
  if (!boxes || !scores)
    return failure();
  auto scalar = [&](size_t index) -> std::optional<std::optional<double>> {
    if (!c.importer.hasInput(c.node, index))
      return std::optional<double>();
    const OnnxTensor *tensor = c.importer.constantInput(c.node, index);
    std::optional<std::vector<double>> values =
        tensor ? c.importer.constantDoubles(*tensor) : std::nullopt;
    if (!values || values->size() != 1)
      return std::nullopt;
    return std::optional<double>(values->front());
  };
  auto maxOut = scalar(2), iou = scalar(3), score = scalar(4);
  // The count read exactly: exporters write INT64_MAX for "every box",
  // which a double cannot hold.
  int64_t most = 0;
  if (c.importer.hasInput(c.node, 2)) {
    std::optional<std::vector<int64_t>> count = constantInts(c, 2);
    if (!count || count->size() != 1)
      maxOut = std::nullopt;
    else
      most = std::max<int64_t>(0, count->front());
  }
  if (!maxOut || !iou || !score)
    return c.importer.nodeError(c.node)
           << "max_output_boxes_per_class, iou_threshold and score_threshold "
              "must be constants with one element (they bound the output "
              "etch plans ahead of time)";
  double iouThreshold = iou->value_or(0.0);
  if (iouThreshold < 0 || iouThreshold > 1)
    return c.importer.nodeError(c.node)
           << "iou_threshold must be in [0, 1], got " << iouThreshold;
  SmallVector<NamedAttribute> attributes = {
      c.attr("max_output_boxes_per_class", most),
      c.attr("iou_threshold", iouThreshold),
      c.boolAttr("center_point_box",
                 c.importer.intAttr(c.node, "center_point_box", 0) != 0)};
  if (*score)
    attributes.push_back(c.attr("score_threshold", **score));
  return c.bind(c.op<edge::NonMaxSuppressionOp>({boxes, scores}, attributes));
}

/// RoiAlign: before opset 16 (no coordinate_transformation_mode yet) the
/// regions were not shifted by half a pixel.
LogicalResult roiAlign(Compose &c) {
  std::string mode = c.importer.stringAttr(c.node, "mode", "avg");
  std::string transform = c.importer.stringAttr(
      c.node, "coordinate_transformation_mode",
      c.importer.writtenOpset() >= 16 ? "half_pixel" : "output_half_pixel");
  if ((mode != "avg" && mode != "max") ||
      (transform != "half_pixel" && transform != "output_half_pixel"))
    return c.importer.nodeError(c.node)
           << "mode '" << mode << "' / coordinate_transformation_mode '"
           << transform
           << "' is not one of avg, max / half_pixel, output_half_pixel";
  return c.bind(c.op<edge::RoiAlignOp>(
      {c.in(0), c.in(1), c.in(2)},
      {c.attr("output_height", c.importer.intAttr(c.node, "output_height", 1)),
       c.attr("output_width", c.importer.intAttr(c.node, "output_width", 1)),
       c.attr("sampling_ratio",
              c.importer.intAttr(c.node, "sampling_ratio", 0)),
       c.attr("spatial_scale", static_cast<double>(c.importer.floatAttr(
                                   c.node, "spatial_scale", 1.0f))),
       c.boolAttr("aligned", transform == "half_pixel"),
       c.boolAttr("max", mode == "max")}));
}

/// ReverseSequence: along the time axis, each batch entry's first
/// sequence_lens[b] elements reversed, the rest kept; a gather whose index
/// tensor is computed at import (the lengths must be constants).
LogicalResult reverseSequence(Compose &c) {
  Value x = c.in(0);
  std::optional<std::vector<int64_t>> lengths = constantInts(c, 1);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  int64_t timeAxis = c.importer.intAttr(c.node, "time_axis", 0);
  int64_t batchAxis = c.importer.intAttr(c.node, "batch_axis", 1);
  if (!lengths || !type.hasStaticShape() || type.getRank() < 2 ||
      timeAxis == batchAxis || timeAxis < 0 || timeAxis > 1 || batchAxis < 0 ||
      batchAxis > 1 ||
      static_cast<int64_t>(lengths->size()) != type.getDimSize(batchAxis))
    return c.importer.nodeError(c.node)
           << "needs a static input, constant sequence_lens with one entry "
              "per batch entry, and time_axis/batch_axis 0 and 1; got "
           << type;
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<int64_t> index(type.getNumElements());
  int64_t inner = type.getNumElements() / (shape[0] * shape[1]);
  for (int64_t i = 0; i < static_cast<int64_t>(index.size()); ++i) {
    int64_t t = timeAxis == 0 ? i / (shape[1] * inner) : (i / inner) % shape[1];
    int64_t batch =
        batchAxis == 0 ? i / (shape[1] * inner) : (i / inner) % shape[1];
    int64_t length = std::clamp<int64_t>((*lengths)[batch], 0, shape[timeAxis]);
    index[i] = t < length ? length - 1 - t : t;
  }
  return c.bind(c.op<edge::GatherOp>({x, c.int64s(shape, index)},
                                     {c.attr("dim", timeAxis)}));
}

/// MaxUnpool: zeros of the shape the pooling window gives back with X
/// written at MaxPool's flat indices, then padded with zeros at the end of
/// each spatial dim up to output_shape when that is given (onnxruntime's
/// rule: the indices keep their coordinates).
LogicalResult maxUnpool(Compose &c) {
  Value x = c.in(0), index = c.in(1);
  if (!x || !index)
    return failure();
  RankedTensorType type = c.typeOf(x);
  if (!type.hasStaticShape() || type.getRank() < 3)
    return c.importer.nodeError(c.node)
           << "needs a static N, C, spatial... input, got " << type;
  int64_t spatial = type.getRank() - 2;
  std::vector<int64_t> kernel = c.importer.intsAttr(c.node, "kernel_shape")
                                    .value_or(std::vector<int64_t>());
  std::vector<int64_t> strides =
      c.importer.intsAttr(c.node, "strides")
          .value_or(std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads =
      c.importer.intsAttr(c.node, "pads")
          .value_or(std::vector<int64_t>(2 * spatial, 0));
  if (static_cast<int64_t>(kernel.size()) != spatial ||
      static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return c.importer.nodeError(c.node)
           << "kernel_shape, strides and pads must match the " << spatial
           << " spatial dims";
  SmallVector<int64_t> shape(type.getShape());
  int64_t total = shape[0] * shape[1];
  for (int64_t i = 0; i < spatial; ++i) {
    shape[2 + i] = (shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] -
                   pads[spatial + i];
    total *= shape[2 + i];
  }
  std::optional<std::vector<int64_t>> given = constantInts(c, 2);
  if (c.importer.hasInput(c.node, 2) &&
      (!given || static_cast<int64_t>(given->size()) != type.getRank()))
    return c.importer.nodeError(c.node)
           << "output_shape must be a constant with " << type.getRank()
           << " entries";
  int64_t count = type.getNumElements();
  OpBuilder &b = c.importer.builder;
  Value zeros = c.op<edge::FullOp>(
      {}, {c.attr("size", ArrayRef<int64_t>{total}), c.attr("fill_value", 0.0),
           b.getNamedAttr("dtype", TypeAttr::get(type.getElementType()))});
  Value written = c.view(
      c.op<edge::ScatterOp>({zeros, c.view(index, {count}), c.view(x, {count})},
                            {c.attr("dim", int64_t(0))}),
      shape);
  if (!given || ArrayRef<int64_t>(*given) == ArrayRef<int64_t>(shape))
    return c.bind(written);
  SmallVector<int64_t> pad; // last dim first, as constant_pad_nd takes it
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t extra = (*given)[d] - shape[d];
    if (extra < 0 || (d < 2 && extra != 0))
      return c.importer.nodeError(c.node)
             << "output_shape dim " << d << " (" << (*given)[d]
             << ") is smaller than the unpooled extent " << shape[d]
             << " or changes N/C";
    pad.push_back(0);
    pad.push_back(extra);
  }
  return c.bind(c.op<edge::ConstantPadNdOp>(
      {written},
      {c.attr("pad", ArrayRef<int64_t>(pad)), c.attr("value", 0.0)}));
}

/// DFT (opset 17): along `axis`, X[k] = sum_n x[n] e^(-+2 pi i k n / N)
/// as two `linear`s of the real and imaginary parts with cosine and sine
/// matrices computed at import (the axis moved last and back); `inverse`
/// flips the sign and divides by N, `onesided` keeps N / 2 + 1 outputs,
/// `dft_length` (constant) pads with zeros or truncates first.
LogicalResult dft(Compose &c) {
  Value x = c.in(0);
  if (!x)
    return failure();
  RankedTensorType type = c.typeOf(x);
  int64_t rank = type.getRank();
  int64_t axis = c.importer.intAttr(c.node, "axis", 1);
  axis = axis < 0 ? axis + rank : axis;
  if (rank < 2 || axis < 0 || axis >= rank - 1 || !type.hasStaticShape() ||
      (type.getDimSize(rank - 1) != 1 && type.getDimSize(rank - 1) != 2) ||
      !type.getElementType().isF32())
    return c.importer.nodeError(c.node)
           << "needs a static float32 [..., 1 or 2] signal and an axis "
              "before the last dim, got "
           << type << " and axis " << axis;
  bool inverse = c.importer.intAttr(c.node, "inverse", 0) != 0;
  bool onesided = c.importer.intAttr(c.node, "onesided", 0) != 0;
  int64_t extent = type.getDimSize(axis), length = extent;
  if (c.importer.hasInput(c.node, 1)) {
    std::optional<std::vector<int64_t>> given = constantInts(c, 1);
    if (!given || given->size() != 1 || given->front() < 1)
      return c.importer.nodeError(c.node)
             << "dft_length must be a positive constant";
    length = given->front();
  }
  if (onesided && inverse)
    return c.importer.nodeError(c.node)
           << "onesided with inverse is not defined by ONNX";
  int64_t outputs = onesided ? length / 2 + 1 : length;
  // Real and imaginary parts, the axis moved last: [..., extent].
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      order.push_back(d);
  order.push_back(axis);
  auto part = [&](int64_t index) {
    return c.permute(c.op<edge::SelectOp>(
                         x, {c.attr("dim", rank - 1), c.attr("index", index)}),
                     order);
  };
  Value real = part(0);
  Value imaginary = type.getDimSize(rank - 1) == 2 ? part(1) : Value();
  // [outputs, extent] matrices; samples past `length` are cut, missing ones
  // are zeros (their columns simply absent).
  double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / length : 1.0;
  std::vector<float> cosines(outputs * extent, 0.0f),
      sines(outputs * extent, 0.0f);
  for (int64_t k = 0; k < outputs; ++k)
    for (int64_t n = 0; n < std::min(extent, length); ++n) {
      double angle = 2 * M_PI * double((k * n) % length) / double(length);
      cosines[k * extent + n] = static_cast<float>(std::cos(angle) * scale);
      sines[k * extent + n] =
          static_cast<float>(sign * std::sin(angle) * scale);
    }
  auto matrix = [&](const std::vector<float> &values) {
    auto matrixType = RankedTensorType::get({outputs, extent},
                                            c.importer.builder.getF32Type());
    return c.importer.edge.constantFromBytes(
        c.loc, matrixType,
        ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float)),
        "");
  };
  Value cosine = matrix(cosines), sine = matrix(sines);
  // (a + ib)(cos + i sin) = (a cos - b sin) + i (a sin + b cos).
  Value outReal = c.op<edge::LinearOp>({real, cosine});
  Value outImaginary = c.op<edge::LinearOp>({real, sine});
  if (imaginary) {
    outReal =
        c.op<edge::SubOp>({outReal, c.op<edge::LinearOp>({imaginary, sine})});
    outImaginary = c.op<edge::AddOp>(
        {outImaginary, c.op<edge::LinearOp>({imaginary, cosine})});
  }
  // Back to the input's layout with a trailing [real, imaginary] dim.
  SmallVector<int64_t> back(rank - 1);
  for (int64_t d = 0; d < rank - 1; ++d)
    back[order[d]] = d;
  auto restore = [&](Value value) {
    return c.op<edge::UnsqueezeOp>({c.permute(value, back)},
                                   {c.attr("dim", rank - 1)});
  };
  return c.bind(c.op<edge::CatOp>({restore(outReal), restore(outImaginary)},
                                  {c.attr("dim", rank - 1)}));
}

/// Det: torch's _linalg_det, whose LU output is the elimination's space.
LogicalResult det(Compose &c) {
  return c.bind(c.op<edge::LinalgDetOp>({c.in(0)}));
}

/// GridSample (opset 16): torch's grid_sampler_2d, its modes by name.
LogicalResult gridSample(Compose &c) {
  std::string mode = c.importer.stringAttr(c.node, "mode", "bilinear");
  std::string padding = c.importer.stringAttr(c.node, "padding_mode", "zeros");
  int64_t interpolation = mode == "bilinear"  ? 0
                          : mode == "nearest" ? 1
                          : mode == "bicubic" ? 2
                                              : -1;
  int64_t paddingMode = padding == "zeros"        ? 0
                        : padding == "border"     ? 1
                        : padding == "reflection" ? 2
                                                  : -1;
  if (interpolation < 0 || paddingMode < 0)
    return c.importer.nodeError(c.node)
           << "mode '" << mode << "' / padding_mode '" << padding
           << "' is not one of bilinear, nearest, bicubic / zeros, border, "
              "reflection";
  return c.bind(c.op<edge::GridSampler2dOp>(
      {c.in(0), c.in(1)},
      {c.attr("interpolation_mode", interpolation),
       c.attr("padding_mode", paddingMode),
       c.boolAttr("align_corners",
                  c.importer.intAttr(c.node, "align_corners", 0) != 0)}));
}

/// Unique without axis: Edge's unique gives all four outputs.
LogicalResult unique(Compose &c) {
  if (c.node.attributes.count("axis"))
    return c.bindResults(c.op<edge::UniqueDimOp>(
        c.in(0),
        {c.attr("dim", c.importer.intAttr(c.node, "axis", 0)),
         c.boolAttr("sorted", c.importer.intAttr(c.node, "sorted", 1) != 0)}));
  Value values = c.op<edge::UniqueOp>(
      c.in(0),
      {c.boolAttr("sorted", c.importer.intAttr(c.node, "sorted", 1) != 0)});
  return c.bindResults(values);
}

/// NonZero: Edge's nonzero gives [n, rank]; ONNX wants [rank, n].
LogicalResult nonZero(Compose &c) {
  return c.bind(c.permute(c.op<edge::NonzeroOp>(c.in(0)), {1, 0}));
}

/// Compress: the positions where the condition holds pick slices along
/// the axis (elements of the flattened input without one).
LogicalResult compress(Compose &c) {
  Value input = c.in(0), condition = c.in(1);
  if (!input || !condition)
    return failure();
  RankedTensorType type = c.typeOf(input), conditionType = c.typeOf(condition);
  auto axisAttr = c.node.attributes.find("axis");
  std::optional<int64_t> axis;
  if (axisAttr != c.node.attributes.end()) {
    FailureOr<int64_t> checked =
        checkedAxis(c, axisAttr->second.i, type.getRank());
    if (failed(checked))
      return failure();
    axis = *checked;
  }
  if (!type.hasStaticShape() || conditionType.getRank() != 1 ||
      conditionType.isDynamicDim(0))
    return c.importer.nodeError(c.node)
           << "needs an input of static shape and a 1-D condition of static "
              "length";
  int64_t extent = axis ? type.getDimSize(*axis) : type.getNumElements();
  if (conditionType.getDimSize(0) > extent)
    return c.importer.nodeError(c.node)
           << "condition has " << conditionType.getDimSize(0) << " entries for "
           << extent << " slices";
  Value positions = c.op<edge::SelectOp>(
      c.op<edge::NonzeroOp>(condition),
      {c.attr("dim", int64_t{1}), c.attr("index", int64_t{0})});
  Value source = axis ? input : c.view(input, {extent});
  return c.bind(c.op<edge::IndexSelectOp>({source, positions},
                                          {c.attr("dim", axis.value_or(0))}));
}

} // namespace

const llvm::StringMap<Composition> &composedOps() {
  static const llvm::StringMap<Composition> table = {
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
      {"GatherElements", gatherElements},
      {"Trilu", trilu},
      {"Hardmax", hardmax},
      {"Einsum", composeEinsum},
      {"TopK", topK},
      {"NonZero", nonZero},
      {"NonMaxSuppression", nonMaxSuppression},
      {"RoiAlign", roiAlign},
      {"Det", det},
      {"DFT", dft},
      {"ReverseSequence", reverseSequence},
      {"MaxUnpool", maxUnpool},
      {"Unique", unique},
      {"GridSample", gridSample},
      {"Compress", compress},
      {"RNN", composeRecurrent},
      {"GRU", composeRecurrent},
      {"LSTM", composeRecurrent},
      {"GatherND", gatherND},
      {"ScatterND", scatterND},
      {"ScatterElements", scatterElements},
      {"Scatter", scatterElements},
      {"EyeLike", eyeLike},
      {"InstanceNormalization", instanceNormalization},
      {"LRN", lrn},
      {"MeanVarianceNormalization", meanVarianceNormalization},
      {"Dropout", dropout},
      {"Pow", pow},
      {"Expand", expand},
      {"Tile", tile},
      {"DepthToSpace", depthToSpace},
      {"SpaceToDepth", spaceToDepth},
      {"ConstantOfShape", constantOfShape},
      {"CumSum", cumSum},
      {"OneHot", oneHot},
      {"NegativeLogLikelihoodLoss", nllLoss},
      {"SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss},
  };
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
