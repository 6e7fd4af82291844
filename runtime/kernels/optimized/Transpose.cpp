#include "runtime/kernels/optimized/Transpose.h"

#include <algorithm>

namespace etch::runtime::optimized {
namespace {

// 16 x 16 4-byte elements: one cache line per tile row on both sides.
constexpr int64_t kTile = 16;

template <typename T>
void transposeTiles(const T *in, T *out, int64_t batch, int64_t rows,
                    int64_t cols) {
  for (int64_t b = 0; b < batch; ++b) {
    const T *src = in + b * rows * cols;
    T *dst = out + b * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        int64_t rEnd = std::min(rows, r0 + kTile),
                cEnd = std::min(cols, c0 + kTile);
        for (int64_t c = c0; c < cEnd; ++c)
          for (int64_t r = r0; r < rEnd; ++r)
            dst[c * rows + r] = src[r * cols + c];
      }
  }
}

} // namespace

bool transposeBatched(const void *in, void *out, int64_t batch, int64_t rows,
                      int64_t cols, size_t elementBytes) {
  switch (elementBytes) {
  case 1:
    transposeTiles(static_cast<const uint8_t *>(in), static_cast<uint8_t *>(out),
                   batch, rows, cols);
    return true;
  case 2:
    transposeTiles(static_cast<const uint16_t *>(in),
                   static_cast<uint16_t *>(out), batch, rows, cols);
    return true;
  case 4:
    transposeTiles(static_cast<const uint32_t *>(in),
                   static_cast<uint32_t *>(out), batch, rows, cols);
    return true;
  case 8:
    transposeTiles(static_cast<const uint64_t *>(in),
                   static_cast<uint64_t *>(out), batch, rows, cols);
    return true;
  default:
    return false;
  }
}

} // namespace etch::runtime::optimized
