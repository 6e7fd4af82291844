//===- ConvolutionEpilogue.cpp - Fold per-channel ops into a conv ---------===//
#include "ConvolutionEpilogue.h"

#include "edge/ConstantData.h"

using namespace mlir;
using namespace etch::edge;

FailureOr<etch::FoldableConvolution>
etch::matchFoldableConvolution(Value value, Operation *user,
                               PatternRewriter &rewriter) {
  auto conv = value.getDefiningOp<ConvolutionOp>();
  if (!conv || conv.getTransposed() || !conv->hasOneUse())
    return rewriter.notifyMatchFailure(user, "input is not a direct conv");
  RankedTensorType weightType = conv.getWeight().getType();
  if (!weightType.hasStaticShape() || !weightType.getElementType().isF32())
    return rewriter.notifyMatchFailure(user, "weight is not static f32");
  FoldableConvolution folded;
  folded.conv = conv;
  folded.absorbed = user->getLoc();
  folded.channels = weightType.getDimSize(0);
  std::optional<SmallVector<float>> weight =
      getConstantFloats(conv.getWeight());
  std::optional<SmallVector<float>> bias =
      conv.getBias() ? getConstantFloats(conv.getBias())
                     : SmallVector<float>(folded.channels, 0.0f);
  if (!weight || !bias)
    return rewriter.notifyMatchFailure(user, "conv parameters not constant");
  folded.weight = std::move(*weight);
  folded.bias = std::move(*bias);
  return folded;
}

Value etch::rebuildConvolution(const FoldableConvolution &folded,
                               StringRef nameHint, PatternRewriter &rewriter) {
  ConvolutionOp conv = folded.conv;
  // Both producers' nodes stay on the result (debug handles name them).
  Location loc = rewriter.getFusedLoc({conv.getLoc(), *folded.absorbed});
  auto biasType =
      RankedTensorType::get({folded.channels}, rewriter.getF32Type());
  Value weight = rewriter.create<ConstantOp>(
      loc, makeFloatConstant(conv.getWeight().getType(), folded.weight,
                             (nameHint + "_weight").str()));
  Value bias = rewriter.create<ConstantOp>(
      loc,
      makeFloatConstant(biasType, folded.bias, (nameHint + "_bias").str()));
  auto rebuilt = rewriter.create<ConvolutionOp>(
      loc, conv.getType(), conv.getInput(), weight, bias, conv.getStrideAttr(),
      conv.getPaddingAttr(), conv.getDilationAttr(), conv.getTransposedAttr(),
      conv.getOutputPaddingAttr(), conv.getGroupsAttr());
  rewriter.replaceOp(conv, rebuilt.getResult());
  return rebuilt.getResult();
}
