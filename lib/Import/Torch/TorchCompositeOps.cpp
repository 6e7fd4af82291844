//===- TorchCompositeOps.cpp - Composite ATen ops decomposed in C++ -------===//
//
// The training IR (what torch.export.export returns) keeps composite ops
// that core ATen decomposes. Those whose Edge op has other arguments are
// rewritten here, in one place:
//   conv1d / conv2d / conv_transpose1d/2d / convolution on 1-D input
//       -> edge.convolution (1-D as 2-D with height 1; padding="same")
//   matmul -> mm / bmm with views and expands, by operand ranks
//   max_pool1d / avg_pool1d / adaptive_avg_pool1d -> the 2-D ops
//   upsample_*2d.vec -> the output size the program records
//   pad -> constant_pad_nd; reflect/replicate/circular (and
//       reflection_padNd, replication_padNd) -> slices, flips, cats
//   roll -> two slices and a cat per rolled dim
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

using Kind = TorchArgument::Kind;

FailureOr<Value> reshape(TorchNode &node, Value value,
                         ArrayRef<int64_t> shape) {
  return node.build<edge::ViewOp>(value, ValueRange(),
                                  node.builder().getDenseI64ArrayAttr(shape));
}

/// Shape of \p value with a size-1 dim inserted at \p dim.
SmallVector<int64_t> withUnitDim(Value value, int64_t dim) {
  SmallVector<int64_t> shape(edge::rankedType(value).getShape());
  for (int64_t &extent : shape)
    if (ShapedType::isDynamic(extent))
      extent = -1;
  shape.insert(shape.begin() + dim, 1);
  return shape;
}

/// An int[] window argument for \p spatial dims: one entry means every dim,
/// absent means \p fallback.
std::optional<SmallVector<int64_t>>
windowArg(TorchNode &node, StringRef name, size_t spatial, int64_t fallback) {
  if (!node.has(name))
    return SmallVector<int64_t>(spatial, fallback);
  std::optional<SmallVector<int64_t>> values = node.ints(name);
  if (values && values->size() == 1)
    values = SmallVector<int64_t>(spatial, values->front());
  if (!values || values->size() != spatial)
    return std::nullopt;
  return values;
}

LogicalResult importConvolution(TorchNode &node) {
  StringRef aten = node.aten();
  Value input = node.tensor("input"), weight = node.tensor("weight"),
        bias = node.tensor("bias");
  if (!input)
    input = node.self();
  if (!input || !weight)
    return node.error() << "needs 'input' and 'weight' tensors";
  int64_t rank = edge::rankedType(input).getRank();
  if (rank < 3 || rank > 5)
    return node.error() << "supports 1-D, 2-D and 3-D convolutions (input of "
                           "rank 3, 4 or 5), got "
                        << input.getType();
  size_t spatial = rank - 2;
  bool transposed = aten.starts_with("aten::conv_transpose") ||
                    node.boolean("transposed").value_or(false);
  auto stride = windowArg(node, "stride", spatial, 1);
  auto dilation = windowArg(node, "dilation", spatial, 1);
  auto outputPadding = windowArg(node, "output_padding", spatial, 0);
  std::optional<SmallVector<int64_t>> padding;
  int64_t groups = node.integer("groups").value_or(1);
  // padding="same" (stride 1): total dilation * (kernel - 1), the extra
  // element on the right when odd (ATen's rule); "valid" is no padding.
  SmallVector<int64_t> right(spatial, 0);
  if (const TorchArgument *pad = node.arg("padding");
      pad && pad->kind == Kind::String) {
    padding = SmallVector<int64_t>(spatial, 0);
    if (pad->strings.front() == "same") {
      ArrayRef<int64_t> kernel =
          edge::rankedType(weight).getShape().take_back(spatial);
      for (size_t i = 0; i < spatial; ++i) {
        if (!stride || (*stride)[i] != 1 || ShapedType::isDynamic(kernel[i]))
          return node.error() << "padding='same' needs stride 1 and a static "
                                 "kernel";
        int64_t total = (*dilation)[i] * (kernel[i] - 1);
        (*padding)[i] = total / 2;
        right[i] = total - 2 * (total / 2);
      }
    } else if (pad->strings.front() != "valid") {
      return node.error() << "unknown padding '" << pad->strings.front() << "'";
    }
  } else {
    padding = windowArg(node, "padding", spatial, 0);
  }
  if (!stride || !padding || !dilation || !outputPadding)
    return node.error() << "stride, padding, dilation and output_padding "
                           "need "
                        << spatial << " constant entries each";
  // An odd "same" padding pads one more on the right, before the conv.
  if (llvm::any_of(right, [](int64_t extra) { return extra != 0; })) {
    SmallVector<int64_t> pad; // last dim first, as constant_pad_nd takes it
    for (size_t i = spatial; i-- > 0;) {
      pad.push_back(0);
      pad.push_back(right[i]);
    }
    FailureOr<Value> padded = node.build<edge::ConstantPadNdOp>(
        input, node.builder().getDenseI64ArrayAttr(pad),
        node.builder().getF64FloatAttr(0.0));
    if (failed(padded))
      return failure();
    input = *padded;
  }
  // 1-D runs as 2-D with a unit height.
  if (spatial == 1) {
    FailureOr<Value> input2d = reshape(node, input, withUnitDim(input, 2));
    FailureOr<Value> weight2d = reshape(node, weight, withUnitDim(weight, 2));
    if (failed(input2d) || failed(weight2d))
      return failure();
    input = *input2d;
    weight = *weight2d;
    stride->insert(stride->begin(), 1);
    padding->insert(padding->begin(), 0);
    dilation->insert(dilation->begin(), 1);
    outputPadding->insert(outputPadding->begin(), 0);
  }
  Builder &b = node.builder();
  if (spatial == 3)
    return node.bind(node.build<edge::Convolution3dOp>(
        input, weight, bias, b.getDenseI64ArrayAttr(*stride),
        b.getDenseI64ArrayAttr(*padding), b.getDenseI64ArrayAttr(*dilation),
        b.getBoolAttr(transposed), b.getDenseI64ArrayAttr(*outputPadding),
        b.getI64IntegerAttr(groups)));
  FailureOr<Value> result = node.build<edge::ConvolutionOp>(
      input, weight, bias, b.getDenseI64ArrayAttr(*stride),
      b.getDenseI64ArrayAttr(*padding), b.getDenseI64ArrayAttr(*dilation),
      b.getBoolAttr(transposed), b.getDenseI64ArrayAttr(*outputPadding),
      b.getI64IntegerAttr(groups));
  if (failed(result) || spatial == 2)
    return node.bind(result);
  SmallVector<int64_t> shape(edge::rankedType(*result).getShape());
  shape.erase(shape.begin() + 2);
  for (int64_t &extent : shape)
    if (ShapedType::isDynamic(extent))
      extent = -1;
  return node.bind(reshape(node, *result, shape));
}

