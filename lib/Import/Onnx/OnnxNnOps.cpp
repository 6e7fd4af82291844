//===- OnnxNnOps.cpp - Conv, Gemm, MatMul, pooling, Resize ----------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"
#include "runtime/core/WindowExtent.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace etch::onnx_import {

namespace {
/// ONNX window attributes (2-D or 3-D) resolved to ATen's symmetric form.
struct Window {
  SmallVector<int64_t, 3> kernel, stride, padding, dilation;
  /// Padding the window op cannot take (asymmetric, or more than half the
  /// kernel for pooling), applied before it by constant_pad_nd: ATen's
  /// order, last dim first ([left, right, top, bottom, front, back]). Empty
  /// when there is none.
  SmallVector<int64_t, 6> explicitPad;
};
} // namespace

/// Reads kernel_shape/strides/pads/dilations/auto_pad for a window over the
/// last kernel.size() dims of an N, C, spatial... input. ATen (and so Edge)
/// pads symmetrically, a pooling window by at most half the kernel: other
/// padding becomes Window::explicitPad where \p explicitPadding allows, else
/// an error (never silently changed).
static FailureOr<Window> resolveWindow(OnnxImporter &importer,
                                       const OnnxNode &node,
                                       RankedTensorType input,
                                       ArrayRef<int64_t> kernel,
                                       bool explicitPadding, bool pooling) {
  size_t spatial = kernel.size();
  Window window;
  window.kernel.assign(kernel.begin(), kernel.end());
  auto ints = [&](StringRef name, int64_t fallback, size_t count) {
    std::vector<int64_t> values =
        importer.intsAttr(node, name).value_or(std::vector<int64_t>());
    if (values.empty())
      values.assign(count, fallback);
    return values;
  };
  std::vector<int64_t> strides = ints("strides", 1, spatial);
  std::vector<int64_t> dilations = ints("dilations", 1, spatial);
  std::vector<int64_t> pads = ints("pads", 0, 2 * spatial);
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return importer.nodeError(node)
           << "a " << spatial << "-D window needs strides and dilations of "
           << spatial << " and pads of " << 2 * spatial << " entries";
  std::string autoPad = importer.stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t extent = input.getDimSize(2 + i);
      if (ShapedType::isDynamic(extent))
        return importer.nodeError(node)
               << "auto_pad " << autoPad << " needs static spatial dims";
      // Ordered so that no step overflows: the last window starts inside
      // the input, (out - 1) * stride < extent.
      int64_t out = extent / strides[i] + (extent % strides[i] != 0);
      int64_t reach;
      if (__builtin_mul_overflow(dilations[i], kernel[i] - 1, &reach))
        return importer.nodeError(node) << "the dilated window in spatial dim "
                                        << i << " does not fit int64";
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[i] - extent + 1 + reach);
      int64_t small = total / 2, large = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : large;
      pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (autoPad != "NOTSET") {
    return importer.nodeError(node) << "unknown auto_pad '" << autoPad << "'";
  }
  window.stride.assign(strides.begin(), strides.end());
  window.dilation.assign(dilations.begin(), dilations.end());
  bool symmetric = true, fits = true;
  for (size_t i = 0; i < spatial; ++i) {
    symmetric &= pads[i] == pads[i + spatial];
    fits &= !pooling || 2 * pads[i] <= kernel[i];
  }
  if (symmetric && fits) {
    window.padding.assign(pads.begin(), pads.begin() + spatial);
    return window;
  }
  if (!explicitPadding) {
    InFlightDiagnostic diag = importer.nodeError(node) << "pads [";
    llvm::interleaveComma(pads, diag);
    return diag << "] are not supported (asymmetric, or more than half the "
                   "kernel)";
  }
  window.padding.assign(spatial, 0);
  for (size_t i = spatial; i-- > 0;) {
    window.explicitPad.push_back(pads[i]);
    window.explicitPad.push_back(pads[i + spatial]);
  }
  return window;
}

