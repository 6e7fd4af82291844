//===- OnnxComposedDataOps.cpp - Data-dependent and signal ONNX ops -------===//
//
// ONNX operators whose results depend on the data (TopK, NonZero, Unique,
// Compress, NonMaxSuppression), detection and signal operators (RoiAlign,
// GridSample, DFT, Det) and the sequence ops (ReverseSequence, MaxUnpool),
// each a short row of Edge ops; composedOps() takes them from here.
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

void addDataDependentCompositions(llvm::StringMap<Composition> &table) {
  table["TopK"] = topK;
  table["NonZero"] = nonZero;
  table["NonMaxSuppression"] = nonMaxSuppression;
  table["RoiAlign"] = roiAlign;
  table["Det"] = det;
  table["DFT"] = dft;
  table["ReverseSequence"] = reverseSequence;
  table["MaxUnpool"] = maxUnpool;
  table["Unique"] = unique;
  table["GridSample"] = gridSample;
  table["Compress"] = compress;
}

} // namespace etch::onnx_import
