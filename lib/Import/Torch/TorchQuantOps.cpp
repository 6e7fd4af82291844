//===- TorchQuantOps.cpp - PT2E quantize/dequantize nodes -----------------===//
//
// `convert_pt2e` leaves quantized_decomposed ops around every quantized op:
// quantize_per_tensor / dequantize_per_tensor (scale and zero point as
// numbers, or as 1-element tensors in the `.tensor` overloads) and
// quantize_per_channel / dequantize_per_channel (scales and zero points as
// constant tensors, an axis). Each becomes edge.quantize / edge.dequantize
// with the parameters in a `!quant.uniform` type; int8 weights, folded to
// constants by convert_pt2e, become quantized constants.
//
//===----------------------------------------------------------------------===//
#include "TensorData.h"
#include "TorchImporter.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

/// The storage type named by the node's `dtype` argument.
FailureOr<IntegerType> storageType(TorchNode &node) {
  const TorchArgument *dtype = node.arg("dtype");
  if (!dtype || dtype->kind != TorchArgument::Kind::ScalarType ||
      !dtype->ints.front())
    return node.error() << "needs a constant 'dtype' argument";
  MLIRContext *context = node.builder().getContext();
  switch (static_cast<ScalarType>(*dtype->ints.front())) {
  case ScalarType::Char:
    return IntegerType::get(context, 8);
  case ScalarType::Byte:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case ScalarType::Short:
    return IntegerType::get(context, 16);
  case ScalarType::Int:
    return IntegerType::get(context, 32);
  default:
    return node.error() << "has quantized dtype "
                        << scalarTypeName(*dtype->ints.front())
                        << "; expected int8, uint8, int16 or int32";
  }
}

/// Argument \p name as numbers: a Python number, or a constant tensor (the
/// `.tensor` overloads, per-channel buffers). Absent or None gives
/// \p fallback (per-channel zero points may be None: all zero).
FailureOr<SmallVector<double>>
numbers(TorchNode &node, StringRef name,
        std::optional<SmallVector<double>> fallback = std::nullopt) {
  if (!node.has(name)) {
    if (fallback)
      return *fallback;
    return node.error() << "needs argument '" << name << "'";
  }
  if (std::optional<double> number = node.number(name))
    return SmallVector<double>{*number};
  if (Value tensor = node.tensor(name))
    if (std::optional<SmallVector<double>> values =
            edge::getConstantNumbers(tensor))
      return *values;
  return node.error() << "argument '" << name
                      << "' is computed at run time; only the per-tensor "
                         "'.tensor' overloads take run-time parameters";
}

/// The `!quant.uniform` type a Q/DQ node describes for \p input.
FailureOr<quant::QuantizedType> quantizedType(TorchNode &node, Value input,
                                              bool perChannel) {
  FailureOr<IntegerType> storage = storageType(node);
  if (failed(storage))
    return failure();
  FailureOr<SmallVector<double>> scales =
      numbers(node, perChannel ? "scales" : "scale");
  if (failed(scales))
    return failure();
  std::optional<SmallVector<double>> zeros;
  if (perChannel)
    zeros = SmallVector<double>(scales->size(), 0.0);
  FailureOr<SmallVector<double>> zeroPoints =
      numbers(node, perChannel ? "zero_points" : "zero_point", zeros);
  std::optional<int64_t> qmin = node.integer("quant_min");
  std::optional<int64_t> qmax = node.integer("quant_max");
  if (failed(zeroPoints))
    return failure();
  if (!qmin || !qmax)
    return node.error() << "needs constant 'quant_min' and 'quant_max'";
  std::optional<int32_t> axis;
  if (perChannel) {
    std::optional<int64_t> dim = node.integer("axis");
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    if (!dim || *dim < -rank || *dim >= rank)
      return node.error() << "needs a constant 'axis' within rank " << rank;
    axis = static_cast<int32_t>(*dim < 0 ? *dim + rank : *dim);
  }
  SmallVector<int64_t> zeroPointInts;
  for (double zeroPoint : *zeroPoints)
    zeroPointInts.push_back(static_cast<int64_t>(zeroPoint));
  quant::QuantizedType type = edge::getUniformType(
      [&] { return node.error(); }, *storage, *scales, zeroPointInts, axis, *qmin, *qmax);
  if (!type)
    return failure();
  return type;
}

