//===- QuantizationOps.cpp - Quantized types and Q/DQ ops -----------------===//
#include "edge/EdgeDialect.h"

#include <algorithm>

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace etch::edge {

bool isQuantized(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(
      type);
}

IntegerType storageElementType(quant::QuantizedType type) {
  unsigned width = type.getStorageTypeIntegralWidth();
  return IntegerType::get(type.getContext(), width,
                          type.isSigned() ? IntegerType::Signless
                                          : IntegerType::Unsigned);
}

Type storageOrElementType(Type elementType) {
  if (auto quantized = dyn_cast<quant::QuantizedType>(elementType))
    return storageElementType(quantized);
  return elementType;
}

std::optional<uint64_t> tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  Type element = storageOrElementType(tensor.getElementType());
  if (!element.isIntOrFloat())
    return std::nullopt;
  uint64_t elementBytes =
      std::max<uint64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return elementBytes * tensor.getNumElements();
}

RankedTensorType storageTensorType(RankedTensorType type) {
  return type.clone(storageOrElementType(type.getElementType()));
}

LogicalResult verifyQuantizedTensor(Operation *op, RankedTensorType type) {
  Type element = type.getElementType();
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element);
  if (!perAxis)
    return success();
  int32_t axis = perAxis.getQuantizedDimension();
  if (axis >= type.getRank())
    return op->emitOpError("quantized dimension ")
           << axis << " is out of range for rank " << type.getRank();
  int64_t extent = type.getDimSize(axis);
  size_t count = perAxis.getScales().size();
  if (!ShapedType::isDynamic(extent) && static_cast<size_t>(extent) != count)
    return op->emitOpError("has ")
           << count << " quantization scales for dimension " << axis
           << " of extent " << extent;
  return success();
}

quant::QuantizedType getUniformType(function_ref<InFlightDiagnostic()> emitError,
                                    IntegerType storage,
                                    ArrayRef<double> scales,
                                    ArrayRef<int64_t> zeroPoints,
                                    std::optional<int32_t> axis, int64_t qmin,
                                    int64_t qmax) {
  MLIRContext *context = storage.getContext();
  unsigned flags = storage.isUnsigned() ? 0 : quant::QuantizationFlags::Signed;
  auto signless = IntegerType::get(context, storage.getWidth());
  auto expressed = Float32Type::get(context);
  if (!axis) {
    if (scales.size() != 1 || zeroPoints.size() != 1) {
      emitError() << "per-tensor quantization needs one scale and one zero "
                     "point, got "
                  << scales.size() << " and " << zeroPoints.size();
      return nullptr;
    }
    return quant::UniformQuantizedType::getChecked(
        emitError, flags, signless, expressed, scales[0], zeroPoints[0], qmin,
        qmax);
  }
  return quant::UniformQuantizedPerAxisType::getChecked(
      emitError, flags, signless, expressed, scales, zeroPoints, *axis, qmin,
      qmax);
}

//===----------------------------------------------------------------------===//
// QuantizeOp / DequantizeOp
//===----------------------------------------------------------------------===//

// Shared by both directions: same shape, and the quantized side expresses
// exactly the float side's element type.
static LogicalResult verifyQuantizationCast(Operation *op,
                                            RankedTensorType floatType,
                                            RankedTensorType quantizedType) {
  if (floatType.getShape() != quantizedType.getShape())
    return op->emitOpError("operand and result shapes differ: ")
           << formatShape(floatType.getShape()) << " vs "
           << formatShape(quantizedType.getShape());
  auto quantized = cast<quant::QuantizedType>(quantizedType.getElementType());
  if (quantized.getExpressedType() != floatType.getElementType())
    return op->emitOpError("quantized type expresses ")
           << quantized.getExpressedType() << ", but the float side is "
           << floatType.getElementType();
  return verifyQuantizedTensor(op, quantizedType);
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantizationCast(*this, getInput().getType(), getType());
}

LogicalResult DequantizeOp::verify() {
  return verifyQuantizationCast(*this, getType(), getInput().getType());
}

} // namespace etch::edge
