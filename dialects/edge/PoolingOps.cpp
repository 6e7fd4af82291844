//===- PoolingOps.cpp - pooling, adaptive pooling, im2col and col2im -----===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"
#include "runtime/core/PatchShape.h"
#include "runtime/core/WindowExtent.h"

using namespace mlir;
using namespace etch::edge;

/// Validates the window and computes [.., C, spatial outputs...] for an input
/// with \p spatialDims spatial dims, batched or not (CHW/NCHW for 2-D,
/// CDHW/NCDHW for 3-D).
LogicalResult etch::edge::inferPoolShape(std::optional<Location> location,
                                         StringRef opName, Value input,
                                         const PoolWindow &window,
                                         size_t spatialDims,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(input);
  int64_t unbatched = static_cast<int64_t>(spatialDims) + 1;
  if (type.getRank() != unbatched && type.getRank() != unbatched + 1)
    return emitInferenceError(location, opName,
                              "self must have rank " + Twine(unbatched) + " (" +
                                  (spatialDims == 3 ? "CDHW" : "CHW") +
                                  ") or " + Twine(unbatched + 1) + " (" +
                                  (spatialDims == 3 ? "NCDHW" : "NCHW") +
                                  "), got rank " + Twine(type.getRank()));
  if (failed(verifySpatialEntries(location, opName, "kernel_size",
                                  window.kernel, 1, spatialDims)) ||
      failed(verifySpatialEntries(location, opName, "stride", window.stride, 1,
                                  spatialDims)) ||
      failed(verifySpatialEntries(location, opName, "padding", window.padding,
                                  0, spatialDims)) ||
      failed(verifySpatialEntries(location, opName, "dilation", window.dilation,
                                  1, spatialDims)))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  size_t spatial = shape.size() - spatialDims;
  for (size_t i = 0; i < spatialDims; ++i) {
    int64_t reach;
    if (__builtin_mul_overflow(window.dilation[i], window.kernel[i] - 1,
                               &reach) ||
        reach == INT64_MAX)
      return emitInferenceError(location, opName,
                                "kernel_size and dilation overflow int64");
    int64_t effectiveKernel = reach + 1;
    if (!etch::runtime::poolingPaddingFits(window.padding[i], window.kernel[i],
                                           window.dilation[i]))
      return emitInferenceError(location, opName,
                                "padding " + Twine(window.padding[i]) +
                                    " must be at most half of the kernel "
                                    "extent " +
                                    Twine(effectiveKernel));
    int64_t out = slidingWindowExtent(shape[spatial + i], window.kernel[i],
                                      window.stride[i], window.padding[i],
                                      window.dilation[i], window.ceilMode);
    if (out == 0)
      return emitInferenceError(location, opName,
                                "kernel extent " + Twine(effectiveKernel) +
                                    " does not fit input extent " +
                                    Twine(shape[spatial + i]) +
                                    " in spatial dim " + Twine(spatial + i));
    shape[spatial + i] = out;
  }
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

/// Resizes and adaptive pools keep the leading dims and set H, W to
/// output_size.
LogicalResult etch::edge::inferOutputSize(std::optional<Location> location,
                                          StringRef opName, Value self,
                                          ArrayRef<int64_t> size,
                                          int64_t minRank,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  if (type.getRank() != 4 && (minRank > 3 || type.getRank() != 3))
    return emitInferenceError(
        location, opName,
        Twine("self must have rank ") + (minRank > 3 ? "" : "3 (CHW) or ") +
            "4 (NCHW), got rank " + Twine(type.getRank()));
  if (failed(verifySpatialPair(location, opName, "output_size", size, 1)))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  shape[shape.size() - 2] = size[0];
  shape[shape.size() - 1] = size[1];
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

/// im2col and col2im's window: two entries each, kernel_size, dilation and
/// stride positive, padding non-negative (ATen's checks).
static FailureOr<etch::runtime::PatchWindow>
checkedPatchWindow(std::optional<Location> location, StringRef opName,
                   const PatchArgs &args) {
  if (failed(
          verifySpatialPair(location, opName, "kernel_size", args.kernel, 1)) ||
      failed(
          verifySpatialPair(location, opName, "dilation", args.dilation, 1)) ||
      failed(verifySpatialPair(location, opName, "padding", args.padding, 0)) ||
      failed(verifySpatialPair(location, opName, "stride", args.stride, 1)))
    return failure();
  etch::runtime::PatchWindow window;
  for (int i = 0; i < 2; ++i) {
    window.kernel[i] = args.kernel[i];
    window.dilation[i] = args.dilation[i];
    window.padding[i] = args.padding[i];
    window.stride[i] = args.stride[i];
  }
  if (etch::runtime::patchTaps(window) == 0)
    return emitInferenceError(location, opName, "kernel_size overflows int64");
  return window;
}

/// Windows along H and W of an image, dynamic where the extent is; an error
/// where none fits.
static LogicalResult patchBlocksOf(std::optional<Location> location,
                                   StringRef opName,
                                   const etch::runtime::PatchWindow &window,
                                   ArrayRef<int64_t> image, int64_t &blocks) {
  blocks = 1;
  for (int i = 0; i < 2; ++i) {
    if (ShapedType::isDynamic(image[i])) {
      blocks = ShapedType::kDynamic;
      continue;
    }
    int64_t count = etch::runtime::patchBlocksAlong(window, i, image[i]);
    if (count <= 0)
      return emitInferenceError(
          location, opName,
          Twine("no window fits along ") + (i ? "W" : "H") + ": extent " +
              Twine(image[i]) + ", kernel " + Twine(window.kernel[i]) +
              ", dilation " + Twine(window.dilation[i]) + ", padding " +
              Twine(window.padding[i]));
    if (!ShapedType::isDynamic(blocks) &&
        __builtin_mul_overflow(blocks, count, &blocks))
      return emitInferenceError(location, opName,
                                "the window count overflows int64");
  }
  return success();
}

LogicalResult etch::edge::inferPatchColumns(std::optional<Location> location,
                                            StringRef opName, Value self,
                                            const PatchArgs &args,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  if (type.getRank() != 3 && type.getRank() != 4)
    return emitInferenceError(location, opName,
                              "self must have rank 3 (CHW) or 4 (NCHW), got "
                              "rank " +
                                  Twine(type.getRank()));
  FailureOr<runtime::PatchWindow> window =
      checkedPatchWindow(location, opName, args);
  int64_t blocks;
  if (failed(window) ||
      failed(patchBlocksOf(location, opName, *window,
                           type.getShape().take_back(2), blocks)))
    return failure();
  SmallVector<int64_t> shape(type.getShape().drop_back(3));
  int64_t channels = type.getShape()[shape.size()], rows = channels;
  if (!ShapedType::isDynamic(channels) &&
      __builtin_mul_overflow(channels, runtime::patchTaps(*window), &rows))
    return emitInferenceError(location, opName,
                              "C * kernel_size overflows int64");
  shape.append({rows, blocks});
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult etch::edge::inferPatchImage(std::optional<Location> location,
                                          StringRef opName, Value self,
                                          ArrayRef<int64_t> outputSize,
                                          const PatchArgs &args,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  if (type.getRank() != 2 && type.getRank() != 3)
    return emitInferenceError(location, opName,
                              "self must have rank 2 (C * kh * kw, L) or 3 "
                              "(N, C * kh * kw, L), got rank " +
                                  Twine(type.getRank()));
  if (failed(verifySpatialPair(location, opName, "output_size", outputSize, 1)))
    return failure();
  FailureOr<runtime::PatchWindow> window =
      checkedPatchWindow(location, opName, args);
  int64_t blocks;
  if (failed(window) ||
      failed(patchBlocksOf(location, opName, *window, outputSize, blocks)))
    return failure();
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  int64_t rows = type.getShape()[shape.size()],
          columns = type.getShape().back();
  int64_t taps = runtime::patchTaps(*window);
  if (!ShapedType::isDynamic(rows) && rows % taps != 0)
    return emitInferenceError(location, opName,
                              "self has " + Twine(rows) +
                                  " rows, not a multiple of the " +
                                  Twine(taps) + " taps of kernel_size");
  if (!ShapedType::isDynamic(columns) && columns != blocks)
    return emitInferenceError(location, opName,
                              "self has " + Twine(columns) +
                                  " columns, expected one per window over "
                                  "output_size: " +
                                  Twine(blocks));
  shape.append({ShapedType::isDynamic(rows) ? rows : rows / taps, outputSize[0],
                outputSize[1]});
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}
