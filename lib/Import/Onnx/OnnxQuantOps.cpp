//===- OnnxQuantOps.cpp - QuantizeLinear / DequantizeLinear ---------------===//
//
// QDQ models (onnxruntime's quantize_static writes them) wrap each quantized
// op in DequantizeLinear -> op -> QuantizeLinear. Each becomes edge.quantize
// / edge.dequantize with the parameters in a `!quant.uniform` type; int8
// weight and int32 bias initializers become quantized constants.
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"
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

/// A per-channel \p value (1-D with more than one entry) viewed to
/// broadcast along dim \p axis of a rank-\p rank tensor; per-tensor values
/// as they are.
Value perChannel(Compose &c, Value value, int64_t rank, int64_t axis) {
  RankedTensorType type = value ? c.typeOf(value) : RankedTensorType();
  if (!type || type.getRank() != 1 || type.getDimSize(0) == 1)
    return value;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  return c.view(value, shape);
}

/// \p value per tensor, or per channel along the node's `axis` of \p x.
Value alongAxis(Compose &c, Value x, Value value) {
  int64_t rank = c.typeOf(x).getRank();
  if (rank < 2)
    return value;
  int64_t axis = c.importer.intAttr(c.node, "axis", 1);
  return perChannel(c, value, rank, axis < 0 ? axis + rank : axis);
}

/// QuantizeLinear's arithmetic for a scale computed at run time (no QDQ
/// type can hold it): clamp(round_half_even(x / scale) + zero_point) in the
/// storage range, cast to the storage type; scale and zero point per tensor
/// or per axis.
LogicalResult quantizeComputed(Compose &c, Value x, Value scale,
                               Value zeroPoint, IntegerType storage) {
  Type element = c.typeOf(x).getElementType();
  Value scaled =
      c.op<edge::DivOp>({x, alongAxis(c, x, c.cast(scale, element))});
  Value shifted = c.op<edge::RoundOp>({scaled});
  if (zeroPoint)
    shifted = c.op<edge::AddOp>(
        {shifted, alongAxis(c, x, c.cast(zeroPoint, element))});
  auto [low, high] = storageRange(storage);
  Value clamped = c.op<edge::ClampOp>(
      {shifted}, {c.attr("min", static_cast<double>(low)),
                  c.attr("max", static_cast<double>(high))});
  return c.bind(c.cast(clamped, storage));
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
  if (!constantInput(node, 1) && hasInput(node, 1)) {
    if (intAttr(node, "block_size", 0) != 0)
      return nodeError(node) << "blocked quantization (block_size) is not "
                                "supported";
    Compose c(*this, node);
    Value scale = input(node, 1);
    Value zeroPoint = hasInput(node, 2) ? input(node, 2) : Value();
    if (!scale || (hasInput(node, 2) && !zeroPoint))
      return failure();
    auto storage =
        zeroPoint
            ? dyn_cast<IntegerType>(rankedTypeOf(zeroPoint).getElementType())
            : IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
    if (!storage || storage.getWidth() > 32)
      return nodeError(node) << "zero point must be an integer tensor of at "
                                "most 32 bits";
    return quantizeComputed(c, x, scale, zeroPoint, storage);
  }
  // Without a zero point, QuantizeLinear produces uint8 (opset 13).
  FailureOr<quant::QuantizedType> type = linearQuantizedType(
      *this, node, x,
      IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned));
  if (failed(type))
    return failure();
  return bind(node, edge.quantize(locationOf(node), x, *type));
}

