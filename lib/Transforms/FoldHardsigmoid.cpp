//===- FoldHardsigmoid.cpp - hardsigmoid(convolution) -> clamp(conv) ------===//
//
// hardsigmoid(y) = clamp(y / 6 + 1/2, 0, 1) is affine before its clamp, so
// when y is a convolution with constant weights the affine part moves into
// W and b and only a [0, 1] hardtanh remains, which targets fuse into the
// convolution's output range (mobilenet_v3's squeeze-excitation gates).
//
//===----------------------------------------------------------------------===//
#include "ConvolutionEpilogue.h"
#include "edge/EdgeDialect.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace etch {
#define GEN_PASS_DEF_FOLDHARDSIGMOID
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;

namespace {
struct FoldHardsigmoidIntoConvolution : OpRewritePattern<HardsigmoidOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(HardsigmoidOp gate,
                                PatternRewriter &rewriter) const override {
    FailureOr<FoldableConvolution> folded =
        matchFoldableConvolution(gate.getSelf(), gate, rewriter);
    if (failed(folded))
      return failure();
    constexpr float kSixth = 1.0f / 6.0f;
    for (float &w : folded->weight)
      w *= kSixth;
    for (float &b : folded->bias)
      b = b * kSixth + 0.5f;
    Value scaled = rebuildConvolution(*folded, "gate_conv", rewriter);
    rewriter.replaceOpWithNewOp<HardtanhOp>(gate, gate.getType(), scaled,
                                            rewriter.getF64FloatAttr(0.0),
                                            rewriter.getF64FloatAttr(1.0));
    return success();
  }
};

struct FoldHardsigmoidPass
    : etch::impl::FoldHardsigmoidBase<FoldHardsigmoidPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    etch::populateFoldHardsigmoidPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void etch::populateFoldHardsigmoidPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldHardsigmoidIntoConvolution>(patterns.getContext());
}