/// One extent of a shape the matmul decomposition builds: a number, or dim
/// `dim` of `source`, read at run time (dynamic shapes).
struct Extent {
  int64_t size;
  Value source;
  int64_t dim;
  bool isDynamic() const { return ShapedType::isDynamic(size); }
};

SmallVector<Extent> extentsOf(Value value) {
  SmallVector<Extent> extents;
  for (auto [dim, size] : llvm::enumerate(edge::rankedType(value).getShape()))
    extents.push_back({size, value, static_cast<int64_t>(dim)});
  return extents;
}

/// A size list for view/expand: static entries as numbers, dynamic ones as
/// the dynamic marker with their sym_size appended to \p dynamic.
FailureOr<SmallVector<int64_t>> sizeList(TorchNode &node,
                                         ArrayRef<Extent> shape,
                                         SmallVectorImpl<Value> &dynamic) {
  SmallVector<int64_t> sizes;
  for (const Extent &extent : shape) {
    sizes.push_back(extent.size);
    if (!extent.isDynamic())
      continue;
    FailureOr<Value> size =
        node.build<edge::SymSizeOp>(extent.source, extent.dim);
    if (failed(size))
      return failure();
    dynamic.push_back(*size);
  }
  return sizes;
}

FailureOr<Value> reshapeTo(TorchNode &node, Value value,
                           ArrayRef<Extent> shape) {
  // Already that shape: every extent is the value's own (static or read
  // from the value itself).
  ArrayRef<int64_t> have = edge::rankedType(value).getShape();
  bool same = have.size() == shape.size();
  for (size_t d = 0; same && d < shape.size(); ++d)
    same = shape[d].isDynamic()
               ? shape[d].source == value && shape[d].dim == int64_t(d)
               : shape[d].size == have[d];
  if (same)
    return value;
  SmallVector<Value> dynamic;
  FailureOr<SmallVector<int64_t>> sizes = sizeList(node, shape, dynamic);
  if (failed(sizes))
    return failure();
  return node.build<edge::ViewOp>(value, dynamic,
                                  node.builder().getDenseI64ArrayAttr(*sizes));
}

/// Broadcast batch dims of matmul's operands, without their matrix dims. A
/// dynamic dim broadcasts against 1 and is taken as equal to another
/// dynamic dim (torch.export guards that shapes broadcast).
std::optional<SmallVector<Extent>> broadcastBatch(ArrayRef<Extent> a,
                                                  ArrayRef<Extent> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<Extent> shape;
  for (size_t i = 0; i < rank; ++i) {
    Extent one{1, Value(), 0};
    Extent x = i + a.size() >= rank ? a[i + a.size() - rank] : one;
    Extent y = i + b.size() >= rank ? b[i + b.size() - rank] : one;
    if (!x.isDynamic() && !y.isDynamic() && x.size != y.size && x.size != 1 &&
        y.size != 1)
      return std::nullopt;
    shape.push_back(x.size == 1 ? y : x);
  }
  return shape;
}