static FailureOr<Value> padExplicitly(OnnxImporter &importer, Location loc,
                                      Value x, ArrayRef<int64_t> pad,
                                      double value) {
  OpBuilder &builder = importer.builder;
  return importer.edge.create<edge::ConstantPadNdOp>(
      loc, x,
      {builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad)),
       builder.getNamedAttr("value", builder.getF64FloatAttr(value))});
}

/// A 1-D window node (Conv, ConvTranspose, MaxPool, AveragePool over
/// [N, C, W]) converted as the 2-D node over [N, C, 1, W]: the data (and a
/// convolution's weight) gain a unit height, the window attributes a unit
/// first entry, and the result loses the height again.
LogicalResult OnnxImporter::convertAs2d(const OnnxNode &node,
                                        NodeConverter convert) {
  Location loc = locationOf(node);
  auto unitHeight = [&](size_t index) -> FailureOr<std::string> {
    Value value = input(node, index);
    if (!value)
      return failure();
    FailureOr<Value> raised = edge.create<edge::UnsqueezeOp>(
        loc, value,
        {builder.getNamedAttr("dim", builder.getI64IntegerAttr(2))});
    if (failed(raised))
      return failure();
    std::string name = node.inputs[index] + "#2d";
    values[name] = *raised;
    return name;
  };
  OnnxNode planar = node;
  size_t raisedInputs = node.opType.find("Conv") == 0 ? 2 : 1;
  for (size_t index = 0; index < raisedInputs; ++index) {
    FailureOr<std::string> name = unitHeight(index);
    if (failed(name))
      return failure();
    planar.inputs[index] = *name;
  }
  auto prepend = [&](const char *attribute, int64_t unit) {
    auto it = planar.attributes.find(attribute);
    if (it != planar.attributes.end())
      it->second.ints.insert(it->second.ints.begin(), unit);
  };
  prepend("kernel_shape", 1);
  prepend("strides", 1);
  prepend("dilations", 1);
  prepend("output_padding", 0);
  if (auto pads = planar.attributes.find("pads");
      pads != planar.attributes.end() && pads->second.ints.size() == 2)
    pads->second.ints = {0, pads->second.ints[0], 0, pads->second.ints[1]};
  planar.outputs[0] = node.outputs[0] + "#2d";
  if (failed((this->*convert)(planar)))
    return failure();
  return bind(
      node,
      edge.create<edge::SqueezeOp>(
          loc, values.lookup(planar.outputs[0]),
          {builder.getNamedAttr("dim", builder.getDenseI64ArrayAttr({2}))}));
}

namespace {
/// How a ConvTranspose's ONNX padding maps onto ATen's: symmetric `padding`
/// and an `output_padding` the op takes, then `crop` (begin, end per spatial
/// dim) sliced off its output.
struct TransposedPadding {
  SmallVector<int64_t, 3> padding, outputPadding;
  SmallVector<std::pair<int64_t, int64_t>, 3> crop;
};
} // namespace

