//===- PoolingOps.cpp - max/avg (2-D, 3-D), adaptive avg pooling ----------===//
#include "edge/EdgeDialect.h"
#include "runtime/core/WindowExtent.h"

using namespace mlir;
using namespace etch::edge;

namespace {
/// The window parameters ATen's pooling ops share, after defaulting.
struct PoolWindow {
  SmallVector<int64_t, 3> kernel, stride, padding, dilation;
  bool ceilMode;
};
} // namespace

/// Validates the window and computes [.., C, spatial outputs...] for an input
/// with \p spatialDims spatial dims, batched or not (CHW/NCHW for 2-D,
/// CDHW/NCDHW for 3-D).
static LogicalResult inferPoolShape(std::optional<Location> location,
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

/// ATen: an empty stride means "same as the kernel".
static SmallVector<int64_t, 3> strideOrKernel(ArrayRef<int64_t> stride,
                                              ArrayRef<int64_t> kernel) {
  return SmallVector<int64_t, 3>(stride.empty() ? kernel : stride);
}

template <typename Adaptor>
static LogicalResult
inferMaxPool(std::optional<Location> location, StringRef name, Adaptor adaptor,
             size_t spatialDims, SmallVectorImpl<Type> &types) {
  PoolWindow window{
      SmallVector<int64_t, 3>(adaptor.getKernelSize()),
      strideOrKernel(adaptor.getStride(), adaptor.getKernelSize()),
      SmallVector<int64_t, 3>(adaptor.getPadding()),
      SmallVector<int64_t, 3>(adaptor.getDilation()), adaptor.getCeilMode()};
  return inferPoolShape(location, name, adaptor.getSelf(), window, spatialDims,
                        types);
}

template <typename Adaptor>
static LogicalResult
inferAvgPool(std::optional<Location> location, StringRef name, Adaptor adaptor,
             size_t spatialDims, SmallVectorImpl<Type> &types) {
  std::optional<uint64_t> divisor = adaptor.getDivisorOverride();
  if (divisor && *divisor == 0)
    return emitInferenceError(location, name,
                              "divisor_override must be non-zero");
  PoolWindow window{
      SmallVector<int64_t, 3>(adaptor.getKernelSize()),
      strideOrKernel(adaptor.getStride(), adaptor.getKernelSize()),
      SmallVector<int64_t, 3>(adaptor.getPadding()),
      SmallVector<int64_t, 3>(spatialDims, 1), adaptor.getCeilMode()};
  return inferPoolShape(location, name, adaptor.getSelf(), window, spatialDims,
                        types);
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferMaxPool(location, getOperationName(), adaptor, 2, types);
}

LogicalResult MaxPool2dWithIndicesOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(inferMaxPool(location, getOperationName(), adaptor, 2, types)))
    return failure();
  types.push_back(cast<RankedTensorType>(types.front())
                      .clone(IntegerType::get(context, 64)));
  return success();
}

LogicalResult MaxPool3dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferMaxPool(location, getOperationName(), adaptor, 3, types);
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferAvgPool(location, getOperationName(), adaptor, 2, types);
}

LogicalResult AvgPool3dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferAvgPool(location, getOperationName(), adaptor, 3, types);
}

LogicalResult AdaptiveAvgPool2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType type = rankedType(adaptor.getSelf());
  if (type.getRank() != 3 && type.getRank() != 4)
    return emitInferenceError(
        location, name,
        "self must have rank 3 (CHW) or 4 (NCHW), got rank " +
            Twine(type.getRank()));
  if (failed(verifySpatialPair(location, name, "output_size",
                               adaptor.getOutputSize(), 1)))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  shape[shape.size() - 2] = adaptor.getOutputSize()[0];
  shape[shape.size() - 1] = adaptor.getOutputSize()[1];
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

/// Upsampling keeps N and C and sets H, W to output_size.
static LogicalResult inferUpsample(std::optional<Location> location,
                                   StringRef opName, Value self,
                                   ArrayRef<int64_t> size,
                                   SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  if (type.getRank() != 4)
    return emitInferenceError(location, opName,
                              "self must have rank 4 (NCHW), got rank " +
                                  Twine(type.getRank()));
  if (failed(verifySpatialPair(location, opName, "output_size", size, 1)))
    return failure();
  types.push_back(RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), size[0], size[1]},
      type.getElementType()));
  return success();
}

LogicalResult UpsampleNearest2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  return inferUpsample(location, getOperationName(), adaptor.getSelf(),
                       adaptor.getOutputSize(), types);
}

LogicalResult UpsampleBilinear2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  return inferUpsample(location, getOperationName(), adaptor.getSelf(),
                       adaptor.getOutputSize(), types);
}
