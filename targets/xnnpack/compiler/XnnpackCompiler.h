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
/// Which of the blob's f32 convolutions and fully connected layers the
/// runtime moves to etch's GEMM kernels on CPUs whose widest ISA is AVX2,
/// and how many SiLUs it runs as one pass of etch's silu on CPUs with AVX2
/// or AVX-512 (runtime/GemmSteps.h decides, at the blob's stored extents);
/// empty when neither.
std::string describeLoadChoices(llvm::ArrayRef<uint8_t> blob);

} // namespace etch::xnnpack

#endif