/// ONNX's ConvTranspose padding: `output_shape`, or auto_pad SAME_* (the
/// output is input * stride), decides the total padding (the extra one at the
/// end for SAME_UPPER and at the start otherwise, a negative total growing
/// the end), else `pads` give each side. ATen pads both sides alike, so the
/// op takes the smaller side and the rest is cropped from its output.
static FailureOr<TransposedPadding> transposedPadding(OnnxImporter &importer,
                                                      const OnnxNode &node,
                                                      RankedTensorType input,
                                                      ArrayRef<int64_t> kernel,
                                                      const Window &window) {
  size_t spatial = kernel.size();
  std::vector<int64_t> outputPadding =
      importer.intsAttr(node, "output_padding")
          .value_or(std::vector<int64_t>(spatial, 0));
  std::vector<int64_t> pads =
      importer.intsAttr(node, "pads")
          .value_or(std::vector<int64_t>(2 * spatial, 0));
  std::optional<std::vector<int64_t>> outputShape =
      importer.intsAttr(node, "output_shape");
  std::string autoPad = importer.stringAttr(node, "auto_pad", "NOTSET");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (outputPadding.size() != spatial || pads.size() != 2 * spatial ||
      (outputShape && outputShape->size() != spatial))
    return importer.nodeError(node)
           << "output_padding and output_shape need " << spatial
           << " entries and pads " << 2 * spatial;
  if (autoPad == "VALID")
    pads.assign(2 * spatial, 0);
  TransposedPadding result;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t extent = input.getDimSize(2 + i);
    int64_t begin = pads[i], end = pads[i + spatial];
    if (outputShape || same) {
      if (ShapedType::isDynamic(extent))
        return importer.nodeError(node)
               << "output_shape and auto_pad need static spatial dims";
      int64_t full = runtime::transposedWindowExtent(
          extent, kernel[i], window.stride[i], /*padding=*/0,
          window.dilation[i], outputPadding[i]);
      if (full <= 0)
        return importer.nodeError(node)
               << "the transposed convolution's extent in spatial dim " << i
               << " does not fit int64";
      int64_t target =
          outputShape ? (*outputShape)[i] : extent * window.stride[i];
      int64_t total = full - target;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2); // floor
      begin = autoPad == "SAME_UPPER" ? half : total - half;
      end = total - begin;
    }
    if (begin < 0)
      return importer.nodeError(node)
             << "an output that starts before the full transposed "
                "convolution's (padding "
             << begin << " in spatial dim " << i << ") is not supported";
    int64_t common = std::max<int64_t>(0, std::min(begin, end));
    int64_t grown = std::max<int64_t>(0, outputPadding[i] + common - end);
    result.padding.push_back(common);
    result.outputPadding.push_back(grown);
    result.crop.push_back(
        {begin - common, grown - common - outputPadding[i] + end});
  }
  return result;
}

