//===- PoolingOps.cpp - max/avg (2-D, 3-D), adaptive avg pooling ----------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"
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
