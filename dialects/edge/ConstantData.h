//===- ConstantData.h - Read and build Edge constant payloads ---*- C++ -*-===//
//
// Weights live either inline (DenseElementsAttr, small) or as dense_resource
// blobs (large; kept out of the IR text). Passes and the serializer read both
// through these helpers and create new weights with makeFloatConstant, which
// picks the form by size.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_DIALECT_EDGE_CONSTANTDATA_H
#define ETCH_DIALECT_EDGE_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace etch::edge {

/// Constants with more elements than this become dense_resource blobs.
inline constexpr int64_t kInlineConstantLimit = 64;

/// The raw little-endian bytes of a constant with a static shape, or
/// std::nullopt when the payload is not available as one contiguous buffer
/// (splats are expanded into \p storage).
std::optional<llvm::ArrayRef<char>>
getConstantBytes(mlir::ElementsAttr value,
                 llvm::SmallVectorImpl<char> &storage);

/// The values of an f32 constant (dense or dense_resource), or std::nullopt.
std::optional<llvm::SmallVector<float>>
getFloatValues(mlir::ElementsAttr value);

/// The values of \p value when an f32 constant produces it, else std::nullopt.
std::optional<llvm::SmallVector<float>> getConstantFloats(mlir::Value value);

/// The values of \p value when a float or integer constant produces it, as
/// doubles (quantization parameters: scales, zero points), else
/// std::nullopt.
std::optional<llvm::SmallVector<double>> getConstantNumbers(mlir::Value value);

/// An f32 constant of \p type holding \p values: inline when small, else a
/// dense_resource blob named after \p nameHint (uniqued by the context).
mlir::ElementsAttr makeFloatConstant(mlir::RankedTensorType type,
                                     llvm::ArrayRef<float> values,
                                     llvm::StringRef nameHint);

/// Same for raw bytes of any element type (the importers' weights).
mlir::ElementsAttr makeConstantFromBytes(mlir::RankedTensorType type,
                                         llvm::ArrayRef<char> bytes,
                                         llvm::StringRef nameHint);

/// Same, taking ownership of \p bytes so large weights are not copied again
/// (the blob frees them when the context drops it).
mlir::ElementsAttr makeConstantFromOwnedBytes(mlir::RankedTensorType type,
                                              std::string bytes,
                                              llvm::StringRef nameHint);

} // namespace etch::edge

#endif // ETCH_DIALECT_EDGE_CONSTANTDATA_H
