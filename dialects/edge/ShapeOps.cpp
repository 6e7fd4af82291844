//===- ShapeOps.cpp - view, permute, cat, slice, ... and embedding --------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"
#include "runtime/core/ViewShape.h"

#include <limits>

using namespace mlir;
using namespace etch::edge;

static RankedTensorType withShape(Value like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, rankedType(like).getElementType());
}

LogicalResult etch::edge::inferViewShape(std::optional<Location> location,
                                         StringRef name, Value self,
                                         ArrayRef<int64_t> written,
                                         ArrayRef<int64_t> size,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(self);
  SmallVector<int64_t> shape(size);
  // Dynamic entries are sizes known at run time.
  static_assert(ShapedType::kDynamic == etch::runtime::kUnknownSize);
  int64_t knownProduct, inferredIndex;
  bool unknown;
  switch (etch::runtime::readViewSize(shape.data(), shape.size(),
                                      /*unknownAllowed=*/true, knownProduct,
                                      inferredIndex, unknown)) {
  case etch::runtime::ViewSizeError::TwoInferred:
    return emitInferenceError(location, name,
                              "size " + formatShape(written) +
                                  " has more than one -1");
  case etch::runtime::ViewSizeError::Negative:
    return emitInferenceError(location, name,
                              "size entries must be >= 0 or -1, got " +
                                  formatShape(shape));
  case etch::runtime::ViewSizeError::Overflow:
    return emitInferenceError(location, name,
                              "size " + formatShape(written) +
                                  " has more elements than int64 can count");
  case etch::runtime::ViewSizeError::None:
    break;
  }
  if (!input.hasStaticShape() || unknown) {
    if (inferredIndex >= 0)
      shape[inferredIndex] = ShapedType::kDynamic;
  } else if (inferredIndex >= 0) {
    shape[inferredIndex] =
        etch::runtime::inferredViewExtent(input.getNumElements(), knownProduct);
    if (shape[inferredIndex] < 0)
      return emitInferenceError(location, name,
                                "cannot view " + formatType(input) +
                                    " as size " + formatShape(written));
  } else if (knownProduct != input.getNumElements()) {
    return emitInferenceError(location, name,
                              "size " + formatShape(shape) + " has " +
                                  Twine(knownProduct) + " elements but " +
                                  formatType(input) + " has " +
                                  Twine(input.getNumElements()));
  }
  types.push_back(withShape(self, shape));
  return success();
}

LogicalResult etch::edge::listedOrder(std::optional<Location> location,
                                      StringRef name, ArrayRef<int64_t> dims,
                                      int64_t rank,
                                      SmallVectorImpl<int64_t> &source) {
  SmallVector<bool> named(rank);
  size_t at;
  switch (etch::runtime::permutationOf(dims.data(), dims.size(), rank,
                                       named.data(), source.data(), at)) {
  case etch::runtime::PermutationError::Count:
    return emitInferenceError(location, name,
                              "dims " + formatShape(dims) + " must have " +
                                  Twine(rank) + " entries (the rank)");
  case etch::runtime::PermutationError::OutOfRange:
    return emitInferenceError(location, name,
                              "dim " + Twine(dims[at]) +
                                  " is out of range for rank " + Twine(rank));
  case etch::runtime::PermutationError::Repeated:
    return emitInferenceError(
        location, name, "dims " + formatShape(dims) + " is not a permutation");
  case etch::runtime::PermutationError::None:
    break;
  }
  return success();
}

