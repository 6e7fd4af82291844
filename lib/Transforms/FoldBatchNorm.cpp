//===- FoldBatchNorm.cpp - batch_norm(convolution) -> convolution ---------===//
#include "ConvolutionEpilogue.h"
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace etch {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch;
using namespace etch::edge;

namespace {
struct FoldBatchNormIntoConvolution : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    FailureOr<FoldableConvolution> folded =
        matchFoldableConvolution(norm.getInput(), norm, rewriter);
    if (failed(folded))
      return failure();
    int64_t channels = folded->channels;
    std::optional<SmallVector<float>> mean =
        getConstantFloats(norm.getRunningMean());
    std::optional<SmallVector<float>> var =
        getConstantFloats(norm.getRunningVar());
    // Absent gamma/beta take ATen's defaults (1, 0).
    auto optionalParameter =
        [&](Value value, float fill) -> std::optional<SmallVector<float>> {
      if (!value)
        return SmallVector<float>(channels, fill);
      return getConstantFloats(value);
    };
    std::optional<SmallVector<float>> gamma =
        optionalParameter(norm.getWeight(), 1.0f);
    std::optional<SmallVector<float>> beta =
        optionalParameter(norm.getBias(), 0.0f);
    if (!mean || !var || !gamma || !beta)
      return rewriter.notifyMatchFailure(norm, "parameters are not constant");

    double eps = norm.getEps().convertToDouble();
    int64_t perChannel = folded->weight.size() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      double scale = (*gamma)[c] / std::sqrt(double((*var)[c]) + eps);
      for (int64_t i = 0; i < perChannel; ++i)
        folded->weight[c * perChannel + i] =
            static_cast<float>(folded->weight[c * perChannel + i] * scale);
      folded->bias[c] = static_cast<float>(
          (folded->bias[c] - (*mean)[c]) * scale + (*beta)[c]);
    }
    rewriter.replaceOp(norm,
                       rebuildConvolution(*folded, "folded_conv", rewriter));
    return success();
  }
};

struct FoldBatchNormPass : etch::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    etch::populateFoldBatchNormPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void etch::populateFoldBatchNormPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldBatchNormIntoConvolution>(patterns.getContext());
}
