//===- QuantizedComputeOps.cpp - Integer convolution, linear, add, mul ----===//
//
// The verifiers hold what the portable integer kernels rely on: 8-bit
// storage, activations per tensor, weights per tensor or per output channel
// on dim 0, float biases of one value per output channel, and the shapes of
// the float op each one replaces.
//
//===----------------------------------------------------------------------===//
#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"
#include "edge/InferenceRules.h"

using namespace mlir;

namespace etch::edge {
namespace {

bool isEightBit(quant::QuantizedType type) {
  return type.getStorageTypeIntegralWidth() == 8;
}

/// An activation: per-tensor 8-bit.
LogicalResult verifyActivation(Operation *op, StringRef what, Type type) {
  auto element = dyn_cast<quant::UniformQuantizedType>(
      cast<RankedTensorType>(type).getElementType());
  if (!element || !isEightBit(element))
    return op->emitOpError() << what
                             << " must be quantized per tensor with 8-bit "
                                "storage, got "
                             << type;
  return success();
}

/// Weights: 8-bit, per tensor or per index of dim 0 (output channels).
LogicalResult verifyWeight(Operation *op, Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  auto element = cast<quant::QuantizedType>(type.getElementType());
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element);
  if (!isEightBit(element) ||
      (perAxis && perAxis.getQuantizedDimension() != 0))
    return op->emitOpError()
           << "weight must have 8-bit storage, quantized per tensor or per "
              "output channel (axis 0), got "
           << type;
  return verifyQuantizedTensor(op, type);
}

LogicalResult verifyBias(Operation *op, Value bias, int64_t outputs) {
  if (!bias)
    return success();
  auto type = cast<RankedTensorType>(bias.getType());
  if (type.getRank() != 1 || !type.getElementType().isF32() ||
      !extentsAgree(type.getDimSize(0), outputs))
    return op->emitOpError() << "bias must be f32 of shape [" << outputs
                             << "], got " << type;
  return success();
}

LogicalResult verifyClampRange(Operation *op, std::optional<APFloat> min,
                               std::optional<APFloat> max) {
  if (min && max && min->convertToDouble() > max->convertToDouble())
    return op->emitOpError() << "min " << min->convertToDouble()
                             << " exceeds max " << max->convertToDouble();
  return success();
}

/// Convolution and linear: a per-tensor input and result, 8-bit weights.
LogicalResult verifyWeightedOp(Operation *op, Value input, Value weight,
                               std::optional<APFloat> min,
                               std::optional<APFloat> max) {
  if (failed(verifyActivation(op, "input", input.getType())) ||
      failed(verifyActivation(op, "result", op->getResult(0).getType())) ||
      failed(verifyWeight(op, weight)))
    return failure();
  return verifyClampRange(op, min, max);
}

} // namespace

LogicalResult QuantizedConvolutionOp::verify() {
  Operation *op = *this;
  if (failed(verifyWeightedOp(op, getInput(), getWeight(), getMin(),
                              getMax())))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  if (input.size() != 4 || weight.size() != 4)
    return emitOpError("input and weight must have rank 4");
  int64_t groups = getGroups();
  ArrayRef<int64_t> stride = getStride(), padding = getPadding(),
                    dilation = getDilation();
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2 ||
      groups < 1)
    return emitOpError("needs 2 strides, paddings, dilations and groups >= 1");
  if (!ShapedType::isDynamic(weight[1]) &&
      !extentsAgree(input[1], weight[1] * groups))
    return emitOpError() << "input has " << input[1]
                         << " channels, weight expects " << weight[1] << " x "
                         << groups << " groups";
  if (!ShapedType::isDynamic(weight[0]) && weight[0] % groups != 0)
    return emitOpError() << "output channels " << weight[0]
                         << " are not divisible by groups " << groups;
  if (failed(verifyBias(op, getBias(), weight[0])))
    return failure();
  SmallVector<int64_t> expected = {input[0], weight[0]};
  for (int i = 0; i < 2; ++i)
    expected.push_back(
        ShapedType::isDynamic(input[2 + i]) ||
                ShapedType::isDynamic(weight[2 + i])
            ? ShapedType::kDynamic
            : slidingWindowExtent(input[2 + i], weight[2 + i], stride[i],
                                  padding[i], dilation[i], false));
  return verifyResultShape(op, expected);
}

LogicalResult QuantizedLinearOp::verify() {
  Operation *op = *this;
  if (failed(verifyWeightedOp(op, getInput(), getWeight(), getMin(),
                              getMax())))
    return failure();
  SmallVector<int64_t> expected; // edge.linear's shape
  if (failed(inferLinearShape(getLoc(), getOperationName(), getInput(),
                              getWeight(), expected)))
    return failure();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  int64_t features = getInput().getType().getShape().back();
  if (!extentsAgree(features, weight[1]))
    return emitOpError() << "input has " << features
                         << " features, weight expects " << weight[1];
  if (failed(verifyBias(op, getBias(), weight[0])))
    return failure();
  return verifyResultShape(op, expected);
}

/// Both binary ops: per-tensor operands that broadcast to the result.
static LogicalResult verifyQuantizedBinary(Operation *op,
                                           std::optional<APFloat> min,
                                           std::optional<APFloat> max) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  for (auto [name, operand] : {std::pair{"self", op->getOperand(0)},
                               {"other", op->getOperand(1)}}) {
    if (failed(verifyActivation(op, name, operand.getType())))
      return failure();
    auto type = cast<RankedTensorType>(operand.getType());
    if (!broadcastsTo(type.getShape(), result.getShape()))
      return op->emitOpError()
             << name << " of shape " << formatShape(type.getShape())
             << " does not broadcast to the result shape "
             << formatShape(result.getShape());
  }
  if (failed(verifyActivation(op, "result", result)))
    return failure();
  return verifyClampRange(op, min, max);
}

LogicalResult QuantizedAddOp::verify() {
  return verifyQuantizedBinary(*this, getMin(), getMax());
}

LogicalResult QuantizedMulOp::verify() {
  return verifyQuantizedBinary(*this, getMin(), getMax());
}

} // namespace etch::edge