LogicalResult OnnxImporter::convertConv(const OnnxNode &node) {
  Value x = input(node, 0), w = input(node, 1);
  if (!x || !w)
    return failure();
  if (rankedTypeOf(x).getRank() == 3)
    return convertAs2d(node, &OnnxImporter::convertConv);
  RankedTensorType weightType = rankedTypeOf(w);
  int64_t rank = rankedTypeOf(x).getRank();
  if ((rank != 4 && rank != 5) || weightType.getRank() != rank)
    return nodeError(node) << "only 1-D, 2-D and 3-D convolution (input and "
                              "weight of rank 3, 4 or 5) is supported";
  SmallVector<int64_t> kernel(weightType.getShape().drop_front(2));
  if (llvm::any_of(kernel, ShapedType::isDynamic))
    return nodeError(node) << "the weight's kernel dims must be static";
  bool transposed = node.opType == "ConvTranspose";
  // A transposed convolution's padding crops its output: resolved apart.
  OnnxNode windowNode = node;
  if (transposed) {
    windowNode.attributes.erase("pads");
    windowNode.attributes.erase("auto_pad");
  }
  FailureOr<Window> window =
      resolveWindow(*this, windowNode, rankedTypeOf(x), kernel,
                    /*explicitPadding=*/true, /*pooling=*/false);
  if (failed(window))
    return failure();
  if (!window->explicitPad.empty()) {
    FailureOr<Value> padded =
        padExplicitly(*this, locationOf(node), x, window->explicitPad, 0.0);
    if (failed(padded))
      return failure();
    x = *padded;
  }
  FailureOr<TransposedPadding> transposedPads;
  if (transposed) {
    transposedPads =
        transposedPadding(*this, node, rankedTypeOf(x), kernel, *window);
    if (failed(transposedPads))
      return failure();
    window->padding = transposedPads->padding;
  }
  SmallVector<Value> operands = {x, w};
  if (hasInput(node, 2)) {
    Value bias = input(node, 2);
    if (!bias)
      return failure();
    operands.push_back(bias);
  }
  SmallVector<NamedAttribute> attributes = {
      builder.getNamedAttr("stride",
                           builder.getDenseI64ArrayAttr(window->stride)),
      builder.getNamedAttr("padding",
                           builder.getDenseI64ArrayAttr(window->padding)),
      builder.getNamedAttr("dilation",
                           builder.getDenseI64ArrayAttr(window->dilation)),
      builder.getNamedAttr(
          "groups", builder.getI64IntegerAttr(intAttr(node, "group", 1)))};
  if (transposed) {
    attributes.push_back(
        builder.getNamedAttr("transposed", builder.getBoolAttr(true)));
    attributes.push_back(builder.getNamedAttr(
        "output_padding",
        builder.getDenseI64ArrayAttr(transposedPads->outputPadding)));
  }
  Location loc = locationOf(node);
  FailureOr<Value> result =
      rank == 5 ? edge.create<edge::Convolution3dOp>(loc, operands, attributes)
                : edge.create<edge::ConvolutionOp>(loc, operands, attributes);
  if (failed(result) || !transposed)
    return bind(node, result);
  for (auto [i, crop] : llvm::enumerate(transposedPads->crop)) {
    if (crop.first == 0 && crop.second == 0)
      continue;
    int64_t dim = 2 + static_cast<int64_t>(i);
    int64_t extent = rankedTypeOf(*result).getDimSize(dim);
    SmallVector<NamedAttribute, 3> bounds = {
        builder.getNamedAttr("dim", builder.getI64IntegerAttr(dim)),
        builder.getNamedAttr("start", builder.getI64IntegerAttr(crop.first))};
    // A dynamic extent's end counts from the back (Python slicing).
    if (!ShapedType::isDynamic(extent))
      bounds.push_back(builder.getNamedAttr(
          "end", builder.getI64IntegerAttr(extent - crop.second)));
    else if (crop.second > 0)
      bounds.push_back(
          builder.getNamedAttr("end", builder.getI64IntegerAttr(-crop.second)));
    result = edge.create<edge::SliceOp>(loc, *result, bounds);
    if (failed(result))
      return failure();
  }
  return bind(node, result);
}

LogicalResult OnnxImporter::convertGemm(const OnnxNode &node) {
  Location loc = locationOf(node);
  Value a = input(node, 0), b = input(node, 1);
  if (!a || !b)
    return failure();
  double alpha = floatAttr(node, "alpha", 1.0f);
  double beta = floatAttr(node, "beta", 1.0f);
  bool transA = intAttr(node, "transA", 0), transB = intAttr(node, "transB", 0);
  Value c;
  if (hasInput(node, 2) && !(c = input(node, 2)))
    return failure();

  // The common case (nn.Linear) maps to edge.linear directly.
  if (!transA && transB && alpha == 1.0 && (beta == 1.0 || !c)) {
    // A bias of one per output feature is linear's; any other broadcast
    // (one element, a matrix) is added after.
    SmallVector<Value> operands = {a, b};
    bool featureBias =
        c && rankedTypeOf(c).getRank() == 1 &&
        rankedTypeOf(c).getDimSize(0) == rankedTypeOf(b).getDimSize(0);
    if (featureBias)
      operands.push_back(c);
    FailureOr<Value> linear = edge.create<edge::LinearOp>(loc, operands);
    if (succeeded(linear) && c && !featureBias)
      linear = edge.create<edge::AddOp>(loc, ValueRange{*linear, c});
    return bind(node, linear);
  }
  if (transA) {
    FailureOr<Value> transposedA = permute(loc, a, {1, 0});
    if (failed(transposedA))
      return bind(node, transposedA);
    a = *transposedA;
  }
  if (transB) {
    FailureOr<Value> transposedB = permute(loc, b, {1, 0});
    if (failed(transposedB))
      return bind(node, transposedB);
    b = *transposedB;
  }
  if (c)
    return bind(
        node,
        edge.create<edge::AddmmOp>(
            loc, ValueRange{c, a, b},
            {builder.getNamedAttr("beta", builder.getF64FloatAttr(beta)),
             builder.getNamedAttr("alpha", builder.getF64FloatAttr(alpha))}));
  FailureOr<Value> product = edge.create<edge::MmOp>(loc, ValueRange{a, b});
  if (succeeded(product) && alpha != 1.0)
    product = edge.create<edge::MulOp>(
        loc,
        ValueRange{*product,
                   edge.scalarConstant(
                       loc, rankedTypeOf(*product).getElementType(), alpha)});
  return bind(node, product);
}

