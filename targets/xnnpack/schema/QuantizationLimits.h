// The scale ratios XNNPACK (2022) accepts in its int8 operators, computed in
// f32 as XNNPACK computes them. Outside them some operators return an error
// and others fail an assertion (Debian builds XNNPACK with its asserts on),
// so the compiler claims only int8 nodes within them and the runtime refuses
// blobs with others.
#pragma once

#include <cstdint>

namespace etch::xnnpack {

inline bool scaleWithin(float value, float low, float high) {
  return value >= low && value < high;
}

/// Convolution, depthwise convolution and fully connected, per output
/// channel: the requantization scale input * filter / output.
inline bool convolutionScalesSupported(float input, float filter,
                                       float output) {
  return scaleWithin(input * filter / output, 0x1p-32f, 256.0f);
}

/// Add and subtract: each input's scale over the output's.
inline bool addScalesSupported(float a, float b, float output) {
  return scaleWithin(a / output, 0x1p-10f, 0x1p8f) &&
         scaleWithin(b / output, 0x1p-10f, 0x1p8f);
}

/// Multiply: the product of the input scales over the output's.
inline bool multiplyScalesSupported(float a, float b, float output) {
  return scaleWithin(a * b / output, 0x1p-16f, 0x1p8f);
}

/// Global average pooling over \p pixels values: the input-to-output ratio,
/// and that ratio over the pixel count (its requantization scale). XNNPACK
/// sums the zero points of a pooling window in int32: at most 2^24 pixels.
inline bool globalAveragePoolingScalesSupported(float input, float output,
                                                uint64_t pixels) {
  return scaleWithin(input / output, 0x1p-8f, 0x1p8f) && pixels &&
         pixels <= (uint64_t(1) << 24) &&
         input / (output * static_cast<float>(pixels)) >= 0x1p-32f;
}

} // namespace etch::xnnpack
