#include "runtime/kernels/optimized/GemmMicrokernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

#define ETCH_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

/// One row's two 8-wide sums.
struct RowSums {
  __m256 low, high;
};

/// Row r's first sums: the biases, or what c holds.
ETCH_AVX2 RowSums startRow(const GemmTile &t, int64_t r) {
  if (t.first)
    return {_mm256_loadu_ps(t.bias), _mm256_loadu_ps(t.bias + 8)};
  const float *from = t.c + std::min(r, t.rows - 1) * t.ldc;
  return {_mm256_loadu_ps(from),
          t.narrow ? _mm256_setzero_ps() : _mm256_loadu_ps(from + 8)};
}

ETCH_AVX2 void addProducts(RowSums &sums, const float *a, __m256 b0,
                           __m256 b1) {
  __m256 x = _mm256_broadcast_ss(a);
  sums.low = _mm256_fmadd_ps(x, b0, sums.low);
  sums.high = _mm256_fmadd_ps(x, b1, sums.high);
}

ETCH_AVX2 void storeRow(const GemmTile &t, int64_t r, RowSums sums) {
  if (t.last) {
    __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
    sums.low = _mm256_min_ps(_mm256_max_ps(sums.low, lo), hi);
    sums.high = _mm256_min_ps(_mm256_max_ps(sums.high, lo), hi);
  }
  if (r < t.rows) {
    _mm256_storeu_ps(t.c + r * t.ldc, sums.low);
    if (!t.narrow)
      _mm256_storeu_ps(t.c + r * t.ldc + 8, sums.high);
  }
}

} // namespace

/// The six rows' sums are six named locals, not an array: GCC keeps an
/// array of vectors in memory and stores it back at every k step.
__attribute__((target("avx2,fma"))) void
gemmMicrokernelAvx2(const GemmTile &t) {
  RowSums s0 = startRow(t, 0), s1 = startRow(t, 1), s2 = startRow(t, 2),
          s3 = startRow(t, 3), s4 = startRow(t, 4), s5 = startRow(t, 5);
  const float *const *a = t.a;
  for (int64_t s = 0; s < t.segments; ++s, a += kTileRows) {
    const int64_t o = t.aOffset;
    const float *a0 = a[0] + o, *a1 = a[1] + o, *a2 = a[2] + o,
                *a3 = a[3] + o, *a4 = a[4] + o, *a5 = a[5] + o;
    const float *w = t.b + s * t.bStride;
    for (int64_t k = 0; k < t.length; ++k, w += kTileColumns) {
      __m256 b0 = _mm256_load_ps(w), b1 = _mm256_load_ps(w + 8);
      addProducts(s0, a0 + k, b0, b1);
      addProducts(s1, a1 + k, b0, b1);
      addProducts(s2, a2 + k, b0, b1);
      addProducts(s3, a3 + k, b0, b1);
      addProducts(s4, a4 + k, b0, b1);
      addProducts(s5, a5 + k, b0, b1);
    }
  }
  storeRow(t, 0, s0);
  storeRow(t, 1, s1);
  storeRow(t, 2, s2);
  storeRow(t, 3, s3);
  storeRow(t, 4, s4);
  storeRow(t, 5, s5);
}

#undef ETCH_AVX2

namespace {

#define ETCH_AVX512 __attribute__((target("avx512f"), always_inline)) inline

/// One row's sums over the two panels.
struct PairSums {
  __m512 left, right;
};

ETCH_AVX512 PairSums loadPair(const float *left, const float *right) {
  return {_mm512_loadu_ps(left), _mm512_loadu_ps(right)};
}

ETCH_AVX512 void addPairProducts(PairSums &sums, const float *a, __m512 b0,
                                 __m512 b1) {
  __m512 x = _mm512_set1_ps(*a);
  sums.left = _mm512_fmadd_ps(x, b0, sums.left);
  sums.right = _mm512_fmadd_ps(x, b1, sums.right);
}

ETCH_AVX512 void storePair(const GemmTile &t, int64_t r, PairSums sums) {
  if (t.last) {
    // The zero-masked forms: GCC 12's _mm512_min_ps/_mm512_max_ps read an
    // undefined vector and warn that it may be uninitialized.
    constexpr __mmask16 all = 0xffff;
    __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
    sums.left =
        _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, sums.left, lo), hi);
    sums.right =
        _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, sums.right, lo), hi);
  }
  if (r < t.rows) {
    _mm512_storeu_ps(t.c + r * t.ldc, sums.left);
    _mm512_storeu_ps(t.c + r * t.ldc + kTileColumns, sums.right);
  }
}

} // namespace