LogicalResult OnnxImporter::convertMatMul(const OnnxNode &node) {
  Location loc = locationOf(node);
  Value a = input(node, 0), b = input(node, 1);
  if (!a || !b)
    return failure();
  RankedTensorType aType = rankedTypeOf(a), bType = rankedTypeOf(b);
  int64_t aRank = aType.getRank(), bRank = bType.getRank();
  if (aRank == 2 && bRank == 2 && !constantInput(node, 1))
    return bind(node, edge.create<edge::MmOp>(loc, ValueRange{a, b}));
  if (bRank == 2 && aRank >= 1) {
    // x @ W == linear(x, W^T); the transpose of a constant folds away.
    FailureOr<Value> weight = permute(loc, b, {1, 0});
    if (failed(weight))
      return bind(node, weight);
    return bind(node, edge.create<edge::LinearOp>(loc, ValueRange{a, *weight}));
  }
  if (aRank == 3 && bRank == 3)
    return bind(node, edge.create<edge::BmmOp>(loc, ValueRange{a, b}));
  if (aRank == bRank && aRank > 3 && aType.hasStaticShape() &&
      bType.hasStaticShape() &&
      aType.getShape().drop_back(2) == bType.getShape().drop_back(2)) {
    // Fold the batch dims into one, bmm, and restore them.
    int64_t batch = 1;
    for (int64_t dim : aType.getShape().drop_back(2))
      batch *= dim;
    ArrayRef<int64_t> as = aType.getShape(), bs = bType.getShape();
    FailureOr<Value> a3 = view(loc, a, {batch, as[aRank - 2], as[aRank - 1]});
    FailureOr<Value> b3 = view(loc, b, {batch, bs[bRank - 2], bs[bRank - 1]});
    if (failed(a3) || failed(b3))
      return bind(node, failure());
    FailureOr<Value> product =
        edge.create<edge::BmmOp>(loc, ValueRange{*a3, *b3});
    if (failed(product))
      return bind(node, product);
    SmallVector<int64_t> shape(as.drop_back(2));
    shape.push_back(as[aRank - 2]);
    shape.push_back(bs[bRank - 1]);
    return bind(node, view(loc, *product, shape));
  }
  return nodeError(node) << "MatMul of " << aType << " and " << bType
                         << " (broadcast batch dims or rank-1 operands) is not "
                            "supported";
}

