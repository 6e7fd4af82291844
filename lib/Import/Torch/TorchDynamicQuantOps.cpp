//===- TorchDynamicQuantOps.cpp - PT2E dynamic quantization ---------------===//
//
// Dynamic quantization (XNNPACKQuantizer with is_dynamic=True) chooses an
// activation's scale and zero point at run time: choose_qparams.tensor (or
// choose_qparams_symmetric.tensor) reads the tensor's min and max, and the
// `.tensor` quantize/dequantize overloads take the results. Edge types carry
// only constant parameters, so these nodes become the float formulas torch
// itself evaluates (torch.ao.quantization.fx._decomposed and
// utils.determine_qparams); every step rounds as torch's does, so the
// imported program reproduces torch's values bit for bit.
//
//===----------------------------------------------------------------------===//
#include "Formula.h"
#include "TensorData.h"
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

/// torch's _DTYPE_TO_QVALUE_BOUNDS: the dtypes dynamic quantization takes.
std::optional<ScalarType> quantizedDtype(TorchNode &node) {
  const TorchArgument *dtype = node.arg("dtype");
  if (!dtype || dtype->kind != TorchArgument::Kind::ScalarType ||
      !dtype->ints.front())
    return std::nullopt;
  auto type = static_cast<ScalarType>(*dtype->ints.front());
  switch (type) {
  case ScalarType::Char:
  case ScalarType::Byte:
  case ScalarType::Short:
  case ScalarType::Int:
    return type;
  default:
    return std::nullopt;
  }
}

/// choose_qparams(_symmetric).tensor(input, quant_min, quant_max, eps, dtype) ->
/// (scale f64[1], zero_point i64[1]), as determine_qparams computes them:
/// the range is widened to hold 0, the scale is at least eps (an f32), and
/// the affine zero point is rounded and clamped into [qmin, qmax].
LogicalResult importChooseQparams(TorchNode &node, bool symmetric) {
  Value input = node.self();
  std::optional<int64_t> qmin = node.integer("quant_min");
  std::optional<int64_t> qmax = node.integer("quant_max");
  std::optional<double> eps = node.number("eps");
  std::optional<ScalarType> dtype = quantizedDtype(node);
  if (!input || !isa<FloatType>(getElementTypeOrSelf(input.getType())))
    return node.error() << "needs a float tensor input";
  if (!qmin || !qmax || !eps || *qmin >= *qmax)
    return node.error()
           << "needs constant 'quant_min' < 'quant_max' and a constant 'eps'";
  if (!dtype)
    return node.error()
           << "needs a constant 'dtype' of int8, uint8, int16 or int32";
  Formula f(node);
  Value x = f.cast(input, f.float32());
  // torch.min(min_val, 0) and torch.max(max_val, 0).
  Value minNeg = f.clamp(f.wholeTensorMin(x), std::nullopt, 0.0);
  Value maxPos = f.clamp(f.wholeTensorMax(x), 0.0, std::nullopt);
  auto range = static_cast<double>(*qmax - *qmin);
  Value scale, zeroPoint;
  if (symmetric) {
    scale = f.div(f.maximum(f.neg(minNeg), maxPos),
                  f.constant(f.float32(), range / 2));
    bool unsigned8 = *dtype == ScalarType::Byte;
    zeroPoint = f.constant(f.float32(), unsigned8 ? 128.0 : 0.0);
  } else {
    scale = f.div(f.sub(maxPos, minNeg), f.constant(f.float32(), range));
  }
  // torch.max(scale, torch.Tensor([eps])): eps as an f32.
  scale = f.clamp(scale, static_cast<double>(static_cast<float>(*eps)),
                  std::nullopt);
  if (!symmetric)
    zeroPoint =
        f.clamp(f.sub(f.constant(f.float32(), static_cast<double>(*qmin)),
                      f.round(f.div(minNeg, scale))),
                static_cast<double>(*qmin), static_cast<double>(*qmax));
  MLIRContext *context = node.builder().getContext();
  Value scaleOut = f.cast(f.reshape(scale, {1}), Float64Type::get(context));
  Value zeroPointOut =
      f.cast(f.reshape(zeroPoint, {1}), IntegerType::get(context, 64));
  if (!scaleOut || !zeroPointOut)
    return failure();
  return node.bindEach({scaleOut, zeroPointOut});
}

LogicalResult importChooseQparamsAffine(TorchNode &node) {
  return importChooseQparams(node, /*symmetric=*/false);
}
LogicalResult importChooseQparamsSymmetric(TorchNode &node) {
  return importChooseQparams(node, /*symmetric=*/true);
}

} // namespace

FailureOr<Value> quantizeAtRunTime(TorchNode &node, Value input, Value scale,
                                   Value zeroPoint, int64_t qmin, int64_t qmax,
                                   IntegerType storage) {
  // clamp(round(input * (1.0 / scale)) + zero_point, qmin, qmax).to(dtype)
  Formula f(node);
  Value inverse =
      f.div(f.constant(f.float32(), 1.0), f.cast(scale, f.float32()));
  Value q = f.add(f.round(f.mul(f.cast(input, f.float32()), inverse)),
                  f.cast(zeroPoint, f.float32()));
  q = f.clamp(q, static_cast<double>(qmin), static_cast<double>(qmax));
  Value result = f.cast(q, storage);
  if (!result)
    return failure();
  return result;
}

FailureOr<Value> dequantizeAtRunTime(TorchNode &node, Value input, Value scale,
                                     Value zeroPoint) {
  // (input.to(float32) - zero_point) * scale
  Formula f(node);
  Value result = f.mul(f.sub(f.cast(input, f.float32()),
                             f.cast(zeroPoint, f.float32())),
                       f.cast(scale, f.float32()));
  if (!result)
    return failure();
  return result;
}

void addDynamicQuantHandlers(TorchOpHandlers &handlers) {
  handlers["quantized_decomposed::choose_qparams"] = importChooseQparamsAffine;
  handlers["quantized_decomposed::choose_qparams_symmetric"] =
      importChooseQparamsSymmetric;
}

} // namespace etch::torch_import
