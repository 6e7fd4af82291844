//===- ReductionOps.cpp - mean, sum, softmax, log_softmax -----------------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"

#include "runtime/core/ReductionShape.h"

using namespace mlir;
using namespace etch::edge;

/// The reduction's result type by runtime/core/ReductionShape.h's rule,
/// which the portable kernels check against too.
LogicalResult
etch::edge::inferReductionShape(std::optional<Location> location,
                                StringRef opName, Value self,
                                std::optional<ArrayRef<int64_t>> dims,
                                bool keepdim, SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  int64_t rank = type.getRank();
  ArrayRef<int64_t> named = dims ? *dims : ArrayRef<int64_t>();
  SmallVector<bool, 8> reduced(rank);
  size_t at = 0;
  switch (etch::runtime::markReducedDims(named.data(), named.size(), rank,
                                         reduced.data(), at)) {
  case etch::runtime::ReducedDimsError::OutOfRange:
    (void)normalizeDim(location, opName, "dim", named[at], rank);
    return failure();
  case etch::runtime::ReducedDimsError::Repeated:
    return emitInferenceError(location, opName,
                              "dim " + Twine(named[at]) +
                                  " appears more than once");
  case etch::runtime::ReducedDimsError::None:
    break;
  }
  SmallVector<int64_t> shape(rank);
  shape.resize(etch::runtime::reducedShape(
      type.getShape().data(), rank, reduced.data(), keepdim, shape.data()));
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult MeanOp::verify() {
  std::optional<Location> location = getLoc();
  if (!isa<FloatType>(rankedType(getSelf()).getElementType()))
    return emitInferenceError(
        location, getOperationName(),
        "self must have a floating-point element type, got " +
            formatType(rankedType(getSelf())));
  return success();
}

/// argmax/argmin: the reduction shape over one dim (or all), as i64.
LogicalResult etch::edge::inferArgReduction(MLIRContext *context,
                                            std::optional<Location> location,
                                            StringRef opName, Value self,
                                            std::optional<uint64_t> dim,
                                            bool keepdim,
                                            SmallVectorImpl<Type> &types) {
  SmallVector<int64_t, 1> dims;
  if (dim)
    dims.push_back(static_cast<int64_t>(*dim));
  std::optional<ArrayRef<int64_t>> list;
  if (dim)
    list = ArrayRef<int64_t>(dims);
  if (failed(inferReductionShape(location, opName, self, list,
                                 keepdim && dim.has_value(), types)))
    return failure();
  types.back() =
      cast<RankedTensorType>(types.back()).clone(IntegerType::get(context, 64));
  return success();
}

/// Softmax-like ops keep the shape; `dim` must name a dimension (rank-0
/// tensors accept 0 and -1, as ATen does). `half_to_float` turns f16 into f32.
LogicalResult etch::edge::inferSoftmaxResult(std::optional<Location> location,
                                             StringRef opName, Value self,
                                             int64_t dim, bool halfToFloat,
                                             SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(self);
  if (!normalizeDim(location, opName, "dim", dim,
                    std::max<int64_t>(type.getRank(), 1)))
    return failure();
  if (!halfToFloat) {
    types.push_back(type);
    return success();
  }
  if (!type.getElementType().isF16())
    return emitInferenceError(location, opName,
                              "half_to_float needs an f16 input, got " +
                                  formatType(type));
  types.push_back(type.clone(Float32Type::get(type.getContext())));
  return success();
}

/// any/all: the reduction shape, as i1.
LogicalResult etch::edge::inferTruthReduction(
    MLIRContext *context, std::optional<Location> location, StringRef opName,
    Value self, std::optional<ArrayRef<int64_t>> dims, bool keepdim,
    SmallVectorImpl<Type> &types) {
  if (failed(inferReductionShape(location, opName, self, dims, keepdim, types)))
    return failure();
  types.back() =
      cast<RankedTensorType>(types.back()).clone(IntegerType::get(context, 1));
  return success();
}

/// The dim cumsum, topk and sort run along (a scalar has dim 0 or -1).
static std::optional<int64_t> laneDim(std::optional<Location> location,
                                      StringRef opName, RankedTensorType type,
                                      uint64_t dim) {
  return normalizeDim(location, opName, "dim", static_cast<int64_t>(dim),
                      std::max<int64_t>(type.getRank(), 1));
}

LogicalResult CumsumOp::verify() {
  std::optional<Location> location = getLoc();
  RankedTensorType type = rankedType(getSelf());
  if (!laneDim(location, getOperationName(), type, getDim()))
    return failure();
  return success();
}

LogicalResult etch::edge::setTopCount(std::optional<Location> location,
                                      StringRef name, int64_t k, int64_t dim,
                                      SmallVectorImpl<int64_t> &shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  SmallVector<int64_t> sizes(shape.begin(), shape.end());
  for (int64_t &extent : sizes)
    if (ShapedType::isDynamic(extent))
      extent = -1;
  if (rank == 0) { // a scalar is its own top 1
    if (k > 1 || k < 0)
      return emitInferenceError(location, name,
                                "k = " + Twine(k) + " of a scalar");
    return success();
  }
  int64_t extent = shape[dim];
  if (!runtime::selectedShape(sizes.data(), rank, dim, k, shape.data()))
    return emitInferenceError(location, name,
                              "k = " + Twine(k) + " is outside [0, " +
                                  Twine(extent) + "]");
  for (int64_t &extent : shape)
    if (extent < 0)
      extent = ShapedType::kDynamic;
  return success();
}

LogicalResult SortOp::verify() {
  std::optional<Location> location = getLoc();
  RankedTensorType type = rankedType(getSelf());
  if (!laneDim(location, getOperationName(), type, getDim()))
    return failure();
  return success();
}

LogicalResult NonzeroOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(adaptor.getSelf());
  types.push_back(RankedTensorType::get({ShapedType::kDynamic, type.getRank()},
                                        IntegerType::get(context, 64)));
  return success();
}

LogicalResult NonzeroOp::upperBoundTypes(TypeRange operandTypes,
                                         SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(operandTypes.front());
  if (!type.hasStaticShape())
    return failure();
  // Every element nonzero.
  types.push_back(RankedTensorType::get({type.getNumElements(), type.getRank()},
                                        IntegerType::get(getContext(), 64)));
  return success();
}

LogicalResult UniqueDimOp::upperBoundTypes(TypeRange operandTypes,
                                           SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(operandTypes.front());
  std::optional<int64_t> dim =
      normalizeDim(std::nullopt, getOperationName(), "dim",
                   static_cast<int64_t>(getDim()), type.getRank());
  if (!type.hasStaticShape() || !dim)
    return failure();
  // Every slice distinct.
  auto i64 = IntegerType::get(getContext(), 64);
  int64_t slices = type.getDimSize(*dim);
  types.push_back(type);
  for (int i = 0; i < 3; ++i)
    types.push_back(RankedTensorType::get({slices}, i64));
  return success();
}

LogicalResult UniqueOp::upperBoundTypes(TypeRange operandTypes,
                                        SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(operandTypes.front());
  if (!type.hasStaticShape())
    return failure();
  // Every element distinct.
  auto i64 = IntegerType::get(getContext(), 64);
  int64_t elements = type.getNumElements();
  types.push_back(RankedTensorType::get({elements}, type.getElementType()));
  for (int i = 0; i < 3; ++i)
    types.push_back(RankedTensorType::get({elements}, i64));
  return success();
}
