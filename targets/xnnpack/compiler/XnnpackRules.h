//===- XnnpackRules.h - What Debian's XNNPACK (2022) runs ------*- C++ -*-===//
#ifndef ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKRULES_H
#define ETCH_TARGETS_XNNPACK_COMPILER_XNNPACKRULES_H

#include "mlir/IR/Operation.h"

#include <string>

namespace etch::xnnpack {

/// Empty when the XNNPACK subgraph API can run \p op inside a delegate
/// (where rank-4 tensors are NHWC); otherwise the reason.
std::string whyUnsupported(mlir::Operation *op);

/// True for relu/hardtanh/clamp: a clamp XNNPACK can fuse into the output
/// range of the op producing its input. Sets \p low / \p high.
bool isClampLike(mlir::Operation *op, float &low, float &high);

} // namespace etch::xnnpack

#endif