/// DynamicQuantizeLinear: uint8 with the scale and zero point of x's range
/// widened to include 0, ONNX's formulas: scale = (max - min) / 255,
/// zero point = round(clamp(-min / scale, 0, 255)).
LogicalResult OnnxImporter::convertDynamicQuantizeLinear(const OnnxNode &node) {
  Compose c(*this, node);
  Value x = input(node, 0);
  if (!x)
    return failure();
  if (!rankedTypeOf(x).getElementType().isF32())
    return nodeError(node) << "takes float32, got " << x.getType();
  Value low =
      c.op<edge::MinimumOp>({c.op<edge::AminOp>({x}), c.scalar(x, 0.0)});
  Value high =
      c.op<edge::MaximumOp>({c.op<edge::AmaxOp>({x}), c.scalar(x, 0.0)});
  Value scale =
      c.op<edge::DivOp>({c.op<edge::SubOp>({high, low}), c.scalar(x, 255.0)});
  Value zero = c.op<edge::RoundOp>({c.op<edge::ClampOp>(
      {c.op<edge::NegOp>({c.op<edge::DivOp>({low, scale})})},
      {c.attr("min", 0.0), c.attr("max", 255.0)})});
  auto uint8 = IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
  Value zeroPoint = c.cast(zero, uint8);
  if (!zeroPoint)
    return failure();
  if (failed(quantizeComputed(c, x, scale, zeroPoint, uint8)))
    return failure();
  if (failed(c.bind(scale, 1)))
    return failure();
  return c.bind(zeroPoint, 2);
}

LogicalResult OnnxImporter::convertDequantizeLinear(const OnnxNode &node) {
  Value x = input(node, 0);
  if (!x)
    return failure();
  // An integer tensor that no quantize made and no constant holds (a graph
  // input, a computed value), or a scale computed at run time: the
  // arithmetic, (x - zero_point) * scale, in the scale's type.
  Type element = edge::storageOrElementType(rankedTypeOf(x).getElementType());
  auto storage = dyn_cast<IntegerType>(element);
  if (!storage)
    return nodeError(node) << "dequantizes " << x.getType()
                           << "; expected an integer tensor";
  bool plainInteger = !edge::isQuantized(rankedTypeOf(x)) &&
                      !x.getDefiningOp<edge::ConstantOp>();
  if (hasInput(node, 1) && (plainInteger || !constantInput(node, 1))) {
    if (intAttr(node, "block_size", 0) != 0)
      return nodeError(node) << "blocked quantization (block_size) is not "
                                "supported";
    Compose c(*this, node);
    Value scale = input(node, 1);
    if (!scale)
      return failure();
    Type real = rankedTypeOf(scale).getElementType();
    Value shifted = c.cast(x, real);
    if (hasInput(node, 2)) {
      Value zeroPoint = input(node, 2);
      if (!zeroPoint)
        return failure();
      shifted = c.op<edge::SubOp>(
          {shifted, alongAxis(c, x, c.cast(zeroPoint, real))});
    }
    return c.bind(c.op<edge::MulOp>({shifted, alongAxis(c, x, scale)}));
  }
  FailureOr<quant::QuantizedType> type =
      linearQuantizedType(*this, node, x, storage);
  if (failed(type))
    return failure();
  return bind(node, edge.dequantize(locationOf(node), x, *type));
}

} // namespace etch::onnx_import

