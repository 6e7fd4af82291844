//===- OnednnCompiler.h - Delegate body -> oneDNN blob ----------*- C++ -*-===//
#ifndef ETCH_TARGETS_ONEDNN_COMPILER_ONEDNNCOMPILER_H
#define ETCH_TARGETS_ONEDNN_COMPILER_ONEDNNCOMPILER_H

#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"

namespace etch::onednn {

/// Lowers \p delegate's body (ops OnednnRules accepted) to a blob of
/// primitives: eltwise ops and binary ops with an operand computed earlier
/// fuse into their producer as post-ops.
mlir::FailureOr<CompiledDelegate> compileDelegate(edge::DelegateOp delegate);

/// A readable listing of a blob (tensors, nodes, post-ops).
std::string describeBlob(llvm::ArrayRef<uint8_t> blob);

} // namespace etch::onednn

#endif