/// MaxPool with its Indices read: positions within each plane from
/// edge.max_pool2d_with_indices (column-major within the plane for
/// storage_order 1), made flat over the whole NCHW tensor by each plane's
/// offset, as onnxruntime numbers them.
LogicalResult
OnnxImporter::bindMaxPoolIndices(const OnnxNode &node, Value x,
                                 ArrayRef<NamedAttribute> attributes,
                                 bool padded) {
  RankedTensorType type = rankedTypeOf(x);
  if (padded || !type.hasStaticShape())
    return nodeError(node) << "Indices need a static input and pads the "
                              "pooling window takes (at most half the kernel, "
                              "symmetric)";
  Location loc = locationOf(node);
  FailureOr<Value> pooled =
      edge.create<edge::MaxPool2dWithIndicesOp>(loc, x, attributes);
  if (failed(pooled))
    return failure();
  Operation *op = pooled->getDefiningOp();
  int64_t batch = type.getDimSize(0), channels = type.getDimSize(1),
          plane = type.getDimSize(2) * type.getDimSize(3);
  std::vector<int64_t> offsets(batch * channels);
  for (int64_t i = 0; i < batch * channels; ++i)
    offsets[i] = i * plane;
  Compose c(*this, node);
  Value within = op->getResult(1);
  if (intAttr(node, "storage_order", 0) != 0) {
    // Column-major within the plane: h + w * H for the row-major h * W + w.
    int64_t width = type.getDimSize(3);
    Value row = c.op<edge::DivOp>(
        {within, c.scalar(within, width)},
        {builder.getNamedAttr("rounding_mode",
                              builder.getStringAttr("trunc"))});
    Value column = c.op<edge::RemainderOp>({within, c.scalar(within, width)});
    within = c.op<edge::AddOp>(
        {row,
         c.op<edge::MulOp>({column, c.scalar(within, type.getDimSize(2))})});
  }
  Value flat =
      c.op<edge::AddOp>({within, c.int64s({batch, channels, 1, 1}, offsets)});
  if (failed(bind(node, op->getResult(0))))
    return failure();
  return c.bind(flat, 1);
}

LogicalResult OnnxImporter::convertPool(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  if (rankedTypeOf(x).getRank() == 3)
    return convertAs2d(node, &OnnxImporter::convertPool);
  RankedTensorType type = rankedTypeOf(x);
  // MaxPool's Indices output over NCHW: where each maximum came from.
  bool wantsIndices = node.opType == "MaxPool" && node.outputs.size() > 1 &&
                      !node.outputs[1].empty() &&
                      useCounts.lookup(node.outputs[1]) > 0;
  if (!wantsIndices || type.getRank() != 4) {
    if (failed(requireUnused(node, 1)))
      return failure();
    wantsIndices = false;
  }
  std::optional<std::vector<int64_t>> kernel = intsAttr(node, "kernel_shape");
  if (!kernel || (type.getRank() != 4 && type.getRank() != 5) ||
      static_cast<int64_t>(kernel->size()) != type.getRank() - 2)
    return nodeError(node) << "only 1-D, 2-D and 3-D pooling over "
                              "NCW/NCHW/NCDHW input is supported";
  bool volumetric = type.getRank() == 5;
  FailureOr<Window> window = resolveWindow(*this, node, type, *kernel,
                                           /*explicitPadding=*/true,
                                           /*pooling=*/true);
  if (failed(window))
    return failure();
  bool ceilMode = intAttr(node, "ceil_mode", 0) != 0;
  bool maxPool = node.opType == "MaxPool";
  bool countPads = intAttr(node, "count_include_pad", 0) != 0;
  Location loc = locationOf(node);
  // Padding outside the window op: -inf for max; for an average that does
  // not count pads, the padded sum over the count of real elements, i.e.
  // avg(pad(x)) / avg(pad(ones)).
  Value divisor;
  if (!window->explicitPad.empty()) {
    if (ceilMode)
      return nodeError(node) << "ceil_mode=1 with pads that are asymmetric "
                                "or more than half the kernel is not supported";
    double fill = maxPool ? -std::numeric_limits<double>::infinity() : 0.0;
    FailureOr<Value> padded =
        padExplicitly(*this, loc, x, window->explicitPad, fill);
    if (failed(padded))
      return failure();
    if (!maxPool && !countPads) {
      Compose compose(*this, node);
      SmallVector<int64_t> shape(type.getShape());
      Value ones = compose.op<edge::FullOp>(
          {}, {compose.attr("size", ArrayRef(shape)),
               compose.attr("fill_value", 1.0),
               builder.getNamedAttr("dtype",
                                    TypeAttr::get(type.getElementType()))});
      FailureOr<Value> paddedOnes =
          ones ? padExplicitly(*this, loc, ones, window->explicitPad, 0.0)
               : FailureOr<Value>(failure());
      if (failed(paddedOnes))
        return failure();
      divisor = *paddedOnes;
    }
    x = *padded;
  }
  SmallVector<NamedAttribute> attributes = {
      builder.getNamedAttr("kernel_size",
                           builder.getDenseI64ArrayAttr(window->kernel)),
      builder.getNamedAttr("stride",
                           builder.getDenseI64ArrayAttr(window->stride)),
      builder.getNamedAttr("padding",
                           builder.getDenseI64ArrayAttr(window->padding)),
      builder.getNamedAttr("ceil_mode", builder.getBoolAttr(ceilMode))};
  if (maxPool) {
    if (intAttr(node, "storage_order", 0) != 0 && !wantsIndices)
      return nodeError(node) << "storage_order=1 is not supported";
    attributes.push_back(builder.getNamedAttr(
        "dilation", builder.getDenseI64ArrayAttr(window->dilation)));
    if (volumetric)
      return bind(node, edge.create<edge::MaxPool3dOp>(loc, x, attributes));
    if (wantsIndices)
      return bindMaxPoolIndices(node, x, attributes,
                                !window->explicitPad.empty());
    return bind(node, edge.create<edge::MaxPool2dOp>(loc, x, attributes));
  }
  if (llvm::any_of(window->dilation, [](int64_t d) { return d != 1; }))
    return nodeError(node) << "AveragePool with dilations is not supported";
  attributes.push_back(builder.getNamedAttr("count_include_pad",
                                            builder.getBoolAttr(countPads)));
  auto averagePool = [&](Value input) {
    return volumetric ? edge.create<edge::AvgPool3dOp>(loc, input, attributes)
                      : edge.create<edge::AvgPool2dOp>(loc, input, attributes);
  };
  FailureOr<Value> average = averagePool(x);
  if (failed(average) || !divisor)
    return bind(node, average);
  FailureOr<Value> share = averagePool(divisor);
  if (failed(share))
    return failure();
  return bind(node,
              edge.create<edge::DivOp>(loc, ValueRange{*average, *share}));
}