LogicalResult etch::edge::swappedOrder(std::optional<Location> location,
                                       StringRef name, int64_t dim0,
                                       int64_t dim1, int64_t rank,
                                       SmallVectorImpl<int64_t> &source) {
  // ATen accepts dims 0 and -1 on rank-0 tensors.
  int64_t dims = std::max<int64_t>(rank, 1);
  if (!normalizeDim(location, name, "dim0", dim0, dims) ||
      !normalizeDim(location, name, "dim1", dim1, dims))
    return failure();
  (void)etch::runtime::transpositionOf(rank, dim0, dim1, source.data());
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getSelf());
  SmallVector<int64_t> shape(input.getRank() + 1);
  if (etch::runtime::unsqueezedShape(input.getShape().data(), input.getRank(),
                                     adaptor.getDim(), shape.data()) < 0) {
    // Out of range: the message names the dim and the range.
    (void)normalizeDim(location, getOperationName(), "dim", adaptor.getDim(),
                       input.getRank() + 1);
    return failure();
  }
  types.push_back(withShape(adaptor.getSelf(), shape));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getSelf());
  int64_t rank = input.getRank();
  std::optional<ArrayRef<int64_t>> dims = adaptor.getDim();
  ArrayRef<int64_t> named = dims.value_or(ArrayRef<int64_t>());
  // Whether a dynamic extent is 1 is not known here.
  for (int64_t dim : named) {
    int64_t d = etch::runtime::normalizedDim(dim, rank);
    if (d >= 0 && input.isDynamicDim(d))
      return emitInferenceError(location, name,
                                "cannot decide whether dim " + Twine(dim) +
                                    " of dynamic size is squeezed");
  }
  SmallVector<bool> marks(rank);
  SmallVector<int64_t> shape(rank);
  size_t at;
  int64_t kept = etch::runtime::squeezedShape(
      input.getShape().data(), rank, named.data(), named.size(),
      dims.has_value(), marks.data(), shape.data(), at);
  if (kept < 0) {
    (void)normalizeDim(location, name, "dim", named[at],
                       std::max<int64_t>(rank, 1));
    return failure();
  }
  shape.resize(kept);
  types.push_back(withShape(adaptor.getSelf(), shape));
  return success();
}

LogicalResult CatOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange tensors = adaptor.getTensors();
  if (tensors.empty())
    return emitInferenceError(location, name, "needs at least one tensor");
  RankedTensorType first = rankedType(tensors.front());
  std::optional<int64_t> dim =
      normalizeDim(location, name, "dim", adaptor.getDim(), first.getRank());
  if (!dim)
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(tensors.drop_front())) {
    RankedTensorType type = rankedType(value);
    std::string which = "tensor #" + std::to_string(index + 1);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emitInferenceError(
          location, name,
          which + " (" + formatType(type) +
              ") differs in rank or element type from tensor "
              "#0 (" +
              formatType(first) + ")");
    for (int64_t i = 0; i < first.getRank(); ++i) {
      int64_t extent = type.getDimSize(i);
      if (i == *dim) {
        if (ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(extent))
          shape[i] = ShapedType::kDynamic;
        else if (__builtin_add_overflow(shape[i], extent, &shape[i]))
          return emitInferenceError(location, name,
                                    "the cat dim's extent does not fit int64");
      } else if (!extentsAgree(shape[i], extent)) {
        return emitInferenceError(
            location, name,
            which + " has shape " + formatShape(type.getShape()) +
                ", which differs from " + formatShape(first.getShape()) +
                " outside the cat dim " + Twine(*dim));
      } else if (ShapedType::isDynamic(shape[i])) {
        shape[i] = extent;
      }
    }
  }
  types.push_back(withShape(tensors.front(), shape));
  return success();
}

/// The length of a Python slice of \p extent (step >= 1); dynamic when the
/// extent is.
static int64_t sliceExtent(int64_t extent, std::optional<int64_t> start,
                           std::optional<int64_t> end, int64_t step) {
  if (ShapedType::isDynamic(extent))
    return ShapedType::kDynamic;
  return etch::runtime::pythonSlice(
             extent, start.value_or(0),
             end.value_or(std::numeric_limits<int64_t>::max()), step)
      .length;
}

LogicalResult etch::edge::setSliceLength(std::optional<Location> location,
                                         StringRef name, int64_t dim,
                                         std::optional<int64_t> start,
                                         std::optional<int64_t> end,
                                         Value dynamicEnd, int64_t step,
                                         SmallVectorImpl<int64_t> &shape) {
  if (step < 1)
    return emitInferenceError(location, name,
                              "step must be >= 1, got " + Twine(step));
  int64_t extent = shape[dim];
  if (dynamicEnd) {
    end = constantSize(dynamicEnd);
    if (!end)
      extent = ShapedType::kDynamic; // known at run time
  }
  shape[dim] = sliceExtent(extent, start, end, step);
  return success();
}

