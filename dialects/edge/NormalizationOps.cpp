//===- NormalizationOps.cpp - batch_norm, layer_norm ----------------------===//
#include "edge/EdgeDialect.h"

using namespace mlir;
using namespace etch::edge;

/// Checks that an optional per-channel/per-feature parameter has \p shape.
static LogicalResult checkParameterShape(std::optional<Location> location,
                                         StringRef opName, StringRef name,
                                         Value parameter,
                                         ArrayRef<int64_t> shape) {
  if (!parameter)
    return success();
  ArrayRef<int64_t> actual = rankedType(parameter).getShape();
  bool ok = actual.size() == shape.size();
  for (size_t i = 0; ok && i < shape.size(); ++i)
    ok = extentsAgree(actual[i], shape[i]);
  if (ok)
    return success();
  return emitInferenceError(location, opName,
                            Twine(name) + " has shape " + formatShape(actual) +
                                ", expected " + formatShape(shape));
}

LogicalResult BatchNormOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(getInput());
  if (input.getRank() < 2)
    return emitInferenceError(
        location, name,
        "input must have rank >= 2 (N, C, ...), got rank " +
            Twine(input.getRank()));
  if (getEps().convertToDouble() < 0)
    return emitInferenceError(location, name, "eps must be >= 0");
  int64_t channels = input.getDimSize(1);
  if (failed(verifySameElementType(location, name,
                                   {{"input", getInput()},
                                    {"weight", getWeight()},
                                    {"bias", getBias()},
                                    {"running_mean", getRunningMean()},
                                    {"running_var", getRunningVar()}})) ||
      failed(checkParameterShape(location, name, "weight", getWeight(),
                                 {channels})) ||
      failed(
          checkParameterShape(location, name, "bias", getBias(), {channels})) ||
      failed(checkParameterShape(location, name, "running_mean",
                                 getRunningMean(), {channels})) ||
      failed(checkParameterShape(location, name, "running_var", getRunningVar(),
                                 {channels})))
    return failure();
  return success();
}

LogicalResult LayerNormOp::verify() {
  std::optional<Location> location = getLoc();
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(getInput());
  ArrayRef<int64_t> normalized = getNormalizedShape();
  if (normalized.empty() ||
      normalized.size() > static_cast<size_t>(input.getRank()))
    return emitInferenceError(location, name,
                              "normalized_shape must have 1 to " +
                                  Twine(input.getRank()) + " entries, got " +
                                  Twine(normalized.size()));
  ArrayRef<int64_t> trailing = input.getShape().take_back(normalized.size());
  for (size_t i = 0; i < normalized.size(); ++i)
    if (!extentsAgree(trailing[i], normalized[i]))
      return emitInferenceError(location, name,
                                "normalized_shape " + formatShape(normalized) +
                                    " does not match the trailing input dims " +
                                    formatShape(trailing));
  if (getEps().convertToDouble() < 0)
    return emitInferenceError(location, name, "eps must be >= 0");
  if (failed(verifySameElementType(location, name,
                                   {{"input", getInput()},
                                    {"weight", getWeight()},
                                    {"bias", getBias()}})) ||
      failed(checkParameterShape(location, name, "weight", getWeight(),
                                 normalized)) ||
      failed(
          checkParameterShape(location, name, "bias", getBias(), normalized)))
    return failure();
  return success();
}
