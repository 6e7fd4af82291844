// Output extent of a sliding window (convolution, pooling) along one
// dimension, ATen's formula. The one definition: the compiler's shape
// inference and the runtime's kernel validation both use it.
#pragma once

#include <cstdint>

namespace etch::runtime {

/// 0 when the window does not fit; with ceil mode the last window must start
/// inside the input or its left padding.
inline int64_t windowExtent(int64_t input, int64_t kernel, int64_t stride,
                            int64_t padding, int64_t dilation, bool ceilMode) {
  int64_t span = input + 2 * padding - dilation * (kernel - 1) - 1;
  if (span < 0 || stride <= 0)
    return 0;
  int64_t extent =
      (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceilMode && (extent - 1) * stride >= input + padding)
    --extent;
  return extent;
}

} // namespace etch::runtime