namespace etch::onnx_import {

/// \p value (integer) in float64 less its zero point \p zeroPoint (absent:
/// 0); a zero point with one entry per channel is viewed along dim \p axis.
/// Integer products of such values are exact in double.
static Value centered(Compose &c, Value value, Value zeroPoint, int64_t axis) {
  Type f64 = Float64Type::get(c.importer.builder.getContext());
  Value wide = c.cast(value, f64);
  if (!zeroPoint)
    return wide;
  Value offset =
      perChannel(c, c.cast(zeroPoint, f64), c.typeOf(value).getRank(), axis);
  return c.op<edge::SubOp>({wide, offset});
}

/// The float64 product of two centered operands through the Conv or MatMul
/// converter (every window attribute and rank rule of theirs), as a node
/// reading them under fresh names.
FailureOr<Value> OnnxImporter::exactProduct(const OnnxNode &node,
                                            StringRef opType, Value a,
                                            Value b) {
  if (!a || !b)
    return failure();
  OnnxNode product = node;
  product.opType = opType.str();
  product.inputs = {node.outputs.front() + "#a", node.outputs.front() + "#b"};
  product.outputs = {node.outputs.front() + "#product"};
  for (const char *name :
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    if (opType != "Conv")
      product.attributes.erase(name);
  values[product.inputs[0]] = a;
  values[product.inputs[1]] = b;
  LogicalResult converted =
      opType == "Conv" ? convertConv(product) : convertMatMul(product);
  if (failed(converted))
    return failure();
  return values.lookup(product.outputs[0]);
}

/// ConvInteger, MatMulInteger (int32 results) and QLinearConv,
/// QLinearMatMul (requantized): the integer product computed exactly in
/// float64, then cast, or scaled by x_scale * w_scale / y_scale (float32, as
/// onnxruntime multiplies) and rounded half to even onto the output's zero
/// point and storage range.
LogicalResult OnnxImporter::convertIntegerProduct(const OnnxNode &node) {
  Compose c(*this, node);
  bool linear = node.opType.rfind("QLinear", 0) == 0;
  bool conv = node.opType.find("Conv") != std::string::npos;
  // Operand positions: (a, a_zp, b, b_zp) for the integer ops, (a, a_scale,
  // a_zp, b, b_scale, b_zp, y_scale, y_zp, [bias]) for the QLinear ones.
  size_t aAt = 0, aZeroAt = linear ? 2 : 2, bAt = linear ? 3 : 1,
         bZeroAt = linear ? 5 : 3;
  auto optional = [&](size_t index) {
    return hasInput(node, index) ? input(node, index) : Value();
  };
  Value a = input(node, aAt), b = input(node, bAt);
  if (!a || !b)
    return failure();
  // A per-channel weight zero point runs along the output channels: dim 0
  // of a convolution's weight, the last dim of a matmul's right operand.
  int64_t weightAxis = conv ? 0 : rankedTypeOf(b).getRank() - 1;
  FailureOr<Value> product = exactProduct(
      node, conv ? "Conv" : "MatMul", centered(c, a, optional(aZeroAt), 0),
      centered(c, b, optional(bZeroAt), weightAxis));
  if (failed(product))
    return failure();
  Value accumulated = *product;
  if (linear && conv && hasInput(node, 8)) {
    Value bias = input(node, 8);
    if (!bias)
      return failure();
    SmallVector<int64_t> shape(rankedTypeOf(accumulated).getRank(), 1);
    shape[1] = rankedTypeOf(bias).getNumElements();
    accumulated = c.op<edge::AddOp>(
        {accumulated,
         c.view(c.cast(bias, rankedTypeOf(accumulated).getElementType()),
                shape)});
  }
  if (!linear)
    return c.bind(c.cast(accumulated, builder.getI32Type()));

  Value xScale = input(node, 1), wScale = input(node, 4),
        yScale = input(node, 6), yZero = optional(7);
  if (!xScale || !wScale || !yScale)
    return failure();
  Type f32 = builder.getF32Type();
  // The weight scale is per tensor or per output channel.
  int64_t outRank = rankedTypeOf(accumulated).getRank();
  Value weightScale = perChannel(c, wScale, outRank, conv ? 1 : outRank - 1);
  Value multiplier = c.op<edge::DivOp>(
      {c.op<edge::MulOp>({c.cast(xScale, f32), c.cast(weightScale, f32)}),
       c.cast(yScale, f32)});
  Value scaled = c.op<edge::RoundOp>(
      {c.op<edge::MulOp>({c.cast(accumulated, f32), multiplier})});
  IntegerType storage =
      yZero ? dyn_cast<IntegerType>(rankedTypeOf(yZero).getElementType())
            : IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
  if (!storage || storage.getWidth() > 16)
    return nodeError(node) << "y_zero_point must be an 8- or 16-bit integer";
  if (yZero)
    scaled = c.op<edge::AddOp>({scaled, c.cast(yZero, f32)});
  auto [low, high] = storageRange(storage);
  return c.bind(c.cast(
      c.op<edge::ClampOp>({scaled}, {c.attr("min", static_cast<double>(low)),
                                     c.attr("max", static_cast<double>(high))}),
      storage));
}

} // namespace etch::onnx_import
