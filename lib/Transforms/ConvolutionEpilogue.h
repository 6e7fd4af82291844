//===- ConvolutionEpilogue.h - Fold per-channel ops into a conv -*- C++ -*-===//
//
// Passes that fold a per-output-channel affine op (batch_norm, hardsigmoid's
// scale and shift) into the convolution feeding it share the matching (a
// direct, non-transposed, single-use conv with f32 constant weights) and the
// rebuilding (new weight and bias constants, the same window attributes).
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_TRANSFORMS_CONVOLUTIONEPILOGUE_H
#define ETCH_LIB_TRANSFORMS_CONVOLUTIONEPILOGUE_H

#include "edge/EdgeDialect.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace etch {

/// A convolution whose parameters a folding pass may rewrite.
struct FoldableConvolution {
  edge::ConvolutionOp conv;
  int64_t channels = 0;                  // output channels
  llvm::SmallVector<float> weight, bias; // bias is 0 where the conv has none
  std::optional<mlir::Location> absorbed; // of the op folded into it
};

/// The convolution producing \p value when it can absorb a per-channel affine
/// op \p user; otherwise a match failure reported on \p user.
mlir::FailureOr<FoldableConvolution>
matchFoldableConvolution(mlir::Value value, mlir::Operation *user,
                         mlir::PatternRewriter &rewriter);

/// A new convolution like \p folded.conv with \p folded's weight and bias as
/// new constants named after \p nameHint; the old convolution is erased.
mlir::Value rebuildConvolution(const FoldableConvolution &folded,
                               llvm::StringRef nameHint,
                               mlir::PatternRewriter &rewriter);

} // namespace etch

#endif // ETCH_LIB_TRANSFORMS_CONVOLUTIONEPILOGUE_H
