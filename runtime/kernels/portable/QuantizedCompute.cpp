// Integer convolution, linear, add and mul on 8-bit affine tensors: the
// reference for what targets' int8 kernels compute (etch-fold-quantized-ops
// makes these ops of dequantize -> op -> quantize).
#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/QuantizedMath.h"
#include "runtime/kernels/portable/QuantizedOperands.h"

#include <algorithm>
#include <limits>

namespace etch::runtime::portable {
namespace {

bool isEightBit(const TensorView &tensor) {
  return tensor.scalarType() == ScalarType::Int8 ||
         tensor.scalarType() == ScalarType::UInt8;
}

Error checkActivation(const KernelCall &call, const TensorView *tensor,
                      const char *what) {
  if (!tensor || !tensor->quant() || !isEightBit(*tensor) ||
      tensor->quant()->axis >= 0)
    return kernelError(call, Error::InvalidType,
                       "%s must be int8/uint8 quantized per tensor", what);
  return Error::Ok;
}

Error checkWeight(const KernelCall &call) {
  const TensorView *weight = call.inputs[1];
  if (!weight->quant() || !isEightBit(*weight) || weight->quant()->axis > 0)
    return kernelError(call, Error::InvalidType,
                       "weight must be int8/uint8 quantized per tensor or per "
                       "output channel (axis 0)");
  return Error::Ok;
}

/// Convolution and linear: input, weight, optional float bias, output.
Error checkWeightedOperands(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 3, 1));
  ET_CHECK_OK(checkActivation(call, call.inputs[0], "input"));
  ET_CHECK_OK(checkActivation(call, call.outputs[0], "output"));
  ET_CHECK_OK(checkWeight(call));
  const TensorView *bias = call.input(2);
  if (bias && bias->scalarType() != ScalarType::Float32)
    return kernelError(call, Error::InvalidType, "bias must be float32");
  return Error::Ok;
}

} // namespace

Error validateQuantizedConvolution(const KernelCall &call) {
  ET_CHECK_OK(checkWeightedOperands(call));
  if (call.boolAttr("transposed", false))
    return kernelError(call, Error::InvalidProgram,
                       "has no transposed form");
  return checkConvolutionShapes(call);
}

void runQuantizedConvolution(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  ConvShape s = convShape(call);
  int64_t inPerGroup = s.c / s.groups, outPerGroup = s.oc / s.groups;
  int64_t inputZero = in.quant()->zeroPoints[0];
  Requantizer requantize(call);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t oc = 0; oc < s.oc; ++oc) {
      ChannelScale wq = channelScale(call, oc);
      double bias = biasOf(call, oc);
      int64_t firstChannel = (oc / outPerGroup) * inPerGroup;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          // Padding is the real value 0, the input's zero point: it adds 0.
          int64_t acc = 0;
          TapRange ys = tapsInside(oy, s.sh, s.ph, s.dh, s.kh, s.h);
          TapRange xs = tapsInside(ox, s.sw, s.pw, s.dw, s.kw, s.w);
          for (int64_t icg = 0; icg < inPerGroup; ++icg) {
            int64_t plane = (n * s.c + firstChannel + icg) * s.h;
            int64_t kernel = (oc * inPerGroup + icg) * s.kh;
            for (int64_t ky = ys.first; ky < ys.end; ++ky) {
              int64_t y = oy * s.sh - s.ph + ky * s.dh;
              for (int64_t kx = xs.first; kx < xs.end; ++kx) {
                int64_t x = ox * s.sw - s.pw + kx * s.dw;
                acc += (loadQuantized(in, (plane + y) * s.w + x) - inputZero) *
                       (loadQuantized(weight, (kernel + ky) * s.kw + kx) -
                        wq.zeroPoint);
              }
            }
          }
          int64_t index = ((n * s.oc + oc) * s.oh + oy) * s.ow + ox;
          requantize.store(index, static_cast<double>(acc) * wq.realPerUnit + bias);
        }
    }
}

Error validateQuantizedLinear(const KernelCall &call) {
  ET_CHECK_OK(checkWeightedOperands(call));
  return checkLinearShapes(call);
}

void runQuantizedLinear(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  int64_t features = weight.size(1), outputs = weight.size(0);
  int64_t rows = features ? in.numel() / features : 0;
  int64_t inputZero = in.quant()->zeroPoints[0];
  Requantizer requantize(call);
  for (int64_t o = 0; o < outputs; ++o) {
    ChannelScale wq = channelScale(call, o);
    double bias = biasOf(call, o);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t acc = 0;
      for (int64_t k = 0; k < features; ++k)
        acc += (loadQuantized(in, r * features + k) - inputZero) *
               (loadQuantized(weight, o * features + k) - wq.zeroPoint);
      requantize.store(r * outputs + o,
                       static_cast<double>(acc) * wq.realPerUnit + bias);
    }
  }
}

Error validateQuantizedBinary(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkActivation(call, call.inputs[0], "self"));
  ET_CHECK_OK(checkActivation(call, call.inputs[1], "other"));
  ET_CHECK_OK(checkActivation(call, call.outputs[0], "output"));
  return checkBroadcastOutput(call, 0);
}

namespace {
template <typename Combine>
void runQuantizedBinary(const KernelCall &call, Combine combine) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  const QuantParams &qa = *a.quant(), &qb = *b.quant();
  auto sa = static_cast<float>(qa.scales[0]),
       sb = static_cast<float>(qb.scales[0]);
  Requantizer requantize(call);
  const TensorView *inputs[2] = {&a, &b};
  broadcastWalk(
      *call.outputs[0], inputs, 2, [&](int64_t i, const int64_t *offsets) {
        float x =
            dequantizeValue(loadQuantized(a, offsets[0]), qa.zeroPoints[0], sa);
        float y =
            dequantizeValue(loadQuantized(b, offsets[1]), qb.zeroPoints[0], sb);
        requantize.storeFloat(i, combine(x, y));
      });
}
} // namespace

void runQuantizedAdd(const KernelCall &call) {
  runQuantizedBinary(call, [](float x, float y) { return x + y; });
}

void runQuantizedMul(const KernelCall &call) {
  runQuantizedBinary(call, [](float x, float y) { return x * y; });
}

} // namespace etch::runtime::portable
