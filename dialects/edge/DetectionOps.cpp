//===- DetectionOps.cpp - non-maximum suppression -------------------------===//
#include "edge/EdgeDialect.h"

using namespace mlir;
using namespace etch::edge;

LogicalResult NonMaxSuppressionOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(verifyRank(location, name, "boxes", adaptor.getBoxes(), 3)) ||
      failed(verifyRank(location, name, "scores", adaptor.getScores(), 3)))
    return failure();
  ArrayRef<int64_t> boxes = rankedType(adaptor.getBoxes()).getShape();
  ArrayRef<int64_t> scores = rankedType(adaptor.getScores()).getShape();
  if (!extentsAgree(boxes[2], 4))
    return emitInferenceError(location, name,
                              "boxes must be [batch, boxes, 4], got dim 2 = " +
                                  Twine(boxes[2]));
  if (!extentsAgree(boxes[0], scores[0]) || !extentsAgree(boxes[1], scores[2]))
    return emitInferenceError(
        location, name,
        "scores must be [batch, classes, boxes] for boxes [" + Twine(boxes[0]) +
            ", " + Twine(boxes[1]) + ", 4], got [" + Twine(scores[0]) + ", " +
            Twine(scores[1]) + ", " + Twine(scores[2]) + "]");
  if (adaptor.getMaxOutputBoxesPerClass() < 0)
    return emitInferenceError(location, name,
                              "max_output_boxes_per_class must be >= 0");
  types.push_back(RankedTensorType::get({ShapedType::kDynamic, 3},
                                        IntegerType::get(context, 64)));
  return success();
}

LogicalResult
NonMaxSuppressionOp::upperBoundTypes(TypeRange operandTypes,
                                     SmallVectorImpl<Type> &types) {
  auto scores = cast<RankedTensorType>(operandTypes[1]);
  if (!scores.hasStaticShape())
    return failure();
  // Every class of every batch keeps as many boxes as it may.
  int64_t perClass =
      std::min<int64_t>(getMaxOutputBoxesPerClass(), scores.getDimSize(2));
  types.push_back(RankedTensorType::get(
      {scores.getDimSize(0) * scores.getDimSize(1) * perClass, 3},
      IntegerType::get(getContext(), 64)));
  return success();
}
