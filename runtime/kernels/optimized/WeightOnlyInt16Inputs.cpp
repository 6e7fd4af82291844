// weight_only_linear of int8 tables on 16-bit integer products (AVX2): each
// input row is quantized per 32-column block to int16 (scale max|x| /
// 32767, round to nearest even: 15 bits, each input within 1.5e-5 of its
// block's largest), then vpmaddwd multiplies 16 widened weights by 16
// inputs and adds pairs in 32 bits (at most 4 * 128 * 32767 per lane per
// block: no overflow). A block's integer sum becomes float once, scaled by
// its input scale; a group's by its weight scale. Against the float-input
// path this halves the widening work per weight (bytes to 16-bit lanes,
// not 32-bit floats) and drops the int-to-float conversions per weight:
// decode of int8 tables is bound by that work on AVX2, not by memory.
// Taken for groups of whole 32-column blocks and no zero points.
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/WeightOnly.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized::weight_only {
namespace {

constexpr int64_t kBlock = 32;
// Quantized input rows on the caller's stack: 64 KiB of values.
constexpr int64_t kScratchValues = 32768;

/// One quantized input row: values[columns], scales[columns / kBlock].
struct QuantizedRow {
  const int16_t *values;
  const float *scales;
};

/// Quantizes \p x (columns, a multiple of kBlock) per block.
__attribute__((target("avx2,fma"))) void
quantizeRow(int64_t columns, const float *x, int16_t *values, float *scales) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (int64_t b = 0; b < columns / kBlock; ++b) {
    const float *block = x + b * kBlock;
    __m256 v[4];
    __m256 largest = _mm256_setzero_ps();
    for (int q = 0; q < 4; ++q) {
      v[q] = _mm256_loadu_ps(block + 8 * q);
      largest = _mm256_max_ps(largest, _mm256_andnot_ps(sign, v[q]));
    }
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(largest),
                          _mm256_extractf128_ps(largest, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    float top = _mm_cvtss_f32(m);
    __m256 inverse = _mm256_set1_ps(top > 0 ? 32767.0f / top : 0.0f);
    for (int h = 0; h < 2; ++h) {
      __m256i words = _mm256_packs_epi32(
          _mm256_cvtps_epi32(_mm256_mul_ps(v[2 * h], inverse)),
          _mm256_cvtps_epi32(_mm256_mul_ps(v[2 * h + 1], inverse)));
      // packs works per 128-bit lane: put the quarters back in order.
      _mm256_storeu_si256(
          reinterpret_cast<__m256i *>(values + b * kBlock + 16 * h),
          _mm256_permute4x64_epi64(words, 0xD8));
    }
    scales[b] = top / 32767.0f;
  }
}

/// Rows n..n+R-1 against M quantized inputs: scaled dot products in
/// out[r * M + i]. Two weight rows at once for one input row (a decode
/// step): the input blocks are loaded once for both, and the per-call
/// work (reductions, the call itself) is shared; K = 512 rows spent a third
/// of their time there one at a time.
template <int M, int R>
__attribute__((target("avx2,fma"))) void
dots(const Weights &w, int64_t n, const QuantizedRow *inputs, float *out) {
  const int64_t blocksPerGroup = w.group / kBlock;
  __m256 total[R][M];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < M; ++i)
      total[r][i] = _mm256_setzero_ps();
  for (int64_t g = 0; g < w.groups; ++g) {
    __m256 sums[R][M];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < M; ++i)
        sums[r][i] = _mm256_setzero_ps();
    for (int64_t k = 0; k < blocksPerGroup; ++k) {
      int64_t b = g * blocksPerGroup + k, p = b * kBlock;
      __m256i low[R], high[R];
      for (int r = 0; r < R; ++r) {
        const uint8_t *row = w.row(n + r);
        low[r] = _mm256_cvtepi8_epi16(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p)));
        high[r] = _mm256_cvtepi8_epi16(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p + 16)));
      }
      for (int i = 0; i < M; ++i) {
        const int16_t *xs = inputs[i].values + p;
        __m256i xLow =
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(xs));
        __m256i xHigh =
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(xs + 16));
        __m256 scale = _mm256_broadcast_ss(inputs[i].scales + b);
        for (int r = 0; r < R; ++r) {
          __m256i products =
              _mm256_add_epi32(_mm256_madd_epi16(low[r], xLow),
                               _mm256_madd_epi16(high[r], xHigh));
          sums[r][i] =
              _mm256_fmadd_ps(_mm256_cvtepi32_ps(products), scale, sums[r][i]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      __m256 scale = _mm256_broadcast_ss(w.scales + (n + r) * w.groups + g);
      for (int i = 0; i < M; ++i)
        total[r][i] = _mm256_fmadd_ps(sums[r][i], scale, total[r][i]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < M; ++i) {
      __m128 q = _mm_add_ps(_mm256_castps256_ps128(total[r][i]),
                            _mm256_extractf128_ps(total[r][i], 1));
      q = _mm_add_ps(q, _mm_movehl_ps(q, q));
      q = _mm_add_ss(q, _mm_movehdup_ps(q));
      out[r * M + i] = _mm_cvtss_f32(q);
    }
}

using DotsFn = void (*)(const Weights &, int64_t, const QuantizedRow *,
                        float *);
const DotsFn kDots[kRegisterRows + 1] = {nullptr, dots<1, 1>, dots<2, 1>,
                                         dots<3, 1>, dots<4, 1>};

} // namespace

bool decodeWithInt16Inputs(const char *isa, const Weights &w, int64_t m,
                           const float *x, float *y) {
  if (std::strcmp(isa, "avx2") != 0 || !cpuHasIsa(isa) || w.bits != 8 ||
      w.zeroPoints || w.group % kBlock != 0 || w.columns > kScratchValues)
    return false;
  alignas(32) int16_t values[kScratchValues];
  float scales[kScratchValues / kBlock];
  QuantizedRow rows[kMaxBlockRows];
  int64_t blockRows =
      std::clamp<int64_t>(kScratchValues / w.columns, 1, kMaxBlockRows);
  auto prepare = [&](int64_t first, int64_t count) -> const float * {
    for (int64_t i = 0; i < count; ++i) {
      rows[i] = {values + i * w.columns, scales + i * (w.columns / kBlock)};
      quantizeRow(w.columns, x + (first + i) * w.columns,
                  values + i * w.columns, scales + i * (w.columns / kBlock));
    }
    return nullptr;
  };
  // One weight row at a time (see WeightOnlyInt8Inputs.cpp).
  auto rowDots = [&](int64_t n, int64_t available, int64_t, int64_t count,
                     float *out) -> int64_t {
    if (count == 1 && available >= 2) {
      dots<1, 2>(w, n, rows, out);
      return 2;
    }
    for (int64_t i = 0; i < count; i += kRegisterRows)
      kDots[std::min(kRegisterRows, count - i)](w, n, rows + i, out + i);
    return 1;
  };
  productByRowBlocks(w, m, blockRows, y, prepare, rowDots);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
