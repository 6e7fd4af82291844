// Output extent of a sliding window (convolution, pooling) along one
// dimension, ATen's formula. The one definition: the compiler's shape
// inference and the runtime's kernel validation both use it.
#pragma once

#include <cstdint>

namespace etch::runtime {

/// 0 when the window does not fit or the arithmetic would overflow (sizes
/// come from files); with ceil mode the last window must start inside the
/// input or its left padding.
inline int64_t windowExtent(int64_t input, int64_t kernel, int64_t stride,
                            int64_t padding, int64_t dilation, bool ceilMode) {
  if (input < 0 || kernel <= 0 || stride <= 0 || padding < 0 || dilation <= 0)
    return 0;
  int64_t padded, reach, span;
  if (__builtin_mul_overflow(padding, 2, &padded) ||
      __builtin_add_overflow(input, padded, &padded) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) ||
      __builtin_sub_overflow(padded, reach + 1, &span) || span < 0)
    return 0;
  int64_t steps = span / stride;
  if (ceilMode && span % stride != 0 &&
      input + padding - steps * stride > stride)
    ++steps; // a partial last window that starts inside the input
  return steps + 1;
}

/// ATen's pooling rule: padding is at most half the dilated kernel extent
/// (false too when that extent overflows).
inline bool poolingPaddingFits(int64_t padding, int64_t kernel,
                               int64_t dilation) {
  int64_t reach;
  return kernel >= 1 && dilation >= 1 && padding >= 0 &&
         !__builtin_mul_overflow(dilation, kernel - 1, &reach) &&
         reach < INT64_MAX && padding <= (reach + 1) / 2;
}

/// Output extent of a transposed convolution along one dimension, ATen's
/// formula: (input - 1) * stride - 2 * padding + dilation * (kernel - 1) +
/// outputPadding + 1; 0 when the arithmetic would overflow or a size is
/// negative (a dynamic extent's marker among them).
inline int64_t transposedWindowExtent(int64_t input, int64_t kernel,
                                      int64_t stride, int64_t padding,
                                      int64_t dilation, int64_t outputPadding) {
  int64_t grown, reach, out;
  if (input < 0 || kernel < 0 || stride < 0 || padding < 0 || dilation < 0 ||
      outputPadding < 0 || __builtin_mul_overflow(input - 1, stride, &grown) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) ||
      __builtin_add_overflow(grown, reach, &out) ||
      __builtin_sub_overflow(out, padding, &out) ||
      __builtin_sub_overflow(out, padding, &out) ||
      __builtin_add_overflow(out, outputPadding, &out) ||
      __builtin_add_overflow(out, 1, &out))
    return 0;
  return out;
}

/// The kernel taps [first, end) of a window whose first tap sits at
/// position * stride - padding and whose tap k lands dilation * k further,
/// that land inside [0, extent): a convolution reads those (position an
/// output, extent the input's), a transposed one writes those (position an
/// input, extent the output's). Padding is what lies outside.
struct TapRange {
  int64_t first, end;
};
inline TapRange tapsInside(int64_t position, int64_t stride, int64_t padding,
                           int64_t dilation, int64_t kernel, int64_t extent) {
  int64_t origin = position * stride - padding, room = extent - origin;
  // Dilation 1 without the divisions: kernels call this per output row.
  auto ceilDiv = [dilation](int64_t v) {
    return dilation == 1 ? v : (v + dilation - 1) / dilation;
  };
  int64_t first = origin >= 0 ? 0 : ceilDiv(-origin);
  int64_t end = room <= 0 ? 0 : ceilDiv(room);
  first = first < kernel ? first : kernel;
  end = end < kernel ? end : kernel;
  return {first, end > first ? end : first};
}

} // namespace etch::runtime
