//===- OnnxQuantOps.cpp - QuantizeLinear / DequantizeLinear ---------------===//
//
// QDQ models (onnxruntime's quantize_static writes them) wrap each quantized
// op in DequantizeLinear -> op -> QuantizeLinear. Each becomes edge.quantize
// / edge.dequantize with the parameters in a `!quant.uniform` type; int8
// weight and int32 bias initializers become quantized constants.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"

#include "edge/EdgeDialect.h"

using namespace mlir;

namespace etch::onnx_import {
namespace {

/// The storage range of an integer type: QDQ always uses the full range.
std::pair<int64_t, int64_t> storageRange(IntegerType type) {
  unsigned width = type.getWidth();
  if (type.isUnsigned())
    return {0, (int64_t(1) << width) - 1};
  return {-(int64_t(1) << (width - 1)), (int64_t(1) << (width - 1)) - 1};
}

} // namespace

/// The `!quant.uniform` type of node inputs 1 (scale) and 2 (zero point)
/// for \p data; \p storage is the type the zero point does not give.
static FailureOr<quant::QuantizedType>
linearQuantizedType(OnnxImporter &importer, const OnnxNode &node, Value data,
                    IntegerType defaultStorage) {
  if (importer.intAttr(node, "block_size", 0) != 0)
    return importer.nodeError(node) << "blocked quantization (block_size) is "
                                       "not supported";
  const OnnxTensor *scale = importer.constantInput(node, 1);
  if (!scale)
    return importer.nodeError(node)
           << "needs a constant scale (input 1); scales computed at run time "
              "are not supported";
  std::optional<std::vector<double>> scales = importer.constantDoubles(*scale);
  if (!scales || scales->empty())
    return importer.nodeError(node) << "scale must be a float tensor";
  IntegerType storage = defaultStorage;
  std::vector<int64_t> zeroPoints(scales->size(), 0);
  if (importer.hasInput(node, 2)) {
    const OnnxTensor *zeroPoint = importer.constantInput(node, 2);
    if (!zeroPoint)
      return importer.nodeError(node) << "needs a constant zero point (input 2)";
    auto type = dyn_cast_or_null<IntegerType>(
        importer.elementTypeOf(zeroPoint->elementType));
    std::optional<std::vector<int64_t>> values = importer.constantInts(*zeroPoint);
    if (!type || type.getWidth() > 32 || !values ||
        values->size() != scales->size())
      return importer.nodeError(node)
             << "zero point must be an int8/uint8/int16/int32 tensor with "
                "one entry per scale";
    storage = type;
    zeroPoints = *values;
  }
  std::optional<int32_t> axis;
  auto dataType = cast<RankedTensorType>(data.getType());
  if (!scale->dims.empty() && scales->size() > 1) {
    int64_t rank = dataType.getRank();
    int64_t dim = importer.intAttr(node, "axis", 1);
    if (dim < -rank || dim >= rank)
      return importer.nodeError(node)
             << "axis " << dim << " is out of range for rank " << rank;
    axis = static_cast<int32_t>(dim < 0 ? dim + rank : dim);
  }
  auto [qmin, qmax] = storageRange(storage);
  quant::QuantizedType type =
      edge::getUniformType([&] { return importer.nodeError(node); }, storage,
                           *scales,
                           zeroPoints, axis, qmin, qmax);
  if (!type)
    return failure();
  return type;
}

LogicalResult OnnxImporter::convertQuantizeLinear(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  // Without a zero point, QuantizeLinear produces uint8 (opset 13).
  FailureOr<quant::QuantizedType> type = linearQuantizedType(
      *this, node, x,
      IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned));
  if (failed(type))
    return failure();
  return bind(node, edge.quantize(locationOf(node), x, *type));
}

LogicalResult OnnxImporter::convertDequantizeLinear(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  Type element = edge::storageOrElementType(rankedTypeOf(x).getElementType());
  auto storage = dyn_cast<IntegerType>(element);
  if (!storage)
    return nodeError(node) << "dequantizes " << x.getType()
                           << "; expected an integer tensor";
  FailureOr<quant::QuantizedType> type =
      linearQuantizedType(*this, node, x, storage);
  if (failed(type))
    return failure();
  return bind(node, edge.dequantize(locationOf(node), x, *type));
}

} // namespace etch::onnx_import
