//===- XnnpackInt8.cpp - Which int8 nodes XNNPACK 2022 has ----------------===//
#include "XnnpackInt8.h"
#include "XnnpackRules.h"
#include "targets/xnnpack/schema/QuantizationLimits.h"

#include "edge/ConstantData.h"

using namespace mlir;
using namespace etch::edge;
using etch::quantization::QuantizedOp;
using etch::quantization::QuantizedOperand;

namespace etch::xnnpack {

bool isInt8Activation(const QuantizedOperand &operand) {
  return operand.quantized && isQint8(operand.type) &&
         !isConstant(operand.quantized);
}

bool isInt8Weight(const QuantizedOperand &operand, bool perChannel) {
  if (!operand.quantized || !operand.quantized.getDefiningOp<ConstantOp>() ||
      !operand.type.isSigned() ||
      operand.type.getStorageTypeIntegralWidth() != 8)
    return false;
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(operand.type))
    return uniform.getZeroPoint() == 0;
  auto perAxis = cast<quant::UniformQuantizedPerAxisType>(operand.type);
  return perChannel && perAxis.getQuantizedDimension() == 0 &&
         llvm::all_of(perAxis.getZeroPoints(),
                      [](int64_t zeroPoint) { return zeroPoint == 0; });
}

bool supportsInt8(const QuantizedOp &q) {
  Operation *op = q.op;
  if (!isQint8(q.outputType()))
    return false;
  auto activation = [&](size_t i) {
    return i < q.operands.size() && isInt8Activation(q.operands[i]);
  };
  auto keepsParameters = [&] {
    return activation(0) && q.operands[0].type == q.outputType();
  };
  auto constantBias = [](Value bias) { return !bias || isConstant(bias); };
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return !conv.getTransposed() && activation(0) &&
           isInt8Weight(q.operands[1], /*perChannel=*/true) &&
           constantBias(conv.getBias());
  if (auto linear = dyn_cast<LinearOp>(op))
    return activation(0) && isInt8Weight(q.operands[1], false) &&
           constantBias(linear.getBias());
  if (auto addmm = dyn_cast<AddmmOp>(op)) // bias, input, W^T
    return activation(1) && isInt8Weight(q.operands[2], false) &&
           constantBias(addmm.getSelf());
  if (isa<MmOp>(op)) // input, W^T
    return activation(0) && isInt8Weight(q.operands[1], false);
  if (isa<AddOp, MulOp>(op))
    return activation(0) && activation(1);
  if (isa<AdaptiveAvgPool2dOp, MeanOp>(op))
    return activation(0);
  float low, high;
  if (isa<MaxPool2dOp>(op) || isClampLike(op, low, high))
    return keepsParameters();
  if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op))
    return keepsParameters() && !q.activation;
  return false;
}

bool int8ScalesSupported(const QuantizedOp &q) {
  Operation *op = q.op;
  auto scale = [&](size_t i) {
    return static_cast<float>(q.perTensor(i).getScale());
  };
  float out = static_cast<float>(
      cast<quant::UniformQuantizedType>(q.outputType()).getScale());
  auto weights = [&](size_t input, size_t weight) {
    if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(
            q.operands[weight].type))
      return llvm::all_of(perAxis.getScales(), [&](double channel) {
        return xnnpack::convolutionScalesSupported(
            scale(input), static_cast<float>(channel), out);
      });
    return xnnpack::convolutionScalesSupported(scale(input), scale(weight),
                                               out);
  };
  if (isa<ConvolutionOp, LinearOp, MmOp>(op))
    return weights(0, 1);
  if (isa<AddmmOp>(op))
    return weights(1, 2);
  if (isa<AddOp>(op))
    return xnnpack::addScalesSupported(scale(0), scale(1), out);
  if (isa<MulOp>(op))
    return xnnpack::multiplyScalesSupported(scale(0), scale(1), out);
  if (isa<AdaptiveAvgPool2dOp, MeanOp>(op)) {
    auto input = cast<ShapedType>(op->getOperand(0).getType());
    if (input.getRank() != 4 || input.isDynamicDim(2) || input.isDynamicDim(3))
      return true;
    return xnnpack::globalAveragePoolingScalesSupported(
        scale(0), out, uint64_t(input.getDimSize(2) * input.getDimSize(3)));
  }
  return true;
}

std::vector<int8_t> storedInt8(Value quantized) {
  SmallVector<char> storage;
  auto constant = quantized.getDefiningOp<ConstantOp>();
  std::optional<ArrayRef<char>> bytes =
      getConstantBytes(constant.getValue(), storage);
  if (!bytes)
    return {};
  return std::vector<int8_t>(bytes->begin(), bytes->end());
}

std::vector<float> weightScales(quant::QuantizedType type, int64_t channels) {
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type))
    return std::vector<float>(channels, uniform.getScale());
  auto scales = cast<quant::UniformQuantizedPerAxisType>(type).getScales();
  return std::vector<float>(scales.begin(), scales.end());
}

} // namespace etch::xnnpack