LogicalResult SliceScatterOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(getSelf());
  RankedTensorType src = rankedType(getSrc());
  std::optional<int64_t> dim =
      normalizeDim(location, name, "dim", getDim(), input.getRank());
  if (!dim)
    return failure();
  if (getStep() < 1)
    return emitInferenceError(location, name,
                              "step must be >= 1, got " + Twine(getStep()));
  SmallVector<int64_t> slice(input.getShape());
  slice[*dim] = sliceExtent(slice[*dim], getStart(), getEnd(), getStep());
  bool agrees = src.getRank() == input.getRank() &&
                src.getElementType() == input.getElementType();
  for (int64_t d = 0; agrees && d < input.getRank(); ++d)
    agrees = extentsAgree(slice[d], src.getDimSize(d));
  if (!agrees)
    return emitInferenceError(
        location, name,
        "src " + formatType(src) + " is not the slice's shape " +
            formatShape(slice) + " of " + formatType(input));
  return success();
}

LogicalResult etch::edge::dropSelectedDim(std::optional<Location> location,
                                          StringRef name, int64_t index,
                                          int64_t dim,
                                          SmallVectorImpl<int64_t> &shape) {
  int64_t extent = shape[dim];
  if (!ShapedType::isDynamic(extent) && (index < -extent || index >= extent))
    return emitInferenceError(location, name,
                              "index " + Twine(index) +
                                  " is out of range for dim " + Twine(dim) +
                                  " of size " + Twine(extent));
  shape.erase(shape.begin() + dim);
  return success();
}

LogicalResult etch::edge::inferExpandShape(std::optional<Location> location,
                                           StringRef name, Value self,
                                           ArrayRef<int64_t> size,
                                           SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(self);
  if (size.size() < static_cast<size_t>(input.getRank()))
    return emitInferenceError(location, name,
                              "size " + formatShape(size) +
                                  " has fewer entries than " +
                                  formatType(input) + " has dims");
  size_t leading = size.size() - input.getRank();
  SmallVector<int64_t> shape;
  for (auto [i, target] : llvm::enumerate(size)) {
    if (i < leading) {
      if (target < 0 && !ShapedType::isDynamic(target))
        return emitInferenceError(location, name,
                                  "new leading dim " + Twine(i) +
                                      " must have a size >= 0, got " +
                                      Twine(target));
      shape.push_back(target);
      continue;
    }
    int64_t current = input.getDimSize(i - leading);
    if (target == -1) {
      shape.push_back(current);
    } else if (ShapedType::isDynamic(target)) {
      shape.push_back(target); // known at run time
    } else if (target < -1) {
      return emitInferenceError(location, name,
                                "size entries must be >= 0 or -1, got " +
                                    Twine(target));
    } else if (current == 1 || extentsAgree(current, target)) {
      shape.push_back(target);
    } else {
      return emitInferenceError(location, name,
                                "cannot expand " + formatType(input) +
                                    " to size " + formatShape(size) + ": dim " +
                                    Twine(i - leading) + " has size " +
                                    Twine(current));
    }
  }
  types.push_back(withShape(self, shape));
  return success();
}

LogicalResult ConstantPadNdOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getSelf());
  ArrayRef<int64_t> pad = adaptor.getPad();
  if (pad.size() % 2 || pad.size() / 2 > static_cast<size_t>(input.getRank()))
    return emitInferenceError(
        location, name,
        "pad " + formatShape(pad) +
            " must hold (before, after) pairs for at most " +
            Twine(input.getRank()) + " dims");
  SmallVector<int64_t> shape(input.getShape());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t &extent = shape[shape.size() - 1 - i];
    if (ShapedType::isDynamic(extent))
      continue;
    if (__builtin_add_overflow(extent, pad[2 * i], &extent) ||
        __builtin_add_overflow(extent, pad[2 * i + 1], &extent) || extent < 0)
      return emitInferenceError(location, name,
                                "pad " + formatShape(pad) + " crops dim " +
                                    Twine(shape.size() - 1 - i) + " below 0");
  }
  types.push_back(withShape(adaptor.getSelf(), shape));
  return success();
}

LogicalResult GatherOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType self = rankedType(getSelf());
  RankedTensorType index = rankedType(getIndex());
  int64_t rank = self.getRank();
  if (index.getRank() != rank)
    return emitInferenceError(location, name,
                              "index must have self's rank " + Twine(rank) +
                                  ", got " + formatType(index));
  std::optional<int64_t> dim =
      normalizeDim(location, name, "dim", static_cast<int64_t>(getDim()),
                   std::max<int64_t>(rank, 1));
  if (!dim)
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *dim && !ShapedType::isDynamic(index.getDimSize(d)) &&
        !ShapedType::isDynamic(self.getDimSize(d)) &&
        index.getDimSize(d) > self.getDimSize(d))
      return emitInferenceError(
          location, name,
          "index " + formatShape(index.getShape()) + " is larger than self " +
              formatShape(self.getShape()) + " outside dim " + Twine(*dim));
  return success();
}

