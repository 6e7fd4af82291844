//===- EdgeTypeUtils.h - Shape helpers shared by Edge ops -------*- C++ -*-===//
//
// Small helpers the op verifiers and type inference share: dimension
// normalization the way ATen does it, and the shape-compatibility rule used to
// compare declared result types with inferred ones.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_DIALECT_EDGE_EDGETYPEUTILS_H
#define ETCH_DIALECT_EDGE_EDGETYPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace etch::edge {

/// True when both ranges have equal length and each pair agrees on rank,
/// element type and every dimension both sides know (dynamic matches any).
bool areCompatibleTensorTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

/// Maps ATen-style `dim` (negative counts from the end) into [0, rank), or
/// emits "'<opName>' op <what> <dim> is out of range for rank <rank>" at
/// \p location and returns std::nullopt.
std::optional<int64_t> normalizeDim(std::optional<mlir::Location> location,
                                    llvm::StringRef opName,
                                    llvm::StringRef what, int64_t dim,
                                    int64_t rank);

/// Emits an error at \p location prefixed with "'<opName>' op ", the way
/// op verifiers do, so inference errors read the same as verifier errors.
mlir::LogicalResult emitInferenceError(std::optional<mlir::Location> location,
                                       llvm::StringRef opName,
                                       const llvm::Twine &message);

/// The ranked tensor type of \p value (operands of Edge ops are constrained to
/// ranked tensors by ODS before inference runs).
mlir::RankedTensorType rankedType(mlir::Value value);

/// Renders a shape as "[2, ?, 3]" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// True when two extents may be equal: both known and equal, or either
/// dynamic.
inline bool extentsAgree(int64_t lhs, int64_t rhs) {
  return lhs == rhs || mlir::ShapedType::isDynamic(lhs) ||
         mlir::ShapedType::isDynamic(rhs);
}

/// Checks that \p op's first result has shape \p expected (dynamic extents
/// agree with any); emits "'<op>' op result shape [..] differs from the
/// expected [..]" otherwise.
mlir::LogicalResult verifyResultShape(mlir::Operation *op,
                                      llvm::ArrayRef<int64_t> expected);

/// The NumPy broadcast of \p a and \p b into \p out by
/// runtime/core/BroadcastShape.h's rule (dynamic extents trusted to fit);
/// false when two known extents conflict.
bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                     llvm::SmallVectorImpl<int64_t> &out);

/// True when a tensor of shape \p from broadcasts to \p to without changing
/// \p to (NumPy rules; dynamic extents are assumed to fit).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Checks that every value in \p values has the element type of the first;
/// emits "'<opName>' op <name> has element type X, expected Y" otherwise.
mlir::LogicalResult verifySameElementType(
    std::optional<mlir::Location> location, llvm::StringRef opName,
    llvm::ArrayRef<std::pair<llvm::StringRef, mlir::Value>> values);

/// Checks that \p value has rank \p rank; emits
/// "'<opName>' op <name> must have rank R, got rank r (tensor<...>)".
mlir::LogicalResult verifyRank(std::optional<mlir::Location> location,
                               llvm::StringRef opName, llvm::StringRef name,
                               mlir::Value value, int64_t rank);

/// Checks a spatial parameter such as stride or padding: one entry per
/// spatial dim ((H, W) or (D, H, W)), each >= \p minimum.
mlir::LogicalResult verifySpatialEntries(std::optional<mlir::Location> location,
                                         llvm::StringRef opName,
                                         llvm::StringRef attr,
                                         llvm::ArrayRef<int64_t> values,
                                         int64_t minimum, size_t spatialDims);
inline mlir::LogicalResult
verifySpatialPair(std::optional<mlir::Location> location,
                  llvm::StringRef opName, llvm::StringRef attr,
                  llvm::ArrayRef<int64_t> values, int64_t minimum) {
  return verifySpatialEntries(location, opName, attr, values, minimum, 2);
}

/// Renders a type as the IR prints it, for diagnostics.
std::string formatType(mlir::Type type);

/// Output extent of a sliding window (convolution/pooling) along one spatial
/// dimension, ATen's formula; dynamic in, dynamic out.
int64_t slidingWindowExtent(int64_t input, int64_t kernel, int64_t stride,
                            int64_t padding, int64_t dilation, bool ceilMode);

/// The marker for a size entry given by a dynamic_size operand (the same
/// sentinel MLIR uses for dynamic dims).
inline constexpr int64_t kDynamicSize = mlir::ShapedType::kDynamic;

/// The value of a size operand when it is a constant (0-d i64
/// edge.constant), else std::nullopt.
std::optional<int64_t> constantSize(mlir::Value size);

/// \p size with kDynamicSize entries replaced, in order, by the constant
/// values of \p dynamicSizes (kDynamic where not constant); std::nullopt
/// (after an error) when the counts differ.
std::optional<llvm::SmallVector<int64_t>>
resolveSizes(std::optional<mlir::Location> location, llvm::StringRef opName,
             llvm::ArrayRef<int64_t> size, mlir::ValueRange dynamicSizes);

} // namespace etch::edge

#endif // ETCH_DIALECT_EDGE_EDGETYPEUTILS_H
