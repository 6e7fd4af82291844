//===- OnnxComposedIndexOps.cpp - Indexing, layout and normalization ops --===//
//
// ONNX operators that gather, scatter, tile or rearrange elements, make
// index tensors, or normalize, each a short row of Edge ops; composedOps()
// takes them from here.
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;

namespace etch::onnx_import {

namespace {

//===----------------------------------------------------------------------===//
// Indexing and layout
//===----------------------------------------------------------------------===//

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

std::optional<std::vector<int64_t>> constantInts(Compose &c, size_t index) {
  const OnnxTensor *tensor = c.importer.constantInput(c.node, index);
  return tensor ? c.importer.constantInts(*tensor) : std::nullopt;
}

namespace {

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
      {variance, c.scalar(variance, c.floatAttr("epsilon", 1e-5))}));
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
  double alpha = c.floatAttr("alpha", 1e-4), beta = c.floatAttr("beta", 0.75),
         bias = c.floatAttr("bias", 1.0);
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

} // namespace

void addIndexCompositions(llvm::StringMap<Composition> &table) {
  table["GatherElements"] = gatherElements;
  table["Trilu"] = trilu;
  table["Hardmax"] = hardmax;
  table["GatherND"] = gatherND;
  table["ScatterND"] = scatterND;
  table["ScatterElements"] = scatterElements;
  table["Scatter"] = scatterElements;
  table["EyeLike"] = eyeLike;
  table["InstanceNormalization"] = instanceNormalization;
  table["LRN"] = lrn;
  table["MeanVarianceNormalization"] = meanVarianceNormalization;
  table["Dropout"] = dropout;
  table["Pow"] = pow;
  table["Expand"] = expand;
  table["Tile"] = tile;
  table["DepthToSpace"] = depthToSpace;
  table["SpaceToDepth"] = spaceToDepth;
  table["ConstantOfShape"] = constantOfShape;
  table["CumSum"] = cumSum;
  table["OneHot"] = oneHot;
}

} // namespace etch::onnx_import
