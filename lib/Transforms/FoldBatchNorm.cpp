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
/// batch_norm(x) = x * scale + shift per channel, scale = gamma / sqrt(var +
/// eps), shift = beta - mean * scale, when every parameter is constant.
struct ScaleShift {
  SmallVector<double> scale, shift;
};

std::optional<ScaleShift> constantScaleShift(BatchNormOp norm,
                                             int64_t channels) {
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
    return std::nullopt;
  for (const SmallVector<float> *values : {&*mean, &*var, &*gamma, &*beta})
    if (static_cast<int64_t>(values->size()) != channels)
      return std::nullopt;
  double eps = norm.getEps().convertToDouble();
  ScaleShift result;
  for (int64_t c = 0; c < channels; ++c) {
    double scale = (*gamma)[c] / std::sqrt(double((*var)[c]) + eps);
    result.scale.push_back(scale);
    result.shift.push_back((*beta)[c] - (*mean)[c] * scale);
  }
  return result;
}

struct FoldBatchNormIntoConvolution : OpRewritePattern<BatchNormOp> {
  FoldBatchNormIntoConvolution(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    FailureOr<FoldableConvolution> folded =
        matchFoldableConvolution(norm.getInput(), norm, rewriter);
    if (failed(folded))
      return failure();
    int64_t channels = folded->channels;
    std::optional<ScaleShift> affine = constantScaleShift(norm, channels);
    if (!affine)
      return rewriter.notifyMatchFailure(norm, "parameters are not constant");
    int64_t perChannel = folded->weight.size() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      double scale = affine->scale[c];
      for (int64_t i = 0; i < perChannel; ++i)
        folded->weight[c * perChannel + i] =
            static_cast<float>(folded->weight[c * perChannel + i] * scale);
      folded->bias[c] =
          static_cast<float>(folded->bias[c] * scale + affine->shift[c]);
    }
    rewriter.replaceOp(norm,
                       rebuildConvolution(*folded, "folded_conv", rewriter));
    return success();
  }
};

/// A batch_norm with no convolution to fold into (DenseNet's pre-activation
/// norms after a concatenation) becomes a per-channel multiply and add:
/// ops every target runs, so it no longer splits a delegate.
struct BatchNormToScaleShift : OpRewritePattern<BatchNormOp> {
  BatchNormToScaleShift(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/1) {}

  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(norm.getInput().getType());
    if (!type.getElementType().isF32() || type.getRank() < 2 ||
        type.isDynamicDim(1))
      return rewriter.notifyMatchFailure(norm, "needs f32 with static channels");
    int64_t channels = type.getDimSize(1);
    std::optional<ScaleShift> affine = constantScaleShift(norm, channels);
    if (!affine)
      return rewriter.notifyMatchFailure(norm, "parameters are not constant");
    // [C, 1, ..., 1] broadcasts over dim 1 of [N, C, ...].
    SmallVector<int64_t> shape(type.getRank() - 1, 1);
    shape.front() = channels;
    auto constantType = RankedTensorType::get(shape, rewriter.getF32Type());
    auto constant = [&](ArrayRef<double> values, StringRef name) -> Value {
      SmallVector<float> narrowed(values.begin(), values.end());
      return rewriter.create<ConstantOp>(
          norm.getLoc(), makeFloatConstant(constantType, narrowed, name));
    };
    Location loc = norm.getLoc();
    Value scaled = rewriter.create<MulOp>(
        loc, type, norm.getInput(), constant(affine->scale, "bn_scale"));
    rewriter.replaceOpWithNewOp<AddOp>(
        norm, type, scaled, constant(affine->shift, "bn_shift"),
        rewriter.getF64FloatAttr(1.0));
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
  patterns.add<FoldBatchNormIntoConvolution, BatchNormToScaleShift>(
      patterns.getContext());
}
