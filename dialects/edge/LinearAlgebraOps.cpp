//===- LinearAlgebraOps.cpp - convolution, addmm, linear, mm, bmm ---------===//
#include "edge/EdgeDialect.h"
#include "edge/InferenceRules.h"
#include "runtime/core/WindowExtent.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace etch::edge;

/// Emits "'<op>' op <what> (<lhsName> = L) does not match <rhsName> (= R)".
static LogicalResult emitExtentMismatch(std::optional<Location> location,
                                        StringRef opName, StringRef what,
                                        StringRef lhsName, int64_t lhs,
                                        StringRef rhsName, int64_t rhs) {
  return emitInferenceError(location, opName,
                            Twine(what) + ": " + lhsName + " = " + Twine(lhs) +
                                " does not match " + rhsName + " = " +
                                Twine(rhs));
}

//===----------------------------------------------------------------------===//
// ConvolutionOp
//===----------------------------------------------------------------------===//

LogicalResult etch::edge::inferConvolution(std::optional<Location> location,
                                           StringRef name,
                                           const ConvolutionArgs &args,
                                           size_t spatial,
                                           SmallVectorImpl<Type> &types) {
  int64_t rank = static_cast<int64_t>(spatial) + 2;
  if (failed(verifyRank(location, name, "input", args.input, rank)) ||
      failed(verifyRank(location, name, "weight", args.weight, rank)) ||
      failed(verifySameElementType(location, name,
                                   {{"input", args.input},
                                    {"weight", args.weight},
                                    {"bias", args.bias}})))
    return failure();

  if (failed(verifySpatialEntries(location, name, "stride", args.stride, 1,
                                  spatial)) ||
      failed(verifySpatialEntries(location, name, "padding", args.padding, 0,
                                  spatial)) ||
      failed(verifySpatialEntries(location, name, "dilation", args.dilation, 1,
                                  spatial)) ||
      failed(verifySpatialEntries(location, name, "output_padding",
                                  args.outputPadding, 0, spatial)))
    return failure();
  int64_t groups = args.groups;
  if (groups < 1)
    return emitInferenceError(location, name,
                              "groups must be >= 1, got " + Twine(groups));

  ArrayRef<int64_t> input = rankedType(args.input).getShape();
  ArrayRef<int64_t> weight = rankedType(args.weight).getShape();
  bool transposed = args.transposed;
  // Direct: weight is [O, C/groups, k...]. Transposed: [C, O/groups, k...].
  int64_t weightInChannels = weight[0];
  if (!transposed && !ShapedType::isDynamic(weight[1]) &&
      __builtin_mul_overflow(weight[1], groups, &weightInChannels))
    return emitInferenceError(location, name, "groups overflow int64");
  if (transposed || !ShapedType::isDynamic(weight[1]))
    if (!extentsAgree(input[1], weightInChannels))
      return emitExtentMismatch(
          location, name, "input channels", "input dim 1", input[1],
          transposed ? "weight dim 0" : "weight dim 1 * groups",
          weightInChannels);
  int64_t outChannels = ShapedType::kDynamic;
  if (transposed) {
    if (!ShapedType::isDynamic(weight[1]) &&
        __builtin_mul_overflow(weight[1], groups, &outChannels))
      return emitInferenceError(location, name, "groups overflow int64");
  } else {
    outChannels = weight[0];
    if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
      return emitInferenceError(location, name,
                                "output channels " + Twine(outChannels) +
                                    " are not divisible by groups " +
                                    Twine(groups));
  }
  if (Value bias = args.bias) {
    if (failed(verifyRank(location, name, "bias", bias, 1)))
      return failure();
    int64_t biasSize = rankedType(bias).getDimSize(0);
    if (!extentsAgree(biasSize, outChannels))
      return emitExtentMismatch(location, name, "bias size", "bias dim 0",
                                biasSize, "output channels", outChannels);
  }

  SmallVector<int64_t> shape = {input[0], outChannels};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t extent = input[2 + i], kernel = weight[2 + i];
    if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(kernel)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t out = transposed
                      ? etch::runtime::transposedWindowExtent(
                            extent, kernel, args.stride[i], args.padding[i],
                            args.dilation[i], args.outputPadding[i])
                      : slidingWindowExtent(extent, kernel, args.stride[i],
                                            args.padding[i], args.dilation[i],
                                            /*ceilMode=*/false);
    if (out <= 0)
      return emitInferenceError(
          location, name,
          "kernel " + Twine(kernel) + " with dilation " +
              Twine(args.dilation[i]) + " does not fit input extent " +
              Twine(extent) + " (padding " + Twine(args.padding[i]) +
              ") in spatial dim " + Twine(2 + i));
    shape.push_back(out);
  }
  types.push_back(
      RankedTensorType::get(shape, rankedType(args.input).getElementType()));
  return success();
}