/// A Q/DQ node's tensor input and the quantized type its arguments describe.
struct QuantizationNode {
  Value input;
  quant::QuantizedType type;
};

FailureOr<QuantizationNode> decode(TorchNode &node, bool perChannel) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  FailureOr<quant::QuantizedType> type =
      quantizedType(node, input, perChannel);
  if (failed(type))
    return failure();
  return QuantizationNode{input, *type};
}

/// The scale and zero point of a `.tensor` overload computed at run time
/// (dynamic quantization: choose_qparams' results); std::nullopt when they
/// are constants or the node is not such an overload.
struct RunTimeParameters {
  Value scale, zeroPoint;
};
FailureOr<std::optional<RunTimeParameters>>
runTimeParameters(TorchNode &node, bool perChannel) {
  Value scale = node.tensor("scale"), zeroPoint = node.tensor("zero_point");
  auto computed = [](Value v) { return v && !edge::getConstantNumbers(v); };
  if (perChannel || (!computed(scale) && !computed(zeroPoint)))
    return std::optional<RunTimeParameters>();
  for (auto [name, parameter] :
       {std::pair{"scale", scale}, {"zero_point", zeroPoint}}) {
    auto type =
        parameter ? dyn_cast<RankedTensorType>(parameter.getType()) : nullptr;
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1) {
      InFlightDiagnostic error = node.error();
      error << "takes 'scale' and 'zero_point' computed at run time as "
               "1-element tensors; got ";
      if (type)
        error << type;
      else
        error << "a number";
      return error << " for '" << name << "'";
    }
  }
  return std::optional<RunTimeParameters>(RunTimeParameters{scale, zeroPoint});
}

LogicalResult importQuantizeAtRunTime(TorchNode &node,
                                      const RunTimeParameters &params) {
  FailureOr<IntegerType> storage = storageType(node);
  if (failed(storage))
    return failure();
  std::optional<int64_t> qmin = node.integer("quant_min");
  std::optional<int64_t> qmax = node.integer("quant_max");
  if (!qmin || !qmax || *qmin > *qmax)
    return node.error() << "needs constant 'quant_min' <= 'quant_max'";
  return node.bind(quantizeAtRunTime(node, node.self(), params.scale,
                                     params.zeroPoint, *qmin, *qmax,
                                     *storage));
}

LogicalResult importDequantizeAtRunTime(TorchNode &node,
                                        const RunTimeParameters &params) {
  Value input = node.self();
  if (!isa<IntegerType>(getElementTypeOrSelf(input.getType())))
    return node.error() << "dequantizes " << input.getType()
                        << " with run-time parameters; expected the integer "
                           "result of a quantize";
  FailureOr<Value> result =
      dequantizeAtRunTime(node, input, params.scale, params.zeroPoint);
  FailureOr<RankedTensorType> declared = node.outputType();
  if (failed(result) || failed(declared))
    return failure();
  return node.bind(node.castTo(*result, declared->getElementType()));
}

LogicalResult importQuantize(TorchNode &node, bool perChannel) {
  FailureOr<std::optional<RunTimeParameters>> runTime =
      runTimeParameters(node, perChannel);
  if (failed(runTime))
    return failure();
  if (*runTime)
    return importQuantizeAtRunTime(node, **runTime);
  FailureOr<QuantizationNode> q = decode(node, perChannel);
  if (failed(q))
    return failure();
  FailureOr<Value> f32 = node.castTo(q->input, q->type.getExpressedType());
  if (failed(f32))
    return failure();
  return node.bind(node.edge().quantize(node.loc(), *f32, q->type));
}

LogicalResult importDequantize(TorchNode &node, bool perChannel) {
  FailureOr<std::optional<RunTimeParameters>> runTime =
      runTimeParameters(node, perChannel);
  if (failed(runTime))
    return failure();
  if (*runTime)
    return importDequantizeAtRunTime(node, **runTime);
  FailureOr<QuantizationNode> q = decode(node, perChannel);
  if (failed(q))
    return failure();
  FailureOr<Value> result = node.edge().dequantize(node.loc(), q->input, q->type);
  FailureOr<RankedTensorType> declared = node.outputType();
  if (failed(result) || failed(declared))
    return failure();
  // out_dtype (bf16/f16 models) converts the f32 result.
  return node.bind(node.castTo(*result, declared->getElementType()));
}

