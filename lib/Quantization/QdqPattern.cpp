//===- QdqPattern.cpp - Recognise dequantize -> op -> quantize -------------===//
#include "etch/Quantization/QdqPattern.h"

#include "edge/ConstantData.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace etch::edge;

namespace etch::quantization {

quant::QuantizedType QuantizedOp::outputType() const {
  return cast<quant::QuantizedType>(
      cast<ShapedType>(output->getResult(0).getType()).getElementType());
}

quant::UniformQuantizedType QuantizedOp::perTensor(size_t index) const {
  if (index >= operands.size() || !operands[index].type)
    return nullptr;
  return dyn_cast<quant::UniformQuantizedType>(operands[index].type);
}

bool isConstant(Value value) {
  if (!value)
    return false;
  if (auto dequantize = value.getDefiningOp<DequantizeOp>())
    value = dequantize.getInput();
  return value.getDefiningOp<ConstantOp>() != nullptr;
}

static Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

std::optional<QuantizedOp> matchQuantizedOp(Operation *op) {
  if (op->getNumResults() != 1 || isa<QuantizeOp, DequantizeOp>(op))
    return std::nullopt;
  QuantizedOp match;
  match.op = op;
  Operation *user = soleUser(op->getResult(0));
  float low, high;
  if (user && isClampLike(user, low, high) && !isClampLike(op, low, high)) {
    match.activation = user;
    user = soleUser(user->getResult(0));
  }
  match.output = dyn_cast_or_null<QuantizeOp>(user);
  if (!match.output)
    return std::nullopt;
  bool anyDequantized = false;
  for (Value operand : op->getOperands()) {
    QuantizedOperand entry;
    if (auto dequantize = operand.getDefiningOp<DequantizeOp>()) {
      entry.quantized = dequantize.getInput();
      entry.type = cast<quant::QuantizedType>(
          dequantize.getInput().getType().getElementType());
      anyDequantized = true;
    }
    match.operands.push_back(entry);
  }
  if (!anyDequantized)
    return std::nullopt;
  return match;
}

std::optional<SmallVector<float>> constantRealValues(Value value) {
  if (std::optional<SmallVector<float>> floats = getConstantFloats(value))
    return floats;
  auto dequantize = value.getDefiningOp<DequantizeOp>();
  if (!dequantize)
    return std::nullopt;
  auto constant = dequantize.getInput().getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  std::optional<SmallVector<double>> stored =
      getConstantNumbers(constant.getResult());
  if (!stored)
    return std::nullopt;
  auto type = cast<RankedTensorType>(constant.getType());
  Type element = type.getElementType();
  // The same arithmetic as the dequantize kernel: (q - zp) * scale in f32.
  int64_t channels = 1, inner = type.getNumElements();
  ArrayRef<double> scales;
  ArrayRef<int64_t> zeroPoints;
  double scale = 0;
  int64_t zeroPoint = 0;
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(element)) {
    scale = uniform.getScale();
    zeroPoint = uniform.getZeroPoint();
    scales = ArrayRef<double>(scale);
    zeroPoints = ArrayRef<int64_t>(zeroPoint);
  } else if (auto perAxis =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(element)) {
    scales = perAxis.getScales();
    zeroPoints = perAxis.getZeroPoints();
    int32_t axis = perAxis.getQuantizedDimension();
    channels = type.getDimSize(axis);
    inner = 1;
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
  } else {
    return std::nullopt;
  }
  SmallVector<float> values(stored->size());
  for (size_t i = 0; i < values.size(); ++i) {
    size_t c = (i / inner) % channels;
    values[i] = static_cast<float>(static_cast<int64_t>((*stored)[i]) -
                                   zeroPoints[c]) *
                static_cast<float>(scales[c]);
  }
  return values;
}

void eraseWithDeadProducers(Operation *op) {
  // A set: an op may read one producer twice (x * x).
  llvm::SmallSetVector<Operation *, 4> producers;
  for (Value operand : op->getOperands())
    if (Operation *producer = operand.getDefiningOp())
      producers.insert(producer);
  op->erase();
  for (Operation *producer : producers)
    if (producer->use_empty() &&
        isa<edge::DequantizeOp, edge::DequantizePerChannelGroupOp,
            edge::PermuteOp, edge::ConstantOp>(producer))
      eraseWithDeadProducers(producer);
}

} // namespace etch::quantization