/// The product of \p extents when all are static; std::nullopt otherwise.
std::optional<int64_t> staticProduct(ArrayRef<Extent> extents) {
  int64_t product = 1;
  for (const Extent &extent : extents) {
    if (extent.isDynamic())
      return std::nullopt;
    product *= extent.size;
  }
  return product;
}

LogicalResult importMatmul(TorchNode &node) {
  // torch.matmul by operand ranks: 1-D operands gain a unit dim (removed
  // again from the result), 2-D x 2-D is mm, N-D x 2-D folds the batch into
  // the rows of one mm, and everything else broadcasts the batch dims and
  // runs one bmm. Dynamic extents are read with sym_size where a shape
  // needs them.
  Value a = node.self(), b = node.tensor("other");
  if (!a || !b)
    return node.error() << "needs tensors 'self' and 'other'";
  RankedTensorType aType = edge::rankedType(a), bType = edge::rankedType(b);
  if (aType.getRank() == 0 || bType.getRank() == 0)
    return node.error() << "operands must have rank >= 1";
  FailureOr<RankedTensorType> result = node.outputType();
  if (failed(result))
    return failure();
  SmallVector<Extent> aShape = extentsOf(a), bShape = extentsOf(b);
  if (aShape.size() == 1)
    aShape.insert(aShape.begin(), Extent{1, Value(), 0});
  if (bShape.size() == 1)
    bShape.push_back(Extent{1, Value(), 0});
  Extent n = aShape[aShape.size() - 2], k = aShape.back(), m = bShape.back();
  Extent bk = bShape[bShape.size() - 2];
  if (!k.isDynamic() && !bk.isDynamic() && bk.size != k.size)
    return node.error() << "contraction sizes differ: " << aType << " and "
                        << bType;
  FailureOr<Value> product;
  if (bShape.size() == 2) {
    // [..., n, k] x [k, m]: rows of all batches at once.
    Extent rows{-1, Value(), 0}; // inferred by the view
    if (std::optional<int64_t> count =
            staticProduct(ArrayRef<Extent>(aShape).drop_back(1)))
      rows.size = *count;
    FailureOr<Value> lhs = reshapeTo(node, a, {rows, k});
    FailureOr<Value> rhs = reshapeTo(node, b, {bk, m});
    if (failed(lhs) || failed(rhs))
      return failure();
    product = node.build<edge::MmOp>(*lhs, *rhs);
  } else {
    std::optional<SmallVector<Extent>> batch =
        broadcastBatch(ArrayRef<Extent>(aShape).drop_back(2),
                       ArrayRef<Extent>(bShape).drop_back(2));
    if (!batch)
      return node.error() << "batch dims of " << aType << " and " << bType
                          << " do not broadcast";
    Extent batches{-1, Value(), 0};
    if (std::optional<int64_t> count = staticProduct(*batch))
      batches.size = *count;
    auto expanded = [&](Value value, ArrayRef<Extent> shape, Extent rows,
                        Extent columns) -> FailureOr<Value> {
      FailureOr<Value> current = reshapeTo(node, value, shape);
      SmallVector<Extent> full(*batch);
      full.push_back(rows);
      full.push_back(columns);
      bool broadcasts = false;
      for (auto [have, want] : llvm::zip(shape, full))
        broadcasts |= have.size != want.size;
      if (succeeded(current) && broadcasts) {
        SmallVector<Value> dynamic;
        FailureOr<SmallVector<int64_t>> sizes = sizeList(node, full, dynamic);
        if (failed(sizes))
          return failure();
        current = node.build<edge::ExpandOp>(
            *current, dynamic, node.builder().getDenseI64ArrayAttr(*sizes));
      }
      if (failed(current))
        return failure();
      return reshapeTo(node, *current, {batches, rows, columns});
    };
    FailureOr<Value> lhs = expanded(a, aShape, n, k);
    FailureOr<Value> rhs = expanded(b, bShape, bk, m);
    if (failed(lhs) || failed(rhs))
      return failure();
    product = node.build<edge::BmmOp>(*lhs, *rhs);
  }
  if (failed(product))
    return failure();
  // The result: the batch dims, then n and m as the operands had them.
  SmallVector<Extent> resultShape;
  ArrayRef<int64_t> recorded = result->getShape();
  std::optional<SmallVector<Extent>> batch =
      broadcastBatch(ArrayRef<Extent>(aShape).drop_back(2),
                     ArrayRef<Extent>(bShape).drop_back(2));
  SmallVector<Extent> full(*batch);
  if (aType.getRank() > 1)
    full.push_back(n);
  if (bType.getRank() > 1)
    full.push_back(m);
  if (full.size() != recorded.size())
    return node.error() << "result rank differs from the recorded " << *result;
  for (auto [extent, size] : llvm::zip(full, recorded))
    resultShape.push_back(ShapedType::isDynamic(size) ? extent
                                                      : Extent{size, {}, 0});
  return node.bind(reshapeTo(node, *product, resultShape));
}