LogicalResult OnnxImporter::convertGlobalPool(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  if (type.getRank() < 3)
    return nodeError(node) << "needs N, C and spatial dims, got " << type;
  Location loc = locationOf(node);
  if (type.getRank() != 4) {
    // 1-D and 3-D (video) inputs: mean or max over every spatial dim.
    SmallVector<int64_t> spatial;
    for (int64_t d = 2; d < type.getRank(); ++d)
      spatial.push_back(d);
    SmallVector<NamedAttribute> attributes = {
        builder.getNamedAttr("dim", builder.getDenseI64ArrayAttr(spatial)),
        builder.getNamedAttr("keepdim", builder.getBoolAttr(true))};
    if (node.opType == "GlobalAveragePool")
      return bind(node, edge.create<edge::MeanOp>(loc, x, attributes));
    return bind(node, edge.create<edge::AmaxOp>(loc, x, attributes));
  }
  if (node.opType == "GlobalAveragePool")
    return bind(node,
                edge.create<edge::AdaptiveAvgPool2dOp>(
                    loc, x,
                    {builder.getNamedAttr(
                        "output_size", builder.getDenseI64ArrayAttr({1, 1}))}));
  if (type.isDynamicDim(2) || type.isDynamicDim(3))
    return nodeError(node) << "GlobalMaxPool needs static spatial dims, got "
                           << type;
  return bind(node, edge.create<edge::MaxPool2dOp>(
                        loc, x,
                        {builder.getNamedAttr(
                            "kernel_size",
                            builder.getDenseI64ArrayAttr(
                                {type.getDimSize(2), type.getDimSize(3)}))}));
}

