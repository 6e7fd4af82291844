// The sliding 2-D blocks that im2col (F.unfold) lays out as columns and
// col2im (F.fold) sums back, ATen's rule: C * kh * kw rows, one column per
// window. The one definition: the Edge dialect's shape inference and the
// portable kernels' validation both use it, as they do WindowExtent.h.
#pragma once

#include "runtime/core/WindowExtent.h"

#include <cstdint>

namespace etch::runtime {

/// The window im2col and col2im share, (H, W) each.
struct PatchWindow {
  int64_t kernel[2], dilation[2], padding[2], stride[2];
};

/// Taps of one window (kh * kw); 0 when a kernel size is not positive or the
/// product overflows.
inline int64_t patchTaps(const PatchWindow &window) {
  int64_t taps;
  if (window.kernel[0] <= 0 || window.kernel[1] <= 0 ||
      __builtin_mul_overflow(window.kernel[0], window.kernel[1], &taps))
    return 0;
  return taps;
}

/// Windows along dim \p i (0: H, 1: W) of an image extent, 0 when none fits.
inline int64_t patchBlocksAlong(const PatchWindow &window, int i,
                                int64_t extent) {
  return windowExtent(extent, window.kernel[i], window.stride[i],
                      window.padding[i], window.dilation[i], false);
}

/// Windows over an image of \p height x \p width (the columns' count L); 0
/// when a parameter is out of range, no window fits or the count overflows.
/// ATen takes dilation and stride positive and padding non-negative.
inline int64_t patchBlocks(const PatchWindow &window, int64_t height,
                           int64_t width) {
  int64_t image[2] = {height, width}, blocks = 1;
  for (int i = 0; i < 2; ++i) {
    int64_t count = patchBlocksAlong(window, i, image[i]);
    if (count <= 0 || __builtin_mul_overflow(blocks, count, &blocks))
      return 0;
  }
  return blocks;
}

} // namespace etch::runtime