LogicalResult importPool1d(TorchNode &node) {
  // max_pool1d / avg_pool1d / adaptive_avg_pool1d on [N, C, L] (or [C, L]):
  // the 2-D op on [.., 1, L], then the unit dim dropped.
  StringRef aten = node.aten();
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  int64_t rank = edge::rankedType(input).getRank();
  if (rank != 2 && rank != 3)
    return node.error() << "needs a rank-2 or rank-3 input, got "
                        << input.getType();
  FailureOr<Value> input2d = reshape(node, input, withUnitDim(input, rank - 1));
  if (failed(input2d))
    return failure();
  Builder &b = node.builder();
  auto pair = [&](StringRef name, int64_t first,
                  int64_t fallback) -> std::optional<DenseI64ArrayAttr> {
    std::optional<SmallVector<int64_t>> values =
        windowArg(node, name, 1, fallback);
    if (!values)
      return std::nullopt;
    return b.getDenseI64ArrayAttr({first, values->front()});
  };
  FailureOr<Value> pooled;
  if (aten == "aten::adaptive_avg_pool1d") {
    auto size = pair("output_size", 1, 1);
    if (!size)
      return node.error() << "needs a constant output_size";
    pooled = node.build<edge::AdaptiveAvgPool2dOp>(*input2d, *size);
  } else {
    auto kernel = pair("kernel_size", 1, 1);
    std::optional<DenseI64ArrayAttr> stride =
        node.has("stride") && !node.ints("stride")->empty()
            ? pair("stride", 1, 1)
            : kernel;
    auto padding = pair("padding", 0, 0);
    bool ceil = node.boolean("ceil_mode").value_or(false);
    if (!kernel || !stride || !padding)
      return node.error() << "needs constant kernel_size, stride and padding";
    if (aten == "aten::max_pool1d") {
      auto dilation = pair("dilation", 1, 1);
      if (!dilation)
        return node.error() << "needs a constant dilation";
      pooled = node.build<edge::MaxPool2dOp>(
          *input2d, *kernel, *stride, *padding, *dilation, b.getBoolAttr(ceil));
    } else {
      pooled = node.build<edge::AvgPool2dOp>(
          *input2d, *kernel, *stride, *padding, b.getBoolAttr(ceil),
          b.getBoolAttr(node.boolean("count_include_pad").value_or(true)),
          IntegerAttr());
    }
  }
  if (failed(pooled))
    return failure();
  FailureOr<RankedTensorType> result = node.outputType();
  if (failed(result))
    return failure();
  return node.bind(reshape(node, *pooled, result->getShape()));
}

LogicalResult importAdaptiveAvgPool3d(TorchNode &node) {
  // Video models pool to [N, C, 1, 1, 1]: an output extent that divides the
  // input's is avg_pool3d with kernel = stride = input / output.
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  RankedTensorType type = edge::rankedType(input);
  std::optional<SmallVector<int64_t>> size =
      windowArg(node, "output_size", 3, 1);
  if (!size || (type.getRank() != 4 && type.getRank() != 5))
    return node.error() << "needs a (N)CDHW input and a constant 3-entry "
                           "output_size, got "
                        << input.getType();
  SmallVector<int64_t> window;
  ArrayRef<int64_t> extents = type.getShape().take_back(3);
  for (auto [extent, out] : llvm::zip(extents, *size)) {
    if (ShapedType::isDynamic(extent) || out < 1 || extent % out != 0)
      return node.error() << "supports output sizes that divide the input's "
                             "spatial extents; input "
                          << input.getType() << ", output_size " << out;
    window.push_back(extent / out);
  }
  Builder &b = node.builder();
  return node.bind(node.build<edge::AvgPool3dOp>(
      input, b.getDenseI64ArrayAttr(window), b.getDenseI64ArrayAttr(window),
      b.getDenseI64ArrayAttr({0, 0, 0}), b.getBoolAttr(false),
      b.getBoolAttr(true), IntegerAttr()));
}

