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

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  if (input.getRank() < 2)
    return emitInferenceError(
        location, name,
        "input must have rank >= 2 (N, C, ...), got rank " +
            Twine(input.getRank()));
  if (adaptor.getEps().convertToDouble() < 0)
    return emitInferenceError(location, name, "eps must be >= 0");
  int64_t channels = input.getDimSize(1);
  if (failed(
          verifySameElementType(location, name,
                                {{"input", adaptor.getInput()},
                                 {"weight", adaptor.getWeight()},
                                 {"bias", adaptor.getBias()},
                                 {"running_mean", adaptor.getRunningMean()},
                                 {"running_var", adaptor.getRunningVar()}})) ||
      failed(checkParameterShape(location, name, "weight", adaptor.getWeight(),
                                 {channels})) ||
      failed(checkParameterShape(location, name, "bias", adaptor.getBias(),
                                 {channels})) ||
      failed(checkParameterShape(location, name, "running_mean",
                                 adaptor.getRunningMean(), {channels})) ||
      failed(checkParameterShape(location, name, "running_var",
                                 adaptor.getRunningVar(), {channels})))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> normalized = adaptor.getNormalizedShape();
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
  if (adaptor.getEps().convertToDouble() < 0)
    return emitInferenceError(location, name, "eps must be >= 0");
  if (failed(verifySameElementType(location, name,
                                   {{"input", adaptor.getInput()},
                                    {"weight", adaptor.getWeight()},
                                    {"bias", adaptor.getBias()}})) ||
      failed(checkParameterShape(location, name, "weight", adaptor.getWeight(),
                                 normalized)) ||
      failed(checkParameterShape(location, name, "bias", adaptor.getBias(),
                                 normalized)))
    return failure();
  types.push_back(input);
  return success();
}