LogicalResult importQuantizePerTensor(TorchNode &node) {
  return importQuantize(node, /*perChannel=*/false);
}
LogicalResult importQuantizePerChannel(TorchNode &node) {
  return importQuantize(node, /*perChannel=*/true);
}
LogicalResult importDequantizePerTensor(TorchNode &node) {
  return importDequantize(node, /*perChannel=*/false);
}
LogicalResult importDequantizePerChannel(TorchNode &node) {
  return importDequantize(node, /*perChannel=*/true);
}

/// \p value (scales or zero points, any shape of rows * groups elements)
/// as [rows, groups].
FailureOr<Value> asGroupMatrix(TorchNode &node, Value value, int64_t rows,
                               int64_t groups, StringRef what) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape() || type.getNumElements() != rows * groups)
    return node.error() << "'" << what << "' must hold " << rows * groups
                        << " values (one per row and group), got "
                        << value.getType();
  if (type.getShape() == ArrayRef<int64_t>{rows, groups})
    return value;
  return node.build<edge::ViewOp>(
      value, ValueRange(), node.builder().getDenseI64ArrayAttr({rows, groups}));
}

LogicalResult importDequantizePerChannelGroup(TorchNode &node) {
  // (input, scales, zero_points?, quant_min, quant_max, dtype, group_size,
  // output_dtype): groupwise weight-only quantization, e.g. int4 in int8.
  Value input = node.self(), scales = node.tensor("scales"),
        zeroPoints = node.tensor("zero_points");
  std::optional<int64_t> qmin = node.integer("quant_min"),
                         qmax = node.integer("quant_max"),
                         group = node.integer("group_size");
  if (!input || !scales)
    return node.error() << "needs tensors 'input' and 'scales'";
  if (!qmin || !qmax || !group)
    return node.error() << "needs constant quant_min, quant_max and "
                           "group_size";
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() != 2 || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()))
    return node.error() << "dequantizes a 2-D integer tensor of static "
                           "shape, got "
                        << input.getType();
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  auto scalesType = cast<RankedTensorType>(scales.getType());
  // torch's rule for GPTQ's single column: a group past the row is the row.
  if (*group > columns && scalesType.getRank() >= 1 &&
      scalesType.getShape().back() == 1)
    *group = columns;
  if (*group <= 1 || columns % *group != 0)
    return node.error() << "group_size " << *group
                        << " must be > 1 and divide the " << columns
                        << " columns";
  FailureOr<Value> f32Scales = node.castTo(scales, node.builder().getF32Type());
  if (failed(f32Scales))
    return failure();
  FailureOr<Value> groupScales =
      asGroupMatrix(node, *f32Scales, rows, columns / *group, "scales");
  if (failed(groupScales))
    return failure();
  Value groupZeroPoints;
  if (zeroPoints) {
    if (!isa<IntegerType>(getElementTypeOrSelf(zeroPoints.getType())))
      return node.error() << "'zero_points' must be integers, got "
                          << zeroPoints.getType();
    FailureOr<Value> matrix =
        asGroupMatrix(node, zeroPoints, rows, columns / *group, "zero_points");
    if (failed(matrix))
      return failure();
    groupZeroPoints = *matrix;
  }
  Builder &b = node.builder();
  FailureOr<Value> result = node.build<edge::DequantizePerChannelGroupOp>(
      input, *groupScales, groupZeroPoints, b.getI64IntegerAttr(*group),
      b.getI64IntegerAttr(*qmin), b.getI64IntegerAttr(*qmax));
  FailureOr<RankedTensorType> declared = node.outputType();
  if (failed(result) || failed(declared))
    return failure();
  return node.bind(node.castTo(*result, declared->getElementType()));
}

} // namespace

void addQuantHandlers(TorchOpHandlers &handlers) {
  handlers["quantized_decomposed::dequantize_per_channel_group"] =
      importDequantizePerChannelGroup;
  handlers["quantized_decomposed::quantize_per_tensor"] =
      importQuantizePerTensor;
  handlers["quantized_decomposed::dequantize_per_tensor"] =
      importDequantizePerTensor;
  handlers["quantized_decomposed::quantize_per_channel"] =
      importQuantizePerChannel;
  handlers["quantized_decomposed::dequantize_per_channel"] =
      importDequantizePerChannel;
  addDynamicQuantHandlers(handlers);
}

} // namespace etch::torch_import