LogicalResult importTorchvisionNms(TorchNode &node) {
  // torchvision::nms(dets [N, 4] as x1, y1, x2, y2, scores [N], iou) is
  // ONNX's suppression for one batch and class, every box allowed: the kept
  // box indices are the rows' last column, best first.
  Value boxes = node.tensor("dets"), scores = node.tensor("scores");
  std::optional<double> iou = node.number("iou_threshold");
  if (!boxes || !scores || !iou)
    return node.error() << "needs 'dets', 'scores' and a constant "
                           "'iou_threshold'";
  RankedTensorType boxType = edge::rankedType(boxes);
  if (boxType.getRank() != 2 || boxType.isDynamicDim(0) ||
      boxType.getDimSize(1) != 4)
    return node.error() << "needs boxes of a static shape [N, 4], got "
                        << boxes.getType();
  int64_t count = boxType.getDimSize(0);
  // Corner order does not matter to the suppression (it takes min and max),
  // so x1, y1, x2, y2 serves as ONNX's y1, x1, y2, x2.
  FailureOr<Value> batched = reshape(node, boxes, {1, count, 4});
  FailureOr<Value> ranked = reshape(node, scores, {1, 1, count});
  if (failed(batched) || failed(ranked))
    return failure();
  Builder &b = node.builder();
  FailureOr<Value> rows = node.build<edge::NonMaxSuppressionOp>(
      *batched, *ranked, b.getI64IntegerAttr(count), b.getF64FloatAttr(*iou),
      FloatAttr(), b.getBoolAttr(false));
  if (failed(rows))
    return failure();
  return node.bind(node.build<edge::SelectOp>(*rows, int64_t(1), int64_t(2)));
}

LogicalResult importTorchvisionRoiAlign(TorchNode &node) {
  // torchvision::roi_align(input, rois [K, 5] as batch index, x1, y1, x2,
  // y2, spatial_scale, pooled_height, pooled_width, sampling_ratio,
  // aligned): the boxes and their batch indices split apart.
  Value input = node.tensor("input"), rois = node.tensor("rois");
  std::optional<double> scale = node.number("spatial_scale");
  std::optional<int64_t> height = node.integer("pooled_height"),
                         width = node.integer("pooled_width"),
                         sampling = node.integer("sampling_ratio");
  std::optional<bool> aligned = node.boolean("aligned");
  if (!input || !rois || !scale || !height || !width || !sampling || !aligned)
    return node.error() << "needs 'input', 'rois' and constant spatial_scale, "
                           "pooled_height, pooled_width, sampling_ratio and "
                           "aligned";
  if (edge::rankedType(rois).getRank() != 2 ||
      edge::rankedType(rois).getDimSize(1) != 5)
    return node.error() << "needs rois [K, 5] (batch index, x1, y1, x2, y2), "
                           "got "
                        << rois.getType();
  Builder &b = node.builder();
  FailureOr<Value> boxes = node.build<edge::SliceOp>(
      rois, Value(), int64_t(1), b.getI64IntegerAttr(1), b.getI64IntegerAttr(5),
      int64_t(1));
  FailureOr<Value> column =
      node.build<edge::SelectOp>(rois, int64_t(1), int64_t(0));
  if (failed(boxes) || failed(column))
    return failure();
  FailureOr<Value> batch = node.castTo(*column, b.getI64Type());
  if (failed(batch))
    return failure();
  return node.bind(node.build<edge::RoiAlignOp>(
      input, *boxes, *batch, b.getI64IntegerAttr(*height),
      b.getI64IntegerAttr(*width),
      // torchvision's adaptive grid is any ratio <= 0, Edge's is 0.
      b.getI64IntegerAttr(std::max<int64_t>(*sampling, 0)),
      b.getF64FloatAttr(*scale), b.getBoolAttr(*aligned),
      b.getBoolAttr(false)));
}

LogicalResult importDeterminant(TorchNode &node) {
  // linalg_det / det give the determinant only; _linalg_det (core ATen)
  // also its LU factors and pivots, which Edge's op computes anyway.
  Value input = node.tensor("A");
  if (!input)
    input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  FailureOr<Value> det = node.build<edge::LinalgDetOp>(input);
  if (failed(det))
    return failure();
  if (node.aten() != "aten::_linalg_det")
    return node.bind(det);
  Operation *op = det->getDefiningOp();
  return node.bindEach({op->getResult(0), op->getResult(1), op->getResult(2)});
}

