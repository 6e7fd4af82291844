// Quantize and dequantize: float <-> affine integer, per tensor or per axis.
// These are the reference semantics every target's quantized kernels meet.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/QuantizedMath.h"

#include <cmath>

namespace etch::runtime::portable {
namespace {

bool isQuantizedStorage(ScalarType type) {
  return type == ScalarType::Int8 || type == ScalarType::UInt8 ||
         type == ScalarType::Int16 || type == ScalarType::Int32;
}

Error checkQuantized(const KernelCall &call, const TensorView *tensor,
                     const char *what) {
  if (!tensor->quant() || !isQuantizedStorage(tensor->scalarType()))
    return kernelError(call, Error::InvalidType,
                       "%s must be a quantized int8/uint8/int16/int32 tensor",
                       what);
  return Error::Ok;
}

// Element i's position along the quantized axis selects its parameters:
// walk the tensor as [outer, axisSize, inner] blocks.
template <typename Fn>
void forEachChannel(const TensorView &quantized, Fn fn) {
  const QuantParams &quant = *quantized.quant();
  int64_t channels = 1, inner = quantized.numel();
  if (quant.axis >= 0) {
    channels = quantized.size(quant.axis);
    inner = quantized.stride(quant.axis);
  }
  int64_t block = channels * inner;
  int64_t outer = block != 0 ? quantized.numel() / block : 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      fn((o * channels + c) * inner, inner, static_cast<float>(quant.scales[c]),
         quant.zeroPoints[c]);
}

template <typename Q> void quantize(const KernelCall &call) {
  const float *in = call.inputs[0]->data<float>();
  TensorView &out = *call.outputs[0];
  Q *q = out.data<Q>();
  forEachChannel(out, [&](int64_t begin, int64_t count, float scale,
                          int64_t zeroPoint) {
    for (int64_t i = begin; i < begin + count; ++i)
      q[i] = static_cast<Q>(
          quantizeScaled(in[i] / scale, zeroPoint, out.quant()->qmin,
                         out.quant()->qmax));
  });
}

template <typename Q> void dequantize(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const Q *q = in.data<Q>();
  float *out = call.outputs[0]->data<float>();
  forEachChannel(in, [&](int64_t begin, int64_t count, float scale,
                         int64_t zeroPoint) {
    for (int64_t i = begin; i < begin + count; ++i)
      out[i] = dequantizeValue(q[i], zeroPoint, scale);
  });
}

template <template <typename> class Kernel>
void byStorage(const KernelCall &call, ScalarType storage) {
  switch (storage) {
  case ScalarType::Int8: return Kernel<int8_t>::run(call);
  case ScalarType::UInt8: return Kernel<uint8_t>::run(call);
  case ScalarType::Int16: return Kernel<int16_t>::run(call);
  default: return Kernel<int32_t>::run(call);
  }
}
template <typename Q> struct Quantize {
  static void run(const KernelCall &call) { quantize<Q>(call); }
};
template <typename Q> struct Dequantize {
  static void run(const KernelCall &call) { dequantize<Q>(call); }
};

} // namespace

Error validateQuantize(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ET_CHECK_OK(checkType(call, call.inputs[0], "input", ScalarType::Float32));
  ET_CHECK_OK(checkQuantized(call, call.outputs[0], "output"));
  return checkShape(call, call.outputs[0], "output", call.inputs[0]->sizes(),
                    call.inputs[0]->rank());
}
void runQuantize(const KernelCall &call) {
  byStorage<Quantize>(call, call.outputs[0]->scalarType());
}

Error validateDequantize(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ET_CHECK_OK(checkQuantized(call, call.inputs[0], "input"));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  return checkShape(call, call.outputs[0], "output", call.inputs[0]->sizes(),
                    call.inputs[0]->rank());
}
void runDequantize(const KernelCall &call) {
  byStorage<Dequantize>(call, call.inputs[0]->scalarType());
}

} // namespace etch::runtime::portable