LogicalResult GridSampler2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType grid = rankedType(adaptor.getGrid());
  auto same = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (input.getRank() != 4 || grid.getRank() != 4 ||
      !same(grid.getDimSize(3), 2) ||
      !same(grid.getDimSize(0), input.getDimSize(0)) ||
      grid.getElementType() != input.getElementType())
    return emitInferenceError(location, name,
                              "needs input [N, C, H, W] and grid [N, Ho, Wo, "
                              "2] of one float type, got " +
                                  formatType(input) + " and " +
                                  formatType(grid));
  if (adaptor.getInterpolationMode() > 2 || adaptor.getPaddingMode() > 2)
    return emitInferenceError(location, name,
                              "interpolation_mode and padding_mode are 0, 1 "
                              "or 2");
  types.push_back(input.clone({input.getDimSize(0), input.getDimSize(1),
                               grid.getDimSize(1), grid.getDimSize(2)}));
  return success();
}

LogicalResult ScatterOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType self = rankedType(getSelf());
  RankedTensorType index = rankedType(getIndex());
  RankedTensorType src = rankedType(getSrc());
  int64_t rank = self.getRank();
  if (index.getRank() != rank || src.getRank() != rank ||
      src.getElementType() != self.getElementType())
    return emitInferenceError(location, name,
                              "index and src must have self's rank " +
                                  Twine(rank) + " and src its type, got " +
                                  formatType(index) + " and " +
                                  formatType(src));
  std::optional<int64_t> dim =
      normalizeDim(location, name, "dim", static_cast<int64_t>(getDim()),
                   std::max<int64_t>(rank, 1));
  if (!dim)
    return failure();
  auto larger = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a > b;
  };
  for (int64_t d = 0; d < rank; ++d)
    if (larger(index.getDimSize(d), src.getDimSize(d)) ||
        (d != *dim && larger(index.getDimSize(d), self.getDimSize(d))))
      return emitInferenceError(
          location, name,
          "index " + formatShape(index.getShape()) + " is larger than src " +
              formatShape(src.getShape()) + " or than self " +
              formatShape(self.getShape()) + " outside dim " + Twine(*dim));
  StringRef reduce = getReduce();
  if (reduce != "none" && reduce != "add" && reduce != "multiply" &&
      reduce != "amax" && reduce != "amin")
    return emitInferenceError(location, name,
                              "reduce '" + reduce +
                                  "' is not one of none, add, multiply, "
                                  "amax, amin");
  return success();
}

LogicalResult etch::edge::setIndexLength(std::optional<Location> location,
                                         StringRef name, Value indexValue,
                                         int64_t dim,
                                         SmallVectorImpl<int64_t> &shape) {
  RankedTensorType index = rankedType(indexValue);
  if (index.getRank() > 1)
    return emitInferenceError(
        location, name, "index must be 0-D or 1-D, got " + formatType(index));
  if (!shape.empty())
    shape[dim] = index.getRank() ? index.getDimSize(0) : 1;
  return success();
}

/// The shape self[indices] has (edge.index's result, where edge.index_put
/// writes); failure after reporting.
static FailureOr<SmallVector<int64_t>>
indexedShape(std::optional<Location> location, StringRef name,
             RankedTensorType self, ValueRange indices, ArrayRef<int64_t> dims) {
  if (dims.empty() || dims.size() != indices.size())
    return emitInferenceError(location, name,
                              "needs one index tensor per indexed dim, got " +
                                  Twine(indices.size()) + " for " +
                                  formatShape(dims));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0 || dims[i] >= self.getRank() ||
        (i && dims[i] <= dims[i - 1]))
      return emitInferenceError(location, name,
                                "indexed_dims " + formatShape(dims) +
                                    " must ascend within rank " +
                                    Twine(self.getRank()));
  SmallVector<int64_t> broadcast;
  for (Value index : indices) {
    SmallVector<int64_t> next;
    if (!broadcastShapes(broadcast, rankedType(index).getShape(), next))
      return emitInferenceError(location, name,
                                "index shapes do not broadcast together");
    broadcast = next;
  }
  bool adjacent = dims.back() - dims.front() + 1 ==
                  static_cast<int64_t>(dims.size());
  SmallVector<int64_t> shape;
  if (!adjacent)
    shape.append(broadcast);
  for (int64_t d = 0; d < self.getRank(); ++d) {
    if (adjacent && d == dims.front())
      shape.append(broadcast);
    if (!llvm::is_contained(dims, d))
      shape.push_back(self.getDimSize(d));
  }
  return shape;
}

