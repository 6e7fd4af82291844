//===- OnnxNormOps.cpp - BatchNormalization, LayerNormalization -----------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

using namespace mlir;

namespace etch::onnx_import {

/// BatchNormalization with training_mode=1: normalized by the batch's own
/// mean and (population) variance over every dim but the channels, and the
/// running statistics blended by `momentum`, ONNX's formulas.
LogicalResult OnnxImporter::convertTrainingBatchNorm(const OnnxNode &node) {
  Compose c(*this, node);
  Value x = input(node, 0), scale = input(node, 1), bias = input(node, 2),
        runningMean = input(node, 3), runningVar = input(node, 4);
  if (!x || !scale || !bias || !runningMean || !runningVar)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  if (type.getRank() < 2 || type.isDynamicDim(1))
    return nodeError(node) << "needs N, C, ... input with a static C, got "
                           << type;
  int64_t channels = type.getDimSize(1);
  SmallVector<int64_t> reduced = {0};
  for (int64_t d = 2; d < type.getRank(); ++d)
    reduced.push_back(d);
  SmallVector<int64_t> perChannel(type.getRank(), 1);
  perChannel[1] = channels;
  auto meanOver = [&](Value value) {
    return c.op<edge::MeanOp>({value},
                              {c.attr("dim", ArrayRef<int64_t>(reduced)),
                               c.boolAttr("keepdim", true)});
  };
  double eps = floatAttr(node, "epsilon", 1e-5f);
  double momentum = floatAttr(node, "momentum", 0.9f);
  Value mean = meanOver(x);
  Value centered = c.op<edge::SubOp>({x, mean});
  Value variance = meanOver(c.op<edge::MulOp>({centered, centered}));
  Value normalized = c.op<edge::MulOp>(
      {centered,
       c.op<edge::RsqrtOp>({c.op<edge::AddOp>({variance, c.scalar(x, eps)})})});
  Value y = c.op<edge::AddOp>(
      {c.op<edge::MulOp>({normalized, c.view(scale, perChannel)}),
       c.view(bias, perChannel)});
  if (failed(c.bind(y)))
    return failure();
  auto blend = [&](Value running, Value current) {
    return c.op<edge::AddOp>(
        {c.op<edge::MulOp>({running, c.scalar(running, momentum)}),
         c.op<edge::MulOp>(
             {c.view(current, {channels}), c.scalar(running, 1 - momentum)})});
  };
  if (node.outputs.size() > 1 && !node.outputs[1].empty() &&
      failed(c.bind(blend(runningMean, mean), 1)))
    return failure();
  if (node.outputs.size() > 2 && !node.outputs[2].empty() &&
      failed(c.bind(blend(runningVar, variance), 2)))
    return failure();
  return success();
}

LogicalResult OnnxImporter::convertBatchNormalization(const OnnxNode &node) {
  if (intAttr(node, "training_mode", 0) != 0)
    return convertTrainingBatchNorm(node);
  for (size_t output = 1; output < node.outputs.size(); ++output)
    if (failed(requireUnused(node, output)))
      return failure();
  SmallVector<Value> operands;
  for (size_t i = 0; i < 5; ++i) {
    Value value = input(node, i);
    if (!value)
      return failure();
    operands.push_back(value);
  }
  return bind(
      node, edge.create<edge::BatchNormOp>(
                locationOf(node), operands,
                {builder.getNamedAttr("eps", builder.getF64FloatAttr(floatAttr(
                                                 node, "epsilon", 1e-5f))),
                 builder.getNamedAttr(
                     "operandSegmentSizes",
                     builder.getDenseI32ArrayAttr({1, 1, 1, 1, 1}))}));
}

LogicalResult OnnxImporter::convertLayerNormalization(const OnnxNode &node) {
  // The mean and inverse standard deviation outputs are composed.
  for (size_t output = 1; output < node.outputs.size(); ++output)
    if (!node.outputs[output].empty() &&
        useCounts.lookup(node.outputs[output])) {
      Compose compose(*this, node);
      return composeLayerNormWithStatistics(compose);
    }
  Value x = input(node, 0);
  if (!x)
    return failure();
  RankedTensorType type = rankedTypeOf(x);
  int64_t axis = intAttr(node, "axis", -1);
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis >= type.getRank())
    return nodeError(node) << "axis " << intAttr(node, "axis", -1)
                           << " is out of range for " << type;
  ArrayRef<int64_t> normalized = type.getShape().drop_front(axis);
  if (llvm::any_of(normalized, ShapedType::isDynamic))
    return nodeError(node) << "normalized dims of " << type
                           << " must be static";
  SmallVector<Value> operands = {x};
  SmallVector<int32_t> segments = {1, 0, 0};
  for (size_t i = 1; i < 3; ++i) {
    if (!hasInput(node, i))
      continue;
    Value value = input(node, i);
    if (!value)
      return failure();
    operands.push_back(value);
    segments[i] = 1;
  }
  return bind(
      node,
      edge.create<edge::LayerNormOp>(
          locationOf(node), operands,
          {builder.getNamedAttr("normalized_shape",
                                builder.getDenseI64ArrayAttr(normalized)),
           builder.getNamedAttr("eps", builder.getF64FloatAttr(
                                           floatAttr(node, "epsilon", 1e-5f))),
           builder.getNamedAttr("operandSegmentSizes",
                                builder.getDenseI32ArrayAttr(segments))}));
}

} // namespace etch::onnx_import
