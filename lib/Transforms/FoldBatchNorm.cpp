//===- FoldBatchNorm.cpp - batch_norm(convolution) -> convolution ---------===//
#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"
#include "etch/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace etch {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "etch/Transforms/Passes.h.inc"
} // namespace etch

using namespace mlir;
using namespace etch::edge;

/// The f32 values of \p value when it is produced by a constant, else nullopt.
static std::optional<SmallVector<float>> constantFloats(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return getFloatValues(attr);
}

namespace {
struct FoldBatchNormIntoConvolution : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    auto conv = norm.getInput().getDefiningOp<ConvolutionOp>();
    if (!conv || conv.getTransposed() || !conv->hasOneUse())
      return rewriter.notifyMatchFailure(norm, "input is not a direct conv");
    RankedTensorType weightType = conv.getWeight().getType();
    if (!weightType.hasStaticShape() || !weightType.getElementType().isF32())
      return rewriter.notifyMatchFailure(norm, "weight is not static f32");
    int64_t channels = weightType.getDimSize(0);

    std::optional<SmallVector<float>> weight = constantFloats(conv.getWeight());
    std::optional<SmallVector<float>> mean =
        constantFloats(norm.getRunningMean());
    std::optional<SmallVector<float>> var =
        constantFloats(norm.getRunningVar());
    if (!weight || !mean || !var)
      return rewriter.notifyMatchFailure(norm, "parameters are not constant");
    // Absent bias/gamma/beta take ATen's defaults (0, 1, 0).
    auto optionalParameter =
        [&](Value value, float fill) -> std::optional<SmallVector<float>> {
      if (!value)
        return SmallVector<float>(channels, fill);
      return constantFloats(value);
    };
    std::optional<SmallVector<float>> bias =
        optionalParameter(conv.getBias(), 0.0f);
    std::optional<SmallVector<float>> gamma =
        optionalParameter(norm.getWeight(), 1.0f);
    std::optional<SmallVector<float>> beta =
        optionalParameter(norm.getBias(), 0.0f);
    if (!bias || !gamma || !beta)
      return rewriter.notifyMatchFailure(norm, "parameters are not constant");

    double eps = norm.getEps().convertToDouble();
    int64_t perChannel = weightType.getNumElements() / channels;
    SmallVector<float> newWeight(*weight), newBias(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double scale = (*gamma)[c] / std::sqrt(double((*var)[c]) + eps);
      for (int64_t i = 0; i < perChannel; ++i)
        newWeight[c * perChannel + i] =
            static_cast<float>((*weight)[c * perChannel + i] * scale);
      newBias[c] =
          static_cast<float>(((*bias)[c] - (*mean)[c]) * scale + (*beta)[c]);
    }

    Location loc = norm.getLoc();
    auto biasType = RankedTensorType::get({channels}, rewriter.getF32Type());
    Value weightConst = rewriter.create<ConstantOp>(
        loc, makeFloatConstant(weightType, newWeight, "folded_conv_weight"));
    Value biasConst = rewriter.create<ConstantOp>(
        loc, makeFloatConstant(biasType, newBias, "folded_conv_bias"));
    rewriter.replaceOpWithNewOp<ConvolutionOp>(
        norm, norm.getType(), conv.getInput(), weightConst, biasConst,
        conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(),
        conv.getTransposedAttr(), conv.getOutputPaddingAttr(),
        conv.getGroupsAttr());
    rewriter.eraseOp(conv);
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
