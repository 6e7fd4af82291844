//===- OnnxResize.cpp - Resize in every mode as per-axis taps -------------===//
//
// With static shapes every ONNX Resize mode is separable: along each resized
// axis, output position i reads a few input positions (taps) with weights
// that depend on i alone. They are computed here, at import, by ONNX's
// formulas (coordinate transformation, nearest rounding, linear, cubic with
// exclude_outside), and the axis becomes sum_t index_select(x, taps_t) *
// weights_t. The forms torch exports keep their upsample ops (OnnxNnOps.cpp).
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

#include <cmath>

using namespace mlir;

namespace etch::onnx_import {
namespace {

/// One output position's taps along an axis.
struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
};

/// Where output position \p i reads along an axis of \p in positions.
/// align_corners divides by the whole output extent less one, as torch and
/// onnxruntime do (onnx 1.12's reference divides by in * scale - 1).
double sourceCoordinate(const std::string &transform, int64_t i, double scale,
                        int64_t in, int64_t out) {
  double x = static_cast<double>(i);
  if (transform == "align_corners")
    return out == 1 ? 0.0 : x * (in - 1) / (out - 1);
  if (transform == "asymmetric")
    return x / scale;
  if (transform == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (transform == "pytorch_half_pixel" && out == 1)
    return 0.0;
  return (x + 0.5) / scale - 0.5; // half_pixel, pytorch_half_pixel
}

int64_t roundNearest(const std::string &mode, double x) {
  if (mode == "floor")
    return static_cast<int64_t>(std::floor(x));
  if (mode == "ceil")
    return static_cast<int64_t>(std::ceil(x));
  double base = std::floor(x);
  if (x - base == 0.5)
    return static_cast<int64_t>(mode == "round_prefer_ceil" ? base + 1 : base);
  return static_cast<int64_t>(std::round(x));
}

/// Keys' cubic convolution weight of a tap at distance \p d.
double cubicWeight(double d, double a) {
  d = std::fabs(d);
  if (d <= 1)
    return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2)
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

Taps tapsAt(const std::string &mode, const std::string &nearest, double x,
            int64_t in, double cubicA, bool excludeOutside) {
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i, 0, in - 1);
  };
  Taps taps;
  if (mode == "nearest") {
    taps.index = {clampIndex(roundNearest(nearest, x))};
    taps.weight = {1.0};
  } else if (mode == "linear") {
    x = std::clamp(x, 0.0, static_cast<double>(in - 1));
    auto low = static_cast<int64_t>(std::floor(x));
    taps.index = {low, clampIndex(low + 1)};
    taps.weight = {1.0 - (x - low), x - low};
  } else { // cubic
    auto low = static_cast<int64_t>(std::floor(x));
    double t = x - low, total = 0;
    for (int64_t k = -1; k <= 2; ++k) {
      int64_t at = low + k;
      double w = cubicWeight(t - k, cubicA);
      if (excludeOutside && (at < 0 || at >= in))
        w = 0;
      taps.index.push_back(clampIndex(at));
      taps.weight.push_back(w);
      total += w;
    }
    if (excludeOutside && total != 0)
      for (double &w : taps.weight)
        w /= total;
  }
  return taps;
}

/// A constant of \p like's element type with \p values along \p dim.
Value weightsAlong(Compose &c, Value like, ArrayRef<double> values, int64_t dim,
                   int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = static_cast<int64_t>(values.size());
  Type element = c.typeOf(like).getElementType();
  auto type = RankedTensorType::get(shape, element);
  std::string bytes;
  for (double value : values) {
    if (element.isF64()) {
      bytes.append(reinterpret_cast<const char *>(&value), sizeof(double));
    } else {
      auto narrow = static_cast<float>(value);
      bytes.append(reinterpret_cast<const char *>(&narrow), sizeof(float));
    }
  }
  return c.importer.edge.constantFromBytes(
      c.loc, type, ArrayRef<char>(bytes.data(), bytes.size()), "");
}

} // namespace

LogicalResult composeResize(Compose &c, Value x, ArrayRef<int64_t> outSizes,
                            ArrayRef<double> scales) {
  RankedTensorType type = c.typeOf(x);
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF64())
    return c.importer.nodeError(c.node)
           << "resize of " << type << " is not supported (float only)";
  std::string mode = c.importer.stringAttr(c.node, "mode", "nearest");
  std::string transform = c.importer.stringAttr(
      c.node, "coordinate_transformation_mode", "half_pixel");
  std::string nearest =
      c.importer.stringAttr(c.node, "nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return c.importer.nodeError(c.node)
           << "resize mode '" << mode << "' is not one of nearest, linear, "
           << "cubic";
  static const char *const kTransforms[] = {"half_pixel", "pytorch_half_pixel",
                                            "align_corners", "asymmetric",
                                            "tf_half_pixel_for_nn"};
  if (llvm::none_of(kTransforms, [&](const char *t) { return transform == t; }))
    return c.importer.nodeError(c.node) << "coordinate_transformation_mode '"
                                        << transform << "' is not supported";
  double cubicA = c.importer.floatAttr(c.node, "cubic_coeff_a", -0.75f);
  bool excludeOutside = c.importer.intAttr(c.node, "exclude_outside", 0) != 0;
  int64_t rank = type.getRank();
  Value result = x;
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t in = type.getDimSize(axis), out = outSizes[axis];
    if (in == out && scales[axis] == 1.0)
      continue;
    if (out < 1 || in < 1)
      return c.importer.nodeError(c.node)
             << "cannot resize extent " << in << " to " << out;
    // Taps per output position, then one index_select per tap slot.
    std::vector<Taps> perPosition;
    for (int64_t i = 0; i < out; ++i)
      perPosition.push_back(tapsAt(
          mode, nearest, sourceCoordinate(transform, i, scales[axis], in, out),
          in, cubicA, excludeOutside));
    Value sum;
    for (size_t t = 0; t < perPosition.front().index.size(); ++t) {
      std::vector<int64_t> index;
      std::vector<double> weight;
      for (const Taps &taps : perPosition) {
        index.push_back(taps.index[t]);
        weight.push_back(taps.weight[t]);
      }
      Value picked = c.op<edge::IndexSelectOp>({result, c.int64s({out}, index)},
                                               {c.attr("dim", axis)});
      if (mode != "nearest")
        picked = c.op<edge::MulOp>(
            {picked, weightsAlong(c, result, weight, axis, rank)});
      sum = sum ? c.op<edge::AddOp>({sum, picked}) : picked;
    }
    result = sum;
    if (!result)
      return failure();
  }
  return c.bind(result);
}

} // namespace etch::onnx_import