LogicalResult LinalgDetOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(adaptor.getA());
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() < 2 ||
      !extentsAgree(shape[shape.size() - 1], shape[shape.size() - 2]))
    return emitInferenceError(location, getOperationName(),
                              "A must be [..., n, n], got " + formatType(type));
  types.push_back(type.clone(shape.drop_back(2)));
  types.push_back(type);
  types.push_back(
      RankedTensorType::get(shape.drop_back(1), IntegerType::get(context, 32)));
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// [M, K] x [K, N] -> [M, N], with batch dims (if any) matched in front.
static LogicalResult inferMatmulShape(std::optional<Location> location,
                                      StringRef opName, StringRef lhsName,
                                      Value lhs, StringRef rhsName, Value rhs,
                                      int64_t rank,
                                      SmallVectorImpl<int64_t> &shape) {
  if (failed(verifyRank(location, opName, lhsName, lhs, rank)) ||
      failed(verifyRank(location, opName, rhsName, rhs, rank)) ||
      failed(verifySameElementType(location, opName,
                                   {{lhsName, lhs}, {rhsName, rhs}})))
    return failure();
  ArrayRef<int64_t> a = rankedType(lhs).getShape(),
                    b = rankedType(rhs).getShape();
  for (int64_t i = 0; i < rank - 2; ++i) {
    if (!extentsAgree(a[i], b[i]))
      return emitExtentMismatch(
          location, opName, "batch size",
          (Twine(lhsName) + " dim " + Twine(i)).str(), a[i],
          (Twine(rhsName) + " dim " + Twine(i)).str(), b[i]);
    shape.push_back(ShapedType::isDynamic(a[i]) ? b[i] : a[i]);
  }
  int64_t k1 = a[rank - 1], k2 = b[rank - 2];
  if (!extentsAgree(k1, k2))
    return emitExtentMismatch(
        location, opName, "contraction size",
        (Twine(lhsName) + " dim " + Twine(rank - 1)).str(), k1,
        (Twine(rhsName) + " dim " + Twine(rank - 2)).str(), k2);
  shape.push_back(a[rank - 2]);
  shape.push_back(b[rank - 1]);
  return success();
}

LogicalResult etch::edge::inferMatmulResult(std::optional<Location> location,
                                            StringRef opName, StringRef lhsName,
                                            Value lhs, StringRef rhsName,
                                            Value rhs, int64_t rank,
                                            SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  if (failed(inferMatmulShape(location, opName, lhsName, lhs, rhsName, rhs,
                              rank, shape)))
    return failure();
  types.push_back(
      RankedTensorType::get(shape, rankedType(lhs).getElementType()));
  return success();
}
LogicalResult AddmmOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  if (failed(verifySameElementType(location, name,
                                   {{"mat1", getMat1()}, {"self", getSelf()}})))
    return failure();
  ArrayRef<int64_t> self = rankedType(getSelf()).getShape();
  ArrayRef<int64_t> shape = getResult().getType().getShape();
  if (!broadcastsTo(self, shape))
    return emitInferenceError(location, name,
                              "self of shape " + formatShape(self) +
                                  " does not broadcast to the product shape " +
                                  formatShape(shape));
  return success();
}
LogicalResult etch::edge::inferLinearShape(std::optional<Location> location,
                                           StringRef opName, Value input,
                                           Value weight,
                                           SmallVectorImpl<int64_t> &shape) {
  ArrayRef<int64_t> rows = rankedType(input).getShape();
  if (rows.empty())
    return emitInferenceError(location, opName,
                              "input must have rank >= 1, got 0");
  if (failed(verifyRank(location, opName, "weight", weight, 2)))
    return failure();
  shape.assign(rows.begin(), rows.end() - 1);
  shape.push_back(rankedType(weight).getDimSize(0));
  return success();
}

LogicalResult LinearOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  if (failed(verifySameElementType(location, name,
                                   {{"input", getInput()},
                                    {"weight", getWeight()},
                                    {"bias", getBias()}})))
    return failure();
  ArrayRef<int64_t> weight = rankedType(getWeight()).getShape();
  int64_t inFeatures = rankedType(getInput()).getShape().back();
  if (!extentsAgree(inFeatures, weight[1]))
    return emitExtentMismatch(location, name, "in features", "input last dim",
                              inFeatures, "weight dim 1", weight[1]);
  if (Value bias = getBias()) {
    if (failed(verifyRank(location, name, "bias", bias, 1)))
      return failure();
    int64_t biasSize = rankedType(bias).getDimSize(0);
    if (!extentsAgree(biasSize, weight[0]))
      return emitExtentMismatch(location, name, "out features", "bias dim 0",
                                biasSize, "weight dim 0", weight[0]);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// add(linear(x, W), b) -> linear(x, W, b)
//===----------------------------------------------------------------------===//

namespace {
/// ONNX exports write a linear layer as MatMul then Add: a constant 1-D bias
/// added to a bias-free linear's only use becomes the linear's bias, so a
/// target runs one fully connected layer instead of a product and a pass
/// over its result.
struct AddBiasIntoLinear : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    if (add.getAlpha().convertToDouble() != 1.0)
      return failure();
    for (auto [product, bias] : {std::pair(add.getSelf(), add.getOther()),
                                 std::pair(add.getOther(), add.getSelf())}) {
      auto linear = product.getDefiningOp<LinearOp>();
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!linear || linear.getBias() || !product.hasOneUse() ||
          !bias.getDefiningOp<ConstantOp>() || !biasType ||
          biasType.getRank() != 1 || linear.getType() != add.getType() ||
          biasType.getDimSize(0) !=
              linear.getWeight().getType().getDimSize(0) ||
          biasType.getElementType() != linear.getType().getElementType())
        continue;
      rewriter.replaceOpWithNewOp<LinearOp>(add, add.getType(),
                                            linear.getInput(),
                                            linear.getWeight(), bias);
      rewriter.eraseOp(linear);
      return success();
    }
    return failure();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AddBiasIntoLinear>(context);
}
