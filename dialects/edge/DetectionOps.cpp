//===- DetectionOps.cpp - non-maximum suppression, RoiAlign ---------------===//
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
  if (static_cast<int64_t>(adaptor.getMaxOutputBoxesPerClass()) < 0)
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
  int64_t perClass = std::min<int64_t>(
      static_cast<int64_t>(getMaxOutputBoxesPerClass()), scores.getDimSize(2));
  int64_t boxes;
  if (__builtin_mul_overflow(scores.getDimSize(0), scores.getDimSize(1),
                             &boxes) ||
      __builtin_mul_overflow(boxes, perClass, &boxes))
    return failure(); // no bound an int64 can hold
  types.push_back(
      RankedTensorType::get({boxes, 3}, IntegerType::get(getContext(), 64)));
  return success();
}

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(verifyRank(location, name, "input", adaptor.getInput(), 4)) ||
      failed(verifyRank(location, name, "rois", adaptor.getRois(), 2)) ||
      failed(verifyRank(location, name, "batch_indices",
                        adaptor.getBatchIndices(), 1)) ||
      failed(verifySameElementType(
          location, name,
          {{"input", adaptor.getInput()}, {"rois", adaptor.getRois()}})))
    return failure();
  ArrayRef<int64_t> rois = rankedType(adaptor.getRois()).getShape();
  int64_t regions = rankedType(adaptor.getBatchIndices()).getDimSize(0);
  if (!extentsAgree(rois[1], 4) || !extentsAgree(rois[0], regions))
    return emitInferenceError(location, name,
                              "rois must be [R, 4] with one batch index each, "
                              "got rois [" +
                                  Twine(rois[0]) + ", " + Twine(rois[1]) +
                                  "] and " + Twine(regions) + " indices");
  if (static_cast<int64_t>(adaptor.getOutputHeight()) < 1 ||
      static_cast<int64_t>(adaptor.getOutputWidth()) < 1 ||
      static_cast<int64_t>(adaptor.getSamplingRatio()) < 0)
    return emitInferenceError(location, name,
                              "output_height and output_width must be >= 1 "
                              "and sampling_ratio >= 0");
  RankedTensorType input = rankedType(adaptor.getInput());
  types.push_back(RankedTensorType::get(
      {ShapedType::isDynamic(rois[0]) ? regions : rois[0], input.getDimSize(1),
       static_cast<int64_t>(adaptor.getOutputHeight()),
       static_cast<int64_t>(adaptor.getOutputWidth())},
      input.getElementType()));
  return success();
}
