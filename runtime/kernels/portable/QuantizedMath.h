// The affine arithmetic every portable quantized kernel shares, so integer
// ops and quantize/dequantize round the same way.
#pragma once

#include <cmath>
#include <cstdint>

namespace etch::runtime::portable {

/// round_half_even(\p scaled) + \p zeroPoint saturated to [qmin, qmax], where
/// \p scaled is real / scale as the caller computes it; NaN gives qmin.
inline int64_t quantizeScaled(double scaled, int64_t zeroPoint, int64_t qmin,
                              int64_t qmax) {
  double value = std::nearbyint(scaled) + static_cast<double>(zeroPoint);
  if (std::isnan(value))
    return qmin;
  return static_cast<int64_t>(std::fmin(
      std::fmax(value, static_cast<double>(qmin)), static_cast<double>(qmax)));
}

/// (q - zeroPoint) * scale in f32, as torch's and ONNX's dequantize.
inline float dequantizeValue(int64_t q, int64_t zeroPoint, float scale) {
  return static_cast<float>(q - zeroPoint) * scale;
}

} // namespace etch::runtime::portable