LogicalResult IndexOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<SmallVector<int64_t>> shape =
      indexedShape(location, getOperationName(), rankedType(adaptor.getSelf()),
                   adaptor.getIndices(), adaptor.getIndexedDims());
  if (failed(shape))
    return failure();
  types.push_back(withShape(adaptor.getSelf(), *shape));
  return success();
}

LogicalResult IndexPutOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType self = rankedType(getSelf());
  RankedTensorType values = rankedType(getValues());
  FailureOr<SmallVector<int64_t>> shape =
      indexedShape(location, name, self, getIndices(), getIndexedDims());
  if (failed(shape))
    return failure();
  SmallVector<int64_t> broadcast;
  if (values.getElementType() != self.getElementType() ||
      !broadcastShapes(*shape, values.getShape(), broadcast) ||
      broadcast.size() != shape->size() ||
      !llvm::all_of(llvm::zip(broadcast, *shape), [](auto pair) {
        auto [a, b] = pair;
        return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
      }))
    return emitInferenceError(location, name,
                              "values " + formatType(values) +
                                  " do not broadcast to the indexed shape " +
                                  formatShape(*shape) + " of " +
                                  formatType(self));
  return success();
}

LogicalResult etch::edge::inferTriangle(std::optional<Location> location,
                                        StringRef name, Value self,
                                        SmallVectorImpl<Type> &types) {
  if (rankedType(self).getRank() < 2)
    return emitInferenceError(location, name,
                              "self must have rank >= 2, got " +
                                  formatType(rankedType(self)));
  types.push_back(self.getType());
  return success();
}

LogicalResult SymSizeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getSelf());
  if (!normalizeDim(location, getOperationName(), "dim",
                    static_cast<int64_t>(adaptor.getDim()), input.getRank()))
    return failure();
  types.push_back(RankedTensorType::get({}, IntegerType::get(context, 64)));
  return success();
}

OpFoldResult SymSizeOp::fold(FoldAdaptor) {
  RankedTensorType input = getSelf().getType();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0)
    dim += input.getRank();
  if (input.isDynamicDim(dim))
    return {};
  return DenseElementsAttr::get(getType(),
                                APInt(64, input.getDimSize(dim), true));
}

LogicalResult etch::edge::inferFilledShape(std::optional<Location> location,
                                           StringRef name, Type dtype,
                                           ArrayRef<int64_t> size,
                                           SmallVectorImpl<Type> &types) {
  for (int64_t extent : size)
    if (extent < 0 && !ShapedType::isDynamic(extent))
      return emitInferenceError(location, name,
                                "size entries must be >= 0, got " +
                                    formatShape(size));
  types.push_back(RankedTensorType::get(size, dtype));
  return success();
}

LogicalResult ArangeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  double start = adaptor.getStart().convertToDouble();
  double step = adaptor.getStep().convertToDouble();
  if (step == 0)
    return emitInferenceError(location, getOperationName(),
                              "step must not be 0");
  std::optional<double> end;
  if (std::optional<APFloat> attr = adaptor.getEnd())
    end = attr->convertToDouble();
  if (Value dynamicEnd = adaptor.getDynamicEnd())
    end = constantSize(dynamicEnd)
              ? std::optional<double>(*constantSize(dynamicEnd))
              : std::nullopt;
  else if (!end)
    return emitInferenceError(location, getOperationName(),
                              "needs `end` or a dynamic_end operand");
  int64_t count = ShapedType::kDynamic;
  if (end)
    count = std::max<int64_t>(
        0, static_cast<int64_t>(std::ceil((*end - start) / step)));
  types.push_back(RankedTensorType::get({count}, adaptor.getDtype()));
  return success();
}
