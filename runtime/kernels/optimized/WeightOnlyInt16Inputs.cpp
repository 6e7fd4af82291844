// weight_only_linear of int8 tables on int16 inputs with AVX2's vpmaddwd,
// for one input row (a decode step). Widening each int8 weight to a float
// (vpmovsxbd + vcvtdq2ps + FMA per 8 weights) kept an AVX2 decode step
// bound by the vector units, about 5 G weights/s per core; vpmovsxbw +
// vpmaddwd do 16 weights at a time. More rows (prefill) stay on the float
// kernels, which meet each widened weight with 4 rows in registers: there
// the two products per weight below cost more (16-token prefill of the
// reference Llama ran 30% slower). The arithmetic stays that of float
// inputs: the row is split into two int16 halves with one step
// s = max|x| / 32767,
//   x = s * (high + low / 32768),  high = round(x / s), |low| <= 16384,
// (both rounded to nearest even), so an input is off by at most
// max|x| * 2^-31, below the float rounding of the products it meets. The
// two integer sums are turned into floats every kSegment columns, before a
// lane can overflow (|w| <= 128, |half| <= 32767). Zero points come off at
// the end with the float input sums (finishRow); a call whose input holds
// an Inf or a NaN runs on the float kernels, which carry them.
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/WeightOnly.h"

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace etch::runtime::optimized::weight_only {
namespace {

// Columns summed in int32 before a float conversion: a lane gains at most
// four products of 128 * 32767 per 32 columns, 2^30 over 2048.
constexpr int64_t kSegment = 2048;
// Both halves of the input row on the caller's stack: 64 KiB, rows of up
// to 16384 columns.
constexpr int64_t kScratchHalves = 1 << 15;
// Group sums (zero points only) on the caller's stack: 16 KiB.
constexpr int64_t kScratchSums = 1 << 12;

#define ETCH_AVX2 __attribute__((target("avx2,fma"))) inline

/// True when every value of x[0..count) is finite.
ETCH_AVX2 bool allFinite(const float *x, int64_t count) {
  const __m256 sign = _mm256_set1_ps(-0.0f), largest = _mm256_set1_ps(FLT_MAX);
  __m256 bad = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 8 <= count; k += 8) // NaN compares unordered: true here
    bad = _mm256_or_ps(
        bad, _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + k)),
                           largest, _CMP_NLE_UQ));
  bool finite = _mm256_movemask_ps(bad) == 0;
  for (; k < count; ++k)
    finite = finite && std::fabs(x[k]) <= FLT_MAX;
  return finite;
}

/// 16 int32 as int16, in order (packs works per 128-bit lane).
ETCH_AVX2 __m256i packWords(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
}

/// Row x (K columns, finite) as its two int16 halves, high[0..K) and
/// low[0..K); returns the step s.
ETCH_AVX2 float splitRow(int64_t columns, const float *x, int16_t *high,
                         int16_t *low) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 largest = _mm256_setzero_ps();
  for (int64_t k = 0; k < columns; k += 8)
    largest =
        _mm256_max_ps(largest, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + k)));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(largest),
                        _mm256_extractf128_ps(largest, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  float top = _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
  const __m256 inverse = _mm256_set1_ps(top > 0 ? 32767.0f / top : 0.0f);
  const __m256 below = _mm256_set1_ps(32768.0f);
  for (int64_t k = 0; k < columns; k += 16) {
    __m256i highs[2], lows[2];
    for (int h = 0; h < 2; ++h) {
      __m256 units = _mm256_mul_ps(_mm256_loadu_ps(x + k + 8 * h), inverse);
      highs[h] = _mm256_cvtps_epi32(units);
      // units - high is exact (|units| < 2^15, |rest| <= 0.5).
      __m256 rest = _mm256_sub_ps(units, _mm256_cvtepi32_ps(highs[h]));
      lows[h] = _mm256_cvtps_epi32(_mm256_mul_ps(rest, below));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(high + k),
                        packWords(highs[0], highs[1]));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(low + k),
                        packWords(lows[0], lows[1]));
  }
  return top / 32767.0f;
}

/// Weight row n against the split input row (its K high words, then its K
/// low ones): the sum over groups of scale * (w . high + w . low / 32768).
__attribute__((target("avx2,fma"))) float int16Dot(const Weights &w, int64_t n,
                                                   const int16_t *high) {
  const int64_t columns = w.columns, group = w.group;
  const int8_t *row = reinterpret_cast<const int8_t *>(w.row(n));
  const int16_t *low = high + columns;
  const float *scales = w.scales + n * w.groups;
  const __m256 lowUnit = _mm256_set1_ps(1.0f / 32768);
  __m256 total = _mm256_setzero_ps();
  for (int64_t g = 0; g < w.groups; ++g) {
    __m256 scale = _mm256_set1_ps(scales[g]);
    for (int64_t begin = g * group, groupEnd = begin + group; begin < groupEnd;
         begin += kSegment) {
      int64_t end = std::min(groupEnd, begin + kSegment), p = begin;
      __m256i highSum = _mm256_setzero_si256(), lowSum = highSum;
      do { // segments are whole steps, never empty
        __m256i w0 = _mm256_cvtepi8_epi16(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p)));
        __m256i w1 = _mm256_cvtepi8_epi16(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p + 16)));
        const __m256i *h = reinterpret_cast<const __m256i *>(high + p);
        const __m256i *l = reinterpret_cast<const __m256i *>(low + p);
        highSum = _mm256_add_epi32(
            highSum,
            _mm256_add_epi32(_mm256_madd_epi16(w0, _mm256_loadu_si256(h)),
                             _mm256_madd_epi16(w1, _mm256_loadu_si256(h + 1))));
        lowSum = _mm256_add_epi32(
            lowSum,
            _mm256_add_epi32(_mm256_madd_epi16(w0, _mm256_loadu_si256(l)),
                             _mm256_madd_epi16(w1, _mm256_loadu_si256(l + 1))));
        p += kStep;
      } while (p < end);
      __m256 sum = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lowSum), lowUnit,
                                   _mm256_cvtepi32_ps(highSum));
      total = _mm256_fmadd_ps(sum, scale, total);
    }
  }
  return sumLanesAvx2(total);
}

#undef ETCH_AVX2

} // namespace

bool int8WithInt16Inputs(const char *isa, const Weights &w, int64_t m,
                         const float *x, float *y) {
  if (m != 1 || std::strcmp(isa, "avx2") != 0 || !cpuHasIsa(isa) ||
      w.bits != 8 || 2 * w.columns > kScratchHalves ||
      w.groups > kScratchSums || w.columns % kStep != 0 ||
      w.group % kStep != 0 || !allFinite(x, w.columns))
    return false;
  int16_t halves[kScratchHalves];
  float sums[kScratchSums];
  float step = splitRow(w.columns, x, halves, halves + w.columns);
  auto prepare = [&](int64_t, int64_t) -> const float * {
    if (!w.zeroPoints)
      return nullptr;
    groupSums(w, 1, x, sums);
    return sums;
  };
  auto rowDots = [&](int64_t n, int64_t, int64_t, int64_t, float *out) {
    out[0] = int16Dot(w, n, halves) * step;
    return false;
  };
  productByRowBlocks(w, 1, 1, y, prepare, rowDots);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
