//===- XnnpackCompiler.h - Delegate body -> XNNPACK blob --------*- C++ -*-===//
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKCOMPILER_H
#define ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKCOMPILER_H

#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"

namespace etch::xnnpack {

/// Lowers \p delegate's body (ops XnnpackRules accepted) to a blob: tensors
/// in XNNPACK's layouts, weights transposed at compile time, clamps fused
/// into their producers' output range.
mlir::FailureOr<CompiledDelegate> compileDelegate(edge::DelegateOp delegate);

/// A readable listing of a blob (tensors, nodes, params).
std::string describeBlob(llvm::ArrayRef<uint8_t> blob);

} // namespace etch::xnnpack

#endif