LogicalResult importUpsample(TorchNode &node) {
  // The .vec forms give scale_factors instead of output_size: the output
  // size is the node's recorded output shape, the factors become scales.
  // The 1-D forms (nearest1d, linear1d) run as the 2-D ops on [N, C, 1, L].
  StringRef aten = node.aten();
  bool line = aten.ends_with("1d");
  int64_t rank = line ? 3 : 4;
  Value input = node.self();
  FailureOr<RankedTensorType> outType = node.outputType();
  if (!input)
    return node.error() << "needs a tensor input";
  if (failed(outType))
    return failure();
  if (outType->getRank() != rank || edge::rankedType(input).getRank() != rank ||
      outType->isDynamicDim(rank - 1) || outType->isDynamicDim(rank - 2))
    return node.error() << "needs " << (line ? "an NCL" : "an NCHW")
                        << " input and a static output, got " << *outType;
  Builder &b = node.builder();
  int64_t height = line ? 1 : outType->getDimSize(2);
  DenseI64ArrayAttr size =
      b.getDenseI64ArrayAttr({height, outType->getDimSize(rank - 1)});
  // scales[0] is the height's, scales[1] the width's (a line's only one).
  FloatAttr scales[2];
  if (const TorchArgument *factors = node.arg("scale_factors");
      factors && factors->kind == Kind::Floats &&
      factors->floats.size() == static_cast<size_t>(rank - 2))
    for (auto [i, factor] : llvm::enumerate(factors->floats))
      scales[i + 4 - rank] = b.getF64FloatAttr(factor);
  const char *scaleNames[] = {"scales_h", line ? "scales" : "scales_w"};
  for (int i = line ? 1 : 0; i < 2; ++i)
    if (std::optional<double> scale = node.number(scaleNames[i]))
      scales[i] = b.getF64FloatAttr(*scale);
  if (line) {
    FailureOr<Value> image = reshape(node, input, withUnitDim(input, 2));
    if (failed(image))
      return failure();
    input = *image;
  }
  BoolAttr alignCorners =
      b.getBoolAttr(node.boolean("align_corners").value_or(false));
  FailureOr<Value> resized =
      aten.starts_with("aten::upsample_nearest")
          ? node.build<edge::UpsampleNearest2dOp>(input, size, scales[0],
                                                  scales[1])
      : aten == "aten::upsample_bicubic2d"
          ? node.build<edge::UpsampleBicubic2dOp>(input, size, alignCorners,
                                                  scales[0], scales[1])
          : node.build<edge::UpsampleBilinear2dOp>(input, size, alignCorners,
                                                   scales[0], scales[1]);
  if (failed(resized) || !line)
    return node.bind(resized);
  return node.bind(reshape(node, *resized, outType->getShape()));
}

/// adaptive_max_pool1d / 2d / 3d: output cell i of a dim of size L covers
/// [floor(i L / n), ceil((i + 1) L / n)). A maximum over a box is the
/// maximum over each of its dims in turn, so every spatial dim is reduced
/// on its own: one amax per output position over that dim's window, joined
/// by a cat. Windows that tile the dim evenly on a 4-D input take one
/// max_pool2d instead (what delegates run). The indices output is not
/// produced.
LogicalResult importAdaptiveMaxPool(TorchNode &node) {
  Value input = node.self();
  std::optional<SmallVector<int64_t>> outputSize = node.ints("output_size");
  StringRef aten = node.aten();
  int64_t spatial = aten[aten.size() - 2] - '0'; // "..._pool2d"
  if (!input || !outputSize)
    return node.error() << "needs a tensor and a constant output_size";
  auto type = edge::rankedType(input);
  int64_t rank = type.getRank(), first = rank - spatial;
  if (first < 1 || first > 2 || !type.hasStaticShape())
    return node.error() << "needs a statically shaped input with " << spatial
                        << " spatial dims (and a batch or not)";
  if (outputSize->size() == 1)
    outputSize->assign(spatial, outputSize->front());
  if (static_cast<int64_t>(outputSize->size()) != spatial)
    return node.error() << "needs one output size per spatial dim";
  Builder &b = node.builder();
  bool even = spatial == 2 && rank == 4;
  for (int64_t s = 0; s < spatial; ++s) {
    int64_t size = type.getDimSize(first + s), out = (*outputSize)[s];
    if (out <= 0 || size <= 0)
      return node.error() << "needs positive sizes, got output " << out
                          << " from " << size;
    even &= size % out == 0;
  }
  FailureOr<Value> result = input;
  if (even) {
    int64_t kh = type.getDimSize(2) / (*outputSize)[0],
            kw = type.getDimSize(3) / (*outputSize)[1];
    result = node.build<edge::MaxPool2dOp>(
        input, b.getDenseI64ArrayAttr({kh, kw}),
        b.getDenseI64ArrayAttr({kh, kw}), b.getDenseI64ArrayAttr({0, 0}),
        b.getDenseI64ArrayAttr({1, 1}), b.getBoolAttr(false));
  } else {
    for (int64_t s = 0; s < spatial && succeeded(result); ++s) {
      int64_t d = first + s, size = type.getDimSize(d), out = (*outputSize)[s];
      SmallVector<Value> cells;
      for (int64_t i = 0; i < out; ++i) {
        int64_t start = i * size / out, end = ((i + 1) * size + out - 1) / out;
        FailureOr<Value> window = node.build<edge::SliceOp>(
            *result, Value(), b.getI64IntegerAttr(d),
            b.getI64IntegerAttr(start), b.getI64IntegerAttr(end),
            b.getI64IntegerAttr(1));
        if (failed(window))
          return failure();
        FailureOr<Value> cell = node.build<edge::AmaxOp>(
            *window, b.getDenseI64ArrayAttr({d}), true);
        if (failed(cell))
          return failure();
        cells.push_back(*cell);
      }
      result = cells.size() == 1 ? FailureOr<Value>(cells.front())
                                 : node.build<edge::CatOp>(cells, d);
    }
  }
  if (failed(result))
    return failure();
  return node.bindEach({*result, Value()});
}

} // namespace