/// Resize: the forms torch exports (nearest asymmetric/floor, linear
/// half_pixel / pytorch_half_pixel / align_corners over H and W) map to the
/// upsample ops; every other mode and layout is composed (OnnxResize.cpp).
LogicalResult OnnxImporter::convertResize(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  int64_t rank = type.getRank();
  if (!type.hasStaticShape())
    return nodeError(node) << "only static input is supported, got " << type;
  std::string mode = stringAttr(node, "mode", "nearest");
  std::string transform =
      stringAttr(node, "coordinate_transformation_mode", "half_pixel");
  std::string nearest = stringAttr(node, "nearest_mode", "round_prefer_floor");
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (const OnnxTensor *tensor = constantInput(node, 2))
    if (std::optional<std::vector<double>> values = constantDoubles(*tensor))
      scales = *values;
  if (const OnnxTensor *tensor = constantInput(node, 3))
    if (std::optional<std::vector<int64_t>> values = constantInts(*tensor))
      sizes = *values;
  if (scales.empty() && sizes.empty())
    return nodeError(node) << "scales or sizes must be constants";
  if ((!scales.empty() && static_cast<int64_t>(scales.size()) != rank) ||
      (!sizes.empty() && static_cast<int64_t>(sizes.size()) != rank))
    return nodeError(node) << "scales/sizes must have " << rank << " entries";
  // Sizes imply scales, scales sizes (rounded down).
  std::vector<int64_t> outSizes(rank);
  std::vector<double> axisScales(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = type.getDimSize(d);
    outSizes[d] = !sizes.empty()
                      ? sizes[d]
                      : static_cast<int64_t>(std::floor(in * scales[d]));
    axisScales[d] =
        !sizes.empty() ? static_cast<double>(sizes[d]) / in : scales[d];
  }
  // What torch exports (NCHW, H and W only) keeps its upsample ops; every
  // other mode and layout is resized axis by axis (OnnxResize.cpp).
  bool planar = rank == 4 && outSizes[0] == type.getDimSize(0) &&
                outSizes[1] == type.getDimSize(1) && axisScales[0] == 1.0 &&
                axisScales[1] == 1.0;
  bool torchNearest =
      mode == "nearest" && transform == "asymmetric" && nearest == "floor";
  // upsample_bilinear2d differs from ONNX where an output extent is 1
  // (pytorch_half_pixel reads position 0 there).
  bool unitExtent = false;
  for (int64_t d = 2; d < rank; ++d)
    unitExtent |= outSizes[d] == 1;
  bool torchLinear =
      mode == "linear" &&
      (transform == "align_corners" || transform == "half_pixel" ||
       (transform == "pytorch_half_pixel" && !unitExtent));
  if (!planar || !(torchNearest || torchLinear)) {
    Compose compose(*this, node);
    return composeResize(compose, x, outSizes, axisScales);
  }
  SmallVector<NamedAttribute> attributes = {builder.getNamedAttr(
      "output_size", builder.getDenseI64ArrayAttr({outSizes[2], outSizes[3]}))};
  if (!scales.empty() && transform != "align_corners") {
    attributes.push_back(
        builder.getNamedAttr("scales_h", builder.getF64FloatAttr(scales[2])));
    attributes.push_back(
        builder.getNamedAttr("scales_w", builder.getF64FloatAttr(scales[3])));
  }
  Location loc = locationOf(node);
  if (torchNearest)
    return bind(node,
                edge.create<edge::UpsampleNearest2dOp>(loc, x, attributes));
  attributes.push_back(builder.getNamedAttr(
      "align_corners", builder.getBoolAttr(transform == "align_corners")));
  return bind(node,
              edge.create<edge::UpsampleBilinear2dOp>(loc, x, attributes));
}

} // namespace etch::onnx_import