/// As gemmMicrokernelAvx2, over two panels: named locals again.
__attribute__((target("avx512f"))) void
gemmMicrokernelAvx512Pair(const GemmTile &t) {
  // Row r's first sums: the biases, or what c holds (a lambda would not
  // inherit this function's target, so it only picks the addresses).
  const int64_t right = t.first ? t.bPanelStride : kTileColumns;
  auto start = [&t](int64_t r) {
    return t.first ? t.bias : t.c + std::min(r, t.rows - 1) * t.ldc;
  };
  PairSums s0 = loadPair(start(0), start(0) + right),
           s1 = loadPair(start(1), start(1) + right),
           s2 = loadPair(start(2), start(2) + right),
           s3 = loadPair(start(3), start(3) + right),
           s4 = loadPair(start(4), start(4) + right),
           s5 = loadPair(start(5), start(5) + right);
  const float *const *a = t.a;
  for (int64_t s = 0; s < t.segments; ++s, a += kTileRows) {
    const int64_t o = t.aOffset;
    const float *a0 = a[0] + o, *a1 = a[1] + o, *a2 = a[2] + o, *a3 = a[3] + o,
                *a4 = a[4] + o, *a5 = a[5] + o;
    const float *w = t.b + s * t.bStride;
    const float *v = w + t.bPanelStride;
    for (int64_t k = 0; k < t.length;
         ++k, w += kTileColumns, v += kTileColumns) {
      __m512 b0 = _mm512_loadu_ps(w), b1 = _mm512_loadu_ps(v);
      addPairProducts(s0, a0 + k, b0, b1);
      addPairProducts(s1, a1 + k, b0, b1);
      addPairProducts(s2, a2 + k, b0, b1);
      addPairProducts(s3, a3 + k, b0, b1);
      addPairProducts(s4, a4 + k, b0, b1);
      addPairProducts(s5, a5 + k, b0, b1);
    }
  }
  storePair(t, 0, s0);
  storePair(t, 1, s1);
  storePair(t, 2, s2);
  storePair(t, 3, s3);
  storePair(t, 4, s4);
  storePair(t, 5, s5);
}

#undef ETCH_AVX512

void gemmMicrokernelScalar(const GemmTile &t) {
  const int64_t columns = t.narrow ? kTileColumns / 2 : kTileColumns;
  float acc[kTileRows][kTileColumns] = {};
  for (int64_t r = 0; r < kTileRows; ++r)
    std::memcpy(acc[r],
                t.first ? t.bias : t.c + std::min(r, t.rows - 1) * t.ldc,
                (t.first ? kTileColumns : columns) * sizeof(float));
  for (int64_t s = 0; s < t.segments; ++s) {
    const float *w = t.b + s * t.bStride;
    for (int64_t k = 0; k < t.length; ++k, w += kTileColumns)
      for (int64_t r = 0; r < kTileRows; ++r) {
        float x = t.a[s * kTileRows + r][t.aOffset + k];
        for (int64_t j = 0; j < kTileColumns; ++j)
          acc[r][j] += x * w[j];
      }
  }
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t j = 0; j < columns; ++j)
      t.c[r * t.ldc + j] =
          t.last ? std::min(std::max(acc[r][j], t.lo), t.hi) : acc[r][j];
}

} // namespace etch::runtime::optimized
