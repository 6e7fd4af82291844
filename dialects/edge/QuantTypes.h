//===- QuantTypes.h - Quantized tensor types in Edge ------------*- C++ -*-===//
//
// Edge carries quantization in element types: MLIR's `!quant.uniform`, per
// tensor or per axis. These helpers are the one place that knows how such a
// type maps to its storage (what the bytes are) and checks its parameters.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_DIALECT_EDGE_QUANTTYPES_H
#define ETCH_DIALECT_EDGE_QUANTTYPES_H

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>

namespace etch::edge {

/// True for a `!quant.uniform` element type or a tensor of one.
bool isQuantized(mlir::Type type);

/// The integer type the bytes of quantized element type \p type have:
/// signless iN for signed storage, uiN for unsigned (so u8 data stays
/// distinguishable from i8 once the quantization is dropped).
mlir::IntegerType storageElementType(mlir::quant::QuantizedType type);

/// \p type with a quantized element type replaced by its storage type;
/// other types unchanged.
mlir::RankedTensorType storageTensorType(mlir::RankedTensorType type);

/// The element type the bytes of \p type have (storage for quantized types).
mlir::Type storageOrElementType(mlir::Type elementType);

/// Bytes a statically shaped tensor of \p type occupies at run time (i1 and
/// other sub-byte elements take one byte; quantized ones their storage);
/// std::nullopt for anything else. The memory planner's size rule.
std::optional<uint64_t> tensorBytes(mlir::Type type);

/// Checks what the quant dialect leaves to its users (it checks scales and
/// ranges itself): a per-axis type's quantized dimension lies inside \p type
/// and its (static) extent equals the number of scales. Errors go to \p op.
mlir::LogicalResult verifyQuantizedTensor(mlir::Operation *op,
                                          mlir::RankedTensorType type);

/// A uniform quantized type of \p storage (i8/u8/i32 as an integer type
/// whose signedness says which) over f32 with range [qmin, qmax]: per
/// tensor when \p axis is empty, else per axis. Returns null after emitting
/// an error through \p emitError (which names the node) when the parameters
/// do not form a valid type.
mlir::quant::QuantizedType
getUniformType(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
               mlir::IntegerType storage,
               llvm::ArrayRef<double> scales, llvm::ArrayRef<int64_t> zeroPoints,
               std::optional<int32_t> axis, int64_t qmin, int64_t qmax);

class ConstantOp;

/// A new quantized constant holding \p constant's values permuted by \p perm
/// (result dim i is source dim perm[i]), a per-axis type's axis moved with
/// its dim; null when the data cannot be read or is too large to copy
/// while the original stays in use.
mlir::Value permuteQuantizedConstant(mlir::OpBuilder &builder,
                                     ConstantOp constant,
                                     llvm::ArrayRef<int64_t> perm);

} // namespace etch::edge

#endif // ETCH_DIALECT_EDGE_QUANTTYPES_H
