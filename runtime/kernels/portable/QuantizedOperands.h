// What the integer convolution and linear kernels share so that the
// portable reference and the optimized kernels write identical bytes: how
// an 8-bit element is read, each output channel's weight zero point and
// scale, and how an accumulation becomes an output value.
#pragma once

#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/portable/QuantizedMath.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace etch::runtime::portable {

/// Element \p i of an 8-bit tensor as an integer.
inline int32_t loadQuantized(const TensorView &tensor, int64_t i) {
  return tensor.scalarType() == ScalarType::Int8
             ? static_cast<int32_t>(tensor.data<int8_t>()[i])
             : static_cast<int32_t>(tensor.data<uint8_t>()[i]);
}

/// Writes real results into the output: the folded activation's [min, max]
/// first, then quantization to the output's parameters.
class Requantizer {
public:
  explicit Requantizer(const KernelCall &call)
      : out(*call.outputs[0]), quant(*out.quant()),
        scale(static_cast<float>(quant.scales[0])),
        low(call.doubleAttr("min", -std::numeric_limits<double>::infinity())),
        high(call.doubleAttr("max", std::numeric_limits<double>::infinity())) {}

  /// A real value computed in double (integer accumulations).
  void store(int64_t i, double real) const {
    real = std::fmin(std::fmax(real, low), high);
    write(i, quantizeScaled(real / scale, quant.zeroPoints[0], quant.qmin,
                            quant.qmax));
  }
  /// A real value computed in f32, divided in f32: the arithmetic of a float
  /// op followed by the quantize kernel.
  void storeFloat(int64_t i, float real) const {
    real = static_cast<float>(
        std::fmin(std::fmax(static_cast<double>(real), low), high));
    write(i, quantizeScaled(real / scale, quant.zeroPoints[0], quant.qmin,
                            quant.qmax));
  }

private:
  void write(int64_t i, int64_t q) const {
    if (out.scalarType() == ScalarType::Int8)
      out.data<int8_t>()[i] = static_cast<int8_t>(q);
    else
      out.data<uint8_t>()[i] = static_cast<uint8_t>(q);
  }

  const TensorView &out;
  const QuantParams &quant;
  float scale;
  double low, high;
};

/// Per output channel: the weight's zero point and the factor turning an
/// accumulation into a real value (input scale x weight scale).
struct ChannelScale {
  int64_t zeroPoint;
  double realPerUnit;
};

inline ChannelScale channelScale(const KernelCall &call, int64_t channel) {
  const QuantParams &x = *call.inputs[0]->quant();
  const QuantParams &w = *call.inputs[1]->quant();
  int64_t c = w.axis == 0 ? channel : 0;
  return {w.zeroPoints[c], x.scales[0] * w.scales[c]};
}

inline double biasOf(const KernelCall &call, int64_t channel) {
  const TensorView *bias = call.input(2);
  return bias ? static_cast<double>(bias->data<float>()[channel]) : 0.0;
}

} // namespace etch::runtime::portable
