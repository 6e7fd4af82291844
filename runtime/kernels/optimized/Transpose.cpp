#include "runtime/kernels/optimized/Transpose.h"
#include "runtime/kernels/optimized/CpuFeatures.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

// 16 x 16 4-byte elements: one cache line per tile row on both sides.
constexpr int64_t kTile = 16;

/// dst[c][r] = src[r][c] over rows [r0, r1) and cols [c0, c1).
template <typename T>
void transposeScalar(const T *src, T *dst, int64_t rows, int64_t cols,
                     int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = r0; r < r1; ++r)
      dst[c * rows + r] = src[r * cols + c];
}

template <typename T>
void transposeTiles(const T *in, T *out, int64_t batch, int64_t rows,
                    int64_t cols) {
  for (int64_t b = 0; b < batch; ++b) {
    const T *src = in + b * rows * cols;
    T *dst = out + b * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        transposeScalar(src, dst, rows, cols, r0, std::min(rows, r0 + kTile),
                        c0, std::min(cols, c0 + kTile));
  }
}

/// An 8 x 8 block of 4-byte elements through registers: pairs of rows
/// interleave, then quads, then the 128-bit halves swap.
__attribute__((target("avx2"))) void block8x8(const float *src, int64_t cols,
                                              float *dst, int64_t rows) {
  __m256 r[8], t[8], s[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(src + i * cols);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    s[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * rows, _mm256_permute2f128_ps(s[i], s[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * rows,
                     _mm256_permute2f128_ps(s[i], s[i + 4], 0x31));
  }
}

/// 4-byte elements in kTile x kTile tiles of 8 x 8 register blocks; the
/// ragged edges element by element.
__attribute__((target("avx2"))) void
transposeAvx2(const uint32_t *in, uint32_t *out, int64_t batch, int64_t rows,
              int64_t cols) {
  int64_t fullRows = rows / 8 * 8, fullCols = cols / 8 * 8;
  for (int64_t b = 0; b < batch; ++b) {
    const float *src = reinterpret_cast<const float *>(in + b * rows * cols);
    float *dst = reinterpret_cast<float *>(out + b * rows * cols);
    for (int64_t r0 = 0; r0 < fullRows; r0 += kTile)
      for (int64_t c0 = 0; c0 < fullCols; c0 += kTile)
        for (int64_t r = r0; r < std::min(fullRows, r0 + kTile); r += 8)
          for (int64_t c = c0; c < std::min(fullCols, c0 + kTile); c += 8)
            block8x8(src + r * cols + c, cols, dst + c * rows + r, rows);
    transposeScalar(src, dst, rows, cols, 0, fullRows, fullCols, cols);
    transposeScalar(src, dst, rows, cols, fullRows, rows, 0, cols);
  }
}

/// The tiles of \p elementBytes elements, 4-byte ones through AVX2 blocks
/// when \p avx2; false for other element sizes.
bool transposeOn(bool avx2, const void *in, void *out, int64_t batch,
                 int64_t rows, int64_t cols, size_t elementBytes) {
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
    if (avx2)
      transposeAvx2(static_cast<const uint32_t *>(in),
                    static_cast<uint32_t *>(out), batch, rows, cols);
    else
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

} // namespace

bool transposeBatchedWith(const char *isa, const void *in, void *out,
                          int64_t batch, int64_t rows, int64_t cols,
                          size_t elementBytes) {
  bool avx2 = std::strcmp(isa, "avx2") == 0;
  if (!cpuHasIsa(isa) || (avx2 && elementBytes != 4) ||
      (!avx2 && std::strcmp(isa, "scalar") != 0))
    return false;
  return transposeOn(avx2, in, out, batch, rows, cols, elementBytes);
}

bool transposeBatched(const void *in, void *out, int64_t batch, int64_t rows,
                      int64_t cols, size_t elementBytes) {
  // Read once: this runs at every delegate border.
  static const bool avx2 = cpuHasIsa("avx2");
  return transposeOn(avx2, in, out, batch, rows, cols, elementBytes);
}

} // namespace etch::runtime::optimized
