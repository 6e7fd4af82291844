//===- Einsum.h - Einsum as permutes, sums and batched matmuls --*- C++ -*-===//
//
// One definition for both importers (ONNX Einsum, ATen einsum in torch's
// training IR).
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_EINSUM_H
#define ETCH_LIB_IMPORT_EINSUM_H

#include "EdgeOpBuilder.h"

namespace etch {

/// The Edge ops computing einsum \p equation ("bij,bjk->bik"; spaces,
/// ellipses and the implicit output allowed) over \p operands of static
/// shape, at \p loc. Each operand first sums the letters nothing else needs;
/// operands then fold left to right, each pair one `bmm` over [batch, left,
/// contracted] x [batch, contracted, right] with permutes and views around
/// it; the result is permuted to the output's letters. Diagonals (a letter
/// twice in one operand) and broadcasting inside the equation are reported
/// as errors.
mlir::FailureOr<mlir::Value> buildEinsum(EdgeOpBuilder &edge,
                                         mlir::Location loc,
                                         llvm::StringRef equation,
                                         llvm::ArrayRef<mlir::Value> operands);

} // namespace etch

#endif // ETCH_LIB_IMPORT_EINSUM_H