/// Pads by copies of the input: per padded dim (pads in ATen order, from
/// the last dim), the border comes from a slice of the input itself —
/// mirrored without the edge element (reflect), the edge element repeated
/// (replicate), or the other end (circular) — joined by a cat.
LogicalResult padByCopies(TorchNode &node, Value input, ArrayRef<int64_t> pads,
                          StringRef mode) {
  auto type = edge::rankedType(input);
  if (pads.size() % 2 || pads.size() / 2 > static_cast<size_t>(type.getRank()))
    return node.error() << "needs (before, after) pairs for at most every dim";
  Builder &b = node.builder();
  Value value = input;
  for (size_t pair = 0; pair < pads.size() / 2; ++pair) {
    int64_t d = type.getRank() - 1 - static_cast<int64_t>(pair);
    int64_t before = pads[2 * pair], after = pads[2 * pair + 1];
    auto current = edge::rankedType(value);
    if (current.isDynamicDim(d))
      return node.error() << "needs a static size in padded dim " << d;
    int64_t extent = current.getDimSize(d);
    bool reflect = mode == "reflect";
    if (before < 0 || after < 0 ||
        (reflect && std::max(before, after) >= extent) ||
        (!reflect && std::max(before, after) > extent) || extent == 0)
      return node.error() << mode << " padding (" << before << ", " << after
                          << ") does not fit dim " << d << " of size "
                          << extent;
    auto slice = [&](int64_t start, int64_t end) {
      return node.build<edge::SliceOp>(value, Value(), d,
                                       b.getI64IntegerAttr(start),
                                       b.getI64IntegerAttr(end), 1);
    };
    // The border of `count` elements on one side.
    auto border = [&](int64_t count, bool front) -> FailureOr<Value> {
      if (mode == "circular")
        return front ? slice(extent - count, extent) : slice(0, count);
      if (mode == "reflect") {
        FailureOr<Value> part =
            front ? slice(1, count + 1) : slice(extent - 1 - count, extent - 1);
        if (failed(part))
          return failure();
        return flipDim(node, *part, d);
      }
      FailureOr<Value> edge = front ? slice(0, 1) : slice(extent - 1, extent);
      if (failed(edge))
        return failure();
      SmallVector<int64_t> shape(current.getShape());
      shape[d] = count;
      return node.build<edge::ExpandOp>(*edge, ValueRange(),
                                        b.getDenseI64ArrayAttr(shape));
    };
    if (!before && !after)
      continue;
    FailureOr<Value> front = before ? border(before, true) : Value();
    FailureOr<Value> back = after ? border(after, false) : Value();
    if (failed(front) || failed(back))
      return failure();
    SmallVector<Value> pieces;
    for (Value piece : {*front, value, *back})
      if (piece)
        pieces.push_back(piece);
    FailureOr<Value> joined = node.build<edge::CatOp>(pieces, d);
    if (failed(joined))
      return failure();
    value = *joined;
  }
  return node.bind(value);
}

/// pad(input, pad, mode, value): constant_pad_nd for 'constant'; reflect,
/// replicate and circular by copies. reflection_padNd / replication_padNd
/// (core ATen) are the same.
LogicalResult importPad(TorchNode &node) {
  StringRef mode = "constant";
  if (const TorchArgument *arg = node.arg("mode");
      arg && arg->kind == Kind::String && !arg->strings.empty())
    mode = arg->strings.front();
  if (node.aten().starts_with("aten::reflection_pad"))
    mode = "reflect";
  else if (node.aten().starts_with("aten::replication_pad"))
    mode = "replicate";
  if (mode == "constant") {
    auto &args = node.args();
    llvm::erase_if(args, [](const auto &arg) { return arg.first == "mode"; });
    return node.importAs("aten::constant_pad_nd");
  }
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    return node.error() << "padding mode '" << mode << "' is not supported";
  Value input = node.self();
  std::optional<SmallVector<int64_t>> pads =
      node.has("pad") ? node.ints("pad") : node.ints("padding");
  if (!input || !pads)
    return node.error() << "needs a tensor and constant pads";
  return padByCopies(node, input, *pads, mode);
}

