//===- Passes.h - etch Edge-dialect passes ----------------------*- C++ -*-===//
#ifndef ETCH_TRANSFORMS_PASSES_H
#define ETCH_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace etch {

#define GEN_PASS_DECL
#include "etch/Transforms/Passes.h.inc"

/// batch_norm(convolution(...)) with constant parameters -> convolution.
void populateFoldBatchNormPatterns(mlir::RewritePatternSet &patterns);

/// hardsigmoid(convolution(...)) with constant parameters -> hardtanh(0, 1)
/// of a convolution with W / 6 and b / 6 + 1/2.
void populateFoldHardsigmoidPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "etch/Transforms/Passes.h.inc"

} // namespace etch

#endif // ETCH_TRANSFORMS_PASSES_H