/// roll(self, shifts, dims): along each dim, the last `shift` elements move
/// to the front (cat of two slices). Without dims, the flattened tensor
/// rolls.
LogicalResult importRoll(TorchNode &node) {
  Value input = node.self();
  std::optional<SmallVector<int64_t>> shifts = node.ints("shifts");
  std::optional<SmallVector<int64_t>> dims = node.ints("dims");
  if (!input || !shifts)
    return node.error() << "needs a tensor and constant shifts";
  auto type = edge::rankedType(input);
  if (!type.hasStaticShape())
    return node.error() << "needs a statically shaped input";
  Value value = input;
  bool flat = !dims || dims->empty();
  if (flat) {
    if (shifts->size() != 1)
      return node.error() << "without dims, needs one shift";
    FailureOr<Value> flattened = reshape(node, input, {type.getNumElements()});
    if (failed(flattened))
      return failure();
    value = *flattened;
    dims = SmallVector<int64_t>{0};
  }
  if (dims->size() != shifts->size())
    return node.error() << "needs as many shifts as dims";
  Builder &b = node.builder();
  for (auto [shift, dim] : llvm::zip(*shifts, *dims)) {
    auto current = edge::rankedType(value);
    int64_t d = dim < 0 ? dim + current.getRank() : dim;
    if (d < 0 || d >= current.getRank())
      return node.error() << "dim " << dim << " is out of range";
    int64_t extent = current.getDimSize(d);
    int64_t split = extent ? ((extent - shift % extent) % extent) : 0;
    if (split == 0)
      continue;
    FailureOr<Value> tail =
        node.build<edge::SliceOp>(value, Value(), d, b.getI64IntegerAttr(split),
                                  b.getI64IntegerAttr(extent), 1);
    FailureOr<Value> head =
        node.build<edge::SliceOp>(value, Value(), d, b.getI64IntegerAttr(0),
                                  b.getI64IntegerAttr(split), 1);
    if (failed(tail) || failed(head))
      return failure();
    FailureOr<Value> rolled =
        node.build<edge::CatOp>(ValueRange{*tail, *head}, d);
    if (failed(rolled))
      return failure();
    value = *rolled;
  }
  if (flat) {
    FailureOr<Value> shaped = reshape(node, value, type.getShape());
    if (failed(shaped))
      return failure();
    value = *shaped;
  }
  return node.bind(value);
}

/// max_pool2d_with_indices: the values-only op (what targets take) unless
/// the graph reads the indices.
LogicalResult importMaxPool2dWithIndices(TorchNode &node) {
  if (!node.outputRead(1))
    return node.importAs("aten::max_pool2d");
  Value input = node.self();
  auto kernel = windowArg(node, "kernel_size", 2, 1);
  if (!input || !kernel)
    return node.error() << "needs a tensor and a constant kernel_size";
  auto stride = node.has("stride") && !node.ints("stride")->empty()
                    ? windowArg(node, "stride", 2, 1)
                    : kernel;
  auto padding = windowArg(node, "padding", 2, 0);
  auto dilation = windowArg(node, "dilation", 2, 1);
  if (!stride || !padding || !dilation)
    return node.error() << "needs constant stride, padding and dilation";
  Builder &b = node.builder();
  FailureOr<Value> pooled = node.build<edge::MaxPool2dWithIndicesOp>(
      input, b.getDenseI64ArrayAttr(*kernel), b.getDenseI64ArrayAttr(*stride),
      b.getDenseI64ArrayAttr(*padding), b.getDenseI64ArrayAttr(*dilation),
      b.getBoolAttr(node.boolean("ceil_mode").value_or(false)));
  if (failed(pooled))
    return failure();
  Operation *op = pooled->getDefiningOp();
  return node.bindEach({op->getResult(0), op->getResult(1)});
}

void addCompositeHandlers(TorchOpHandlers &handlers) {
  handlers["aten::max_pool2d_with_indices"] = importMaxPool2dWithIndices;
  for (const char *name :
       {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution",
        "aten::_convolution", "aten::conv_transpose1d",
        "aten::conv_transpose2d", "aten::conv_transpose3d"})
    handlers[name] = importConvolution;
  handlers["aten::matmul"] = importMatmul;
  handlers["torchvision::nms"] = importTorchvisionNms;
  for (const char *name :
       {"aten::linalg_det", "aten::det", "aten::_linalg_det"})
    handlers[name] = importDeterminant;
  handlers["torchvision::roi_align"] = importTorchvisionRoiAlign;
  for (const char *name :
       {"aten::adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d"})
    handlers[name] = importAdaptiveAvgPool3d;
  for (const char *name :
       {"aten::max_pool1d", "aten::avg_pool1d", "aten::adaptive_avg_pool1d"})
    handlers[name] = importPool1d;
  for (const char *name :
       {"aten::upsample_nearest2d", "aten::upsample_bilinear2d",
        "aten::upsample_bicubic2d", "aten::upsample_nearest1d",
        "aten::upsample_linear1d"})
    handlers[name] = importUpsample;
  for (const char *name :
       {"aten::pad", "aten::reflection_pad1d", "aten::reflection_pad2d",
        "aten::reflection_pad3d", "aten::replication_pad1d",
        "aten::replication_pad2d", "aten::replication_pad3d"})
    handlers[name] = importPad;
  handlers["aten::roll"] = importRoll;
  for (const char *name :
       {"aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d",
        "aten::adaptive_max_pool3d"})
    handlers[name] = importAdaptiveMaxPool;
}

} // namespace etch::torch_import
