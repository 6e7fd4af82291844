// weight_only_linear of int4 tables on int8 dot products: AVX-512 VNNI's
// vpdpbusd (64 multiply-adds of unsigned by signed bytes per instruction,
// four times what float FMAs do), or on AVX2 without VNNI vpmaddubsw +
// vpmaddwd (pairs of byte products summed in 16 bits, then pairs of those
// in 32: a nibble (at most 15) times an input (at most 127 in magnitude)
// never saturates the 16-bit pair, which is what llama.cpp's AVX2 Q4_0 x
// Q8_0 dot product relies on too). Each input row is quantized per
// 32-column block to int8 once per call (scale max|x| / 127, rounded to
// nearest: llama.cpp's Q8_0 activations, ExecuTorch's 8da4w); the stored
// nibbles u = q + 8 are the unsigned side, and the offset comes off per
// lane as 8 * (sum of the inputs it met). A block's integer sum is then
// scaled by its weight and input scales in float. Taken for groups of 32,
// 64 or multiples of 128, rows of whole 128-column chunks and no zero
// points; int8 tables keep float inputs (exact): their decode is bound by
// memory, not by the multiply-adds.
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/WeightOnly.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized::weight_only {
namespace {

// Inputs this path quantizes on the caller's stack.
constexpr int64_t kMaxInputColumns = 8192;

/// One vector's worth of quantized input: 64 weight bytes (128 columns)
/// meet `low` with their low nibbles and `high` with their high ones. Lane
/// l of a dot product covers bytes 4l..4l+3.
struct alignas(64) InputChunk {
  int8_t low[64];     // columns 0..15 of each of 4 blocks
  int8_t high[64];    // columns 16..31 of the same blocks
  float scale[16];    // lane l: the input scale of its block
  int32_t offset[16]; // lane l: 8 times its inputs' sum
};

constexpr int64_t kChunkColumns = 128;

/// Quantizes input row \p x (K columns) into chunks: per 32-column block,
/// q = round-to-nearest-even(x * 127 / max|x|) (what std::lrint does in the
/// default rounding mode).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
quantizeRow(int64_t columns, const float *x, InputChunk *chunks) {
  const __m512i ones = _mm512_set1_epi8(1);
  for (int64_t c = 0; c < columns / kChunkColumns; ++c) {
    InputChunk &chunk = chunks[c];
    for (int b = 0; b < 4; ++b) {
      const float *block = x + c * kChunkColumns + 32 * b;
      __m512 low = _mm512_loadu_ps(block), high = _mm512_loadu_ps(block + 16);
      float largest = _mm512_reduce_max_ps(
          _mm512_max_ps(_mm512_abs_ps(low), _mm512_abs_ps(high)));
      __m512 inverse = _mm512_set1_ps(largest > 0 ? 127.0f / largest : 0);
      _mm_store_si128(reinterpret_cast<__m128i *>(chunk.low + 16 * b),
                      _mm512_cvtsepi32_epi8(
                          _mm512_cvtps_epi32(_mm512_mul_ps(low, inverse))));
      _mm_store_si128(reinterpret_cast<__m128i *>(chunk.high + 16 * b),
                      _mm512_cvtsepi32_epi8(
                          _mm512_cvtps_epi32(_mm512_mul_ps(high, inverse))));
      for (int l = 0; l < 4; ++l)
        chunk.scale[4 * b + l] = largest / 127.0f;
    }
    // Lane l's 8 inputs summed by the dot product's own byte grouping.
    __m512i sum = _mm512_dpbusd_epi32(_mm512_setzero_si512(), ones,
                                      _mm512_load_si512(chunk.low));
    sum = _mm512_dpbusd_epi32(sum, ones, _mm512_load_si512(chunk.high));
    _mm512_store_si512(chunk.offset, _mm512_slli_epi32(sum, 3));
  }
}

/// Lane l's weight scale for int4 groups of 32 (l / 4) or 64 (l / 8).
__attribute__((target("avx512f"))) inline __m512
weightScales(const float *scales, int64_t group) {
  const __m512i byBlock =
      _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  const __m512i byPair =
      _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  // Four scales for groups of 32, two for 64 (never past the row's end).
  __m128 loaded = group == 32 ? _mm_loadu_ps(scales)
                              : _mm_castpd_ps(_mm_load_sd(
                                    reinterpret_cast<const double *>(scales)));
  return _mm512_permutexvar_ps(group == 32 ? byBlock : byPair,
                               _mm512_castps128_ps512(loaded));
}

/// Row n against M quantized inputs (\p chunks: M rows of columns / 128
/// each): scaled dot products in out[i].
template <int M>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
dots(const Weights &w, int64_t n, const InputChunk *chunks, float *out) {
  const int64_t count = w.columns / kChunkColumns;
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const float *scales = w.scales + n * w.groups;
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  for (int64_t c = 0; c < count; ++c) {
    __m512i bytes = _mm512_loadu_si512(w.row(n) + c * 64);
    __m512i low = _mm512_and_si512(bytes, nibble);
    __m512i high = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble);
    __m512 scale = w.group % 128 == 0
                       ? _mm512_set1_ps(scales[c * 128 / w.group])
                       : weightScales(scales + c * 128 / w.group, w.group);
    for (int i = 0; i < M; ++i) {
      const InputChunk &chunk = chunks[i * count + c];
      __m512i sum = _mm512_dpbusd_epi32(_mm512_setzero_si512(), low,
                                        _mm512_load_si512(chunk.low));
      sum = _mm512_dpbusd_epi32(sum, high, _mm512_load_si512(chunk.high));
      __m512 value = _mm512_cvtepi32_ps(
          _mm512_sub_epi32(sum, _mm512_load_si512(chunk.offset)));
      total[i] = _mm512_fmadd_ps(
          value, _mm512_mul_ps(scale, _mm512_load_ps(chunk.scale)), total[i]);
    }
  }
  for (int i = 0; i < M; ++i)
    out[i] = _mm512_reduce_add_ps(total[i]);
}

// --- AVX2: the same chunks in two 256-bit halves ---------------------------
// Half h of a chunk is bytes 32h..32h+31 of its 64 weight bytes (blocks 2h
// and 2h + 1), and lanes 8h..8h+7 of its scales and offsets.

#define ETCH_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

/// Lane sums of 4 bytes of \p low and 4 of \p high, unsigned by signed.
ETCH_AVX2 __m256i laneDots(__m256i lowU, __m256i lowS, __m256i highU,
                           __m256i highS) {
  __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lowU, lowS),
                                   _mm256_maddubs_epi16(highU, highS));
  return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

/// 16 floats rounded to nearest even, as 16 int8 in order.
ETCH_AVX2 __m128i toInt8(__m256 a, __m256 b) {
  __m256i words =
      _mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b));
  words = _mm256_permute4x64_epi64(words, 0xD8); // undo the per-lane packing
  return _mm_packs_epi16(_mm256_castsi256_si128(words),
                         _mm256_extracti128_si256(words, 1));
}

ETCH_AVX2 float maxAbs(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_max_ps(
      _mm256_max_ps(_mm256_andnot_ps(sign, a), _mm256_andnot_ps(sign, b)),
      _mm256_max_ps(_mm256_andnot_ps(sign, c), _mm256_andnot_ps(sign, d)));
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}

/// quantizeRow with AVX2: the same chunks, the same rounding.
__attribute__((target("avx2,fma"))) void
quantizeRowAvx2(int64_t columns, const float *x, InputChunk *chunks) {
  const __m256i ones = _mm256_set1_epi8(1);
  for (int64_t c = 0; c < columns / kChunkColumns; ++c) {
    InputChunk &chunk = chunks[c];
    for (int b = 0; b < 4; ++b) {
      const float *block = x + c * kChunkColumns + 32 * b;
      __m256 v0 = _mm256_loadu_ps(block), v1 = _mm256_loadu_ps(block + 8),
             v2 = _mm256_loadu_ps(block + 16), v3 = _mm256_loadu_ps(block + 24);
      float largest = maxAbs(v0, v1, v2, v3);
      __m256 inverse = _mm256_set1_ps(largest > 0 ? 127.0f / largest : 0);
      _mm_store_si128(
          reinterpret_cast<__m128i *>(chunk.low + 16 * b),
          toInt8(_mm256_mul_ps(v0, inverse), _mm256_mul_ps(v1, inverse)));
      _mm_store_si128(
          reinterpret_cast<__m128i *>(chunk.high + 16 * b),
          toInt8(_mm256_mul_ps(v2, inverse), _mm256_mul_ps(v3, inverse)));
      for (int l = 0; l < 4; ++l)
        chunk.scale[4 * b + l] = largest / 127.0f;
    }
    for (int h = 0; h < 2; ++h) {
      __m256i sums =
          laneDots(ones,
                   _mm256_load_si256(
                       reinterpret_cast<const __m256i *>(chunk.low + 32 * h)),
                   ones,
                   _mm256_load_si256(
                       reinterpret_cast<const __m256i *>(chunk.high + 32 * h)));
      _mm256_store_si256(reinterpret_cast<__m256i *>(chunk.offset + 8 * h),
                         _mm256_slli_epi32(sums, 3));
    }
  }
}

/// Lanes 8h..8h+7's weight scales: groups of 32 (lane / 4), 64 (half h),
/// or a multiple of 128 (one for the chunk).
ETCH_AVX2 __m256 weightScalesAvx2(const float *scales, int64_t chunk, int h,
                                  int64_t group) {
  if (group == 32) {
    const float *pair = scales + chunk * 4 + 2 * h;
    return _mm256_setr_m128(_mm_set1_ps(pair[0]), _mm_set1_ps(pair[1]));
  }
  return _mm256_set1_ps(group == 64 ? scales[chunk * 2 + h]
                                    : scales[chunk * 128 / group]);
}

/// dots with AVX2: row n against M quantized inputs.
template <int M>
__attribute__((target("avx2,fma"))) void
dotsAvx2(const Weights &w, int64_t n, const InputChunk *chunks, float *out) {
  const int64_t count = w.columns / kChunkColumns;
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const float *scales = w.scales + n * w.groups;
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  for (int64_t c = 0; c < count; ++c)
    for (int h = 0; h < 2; ++h) {
      __m256i bytes = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(w.row(n) + c * 64 + 32 * h));
      __m256i low = _mm256_and_si256(bytes, nibble);
      __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
      __m256 scale = weightScalesAvx2(scales, c, h, w.group);
      for (int i = 0; i < M; ++i) {
        const InputChunk &chunk = chunks[i * count + c];
        __m256i sum =
            laneDots(low,
                     _mm256_load_si256(
                         reinterpret_cast<const __m256i *>(chunk.low + 32 * h)),
                     high,
                     _mm256_load_si256(reinterpret_cast<const __m256i *>(
                         chunk.high + 32 * h)));
        __m256 value = _mm256_cvtepi32_ps(_mm256_sub_epi32(
            sum, _mm256_load_si256(
                     reinterpret_cast<const __m256i *>(chunk.offset + 8 * h))));
        total[i] = _mm256_fmadd_ps(
            value, _mm256_mul_ps(scale, _mm256_load_ps(chunk.scale + 8 * h)),
            total[i]);
      }
    }
  for (int i = 0; i < M; ++i)
    out[i] = sumLanesAvx2(total[i]);
}

#undef ETCH_AVX2

using DotsFn = void (*)(const Weights &, int64_t, const InputChunk *, float *);

using QuantizeFn = void (*)(int64_t, const float *, InputChunk *);

/// One instruction set's kernels: the row quantizer and dots for 1..4 rows.
struct Int8Path {
  QuantizeFn quantize;
  DotsFn dots[kRegisterRows + 1];
};

const Int8Path kVnni = {quantizeRow,
                        {nullptr, dots<1>, dots<2>, dots<3>, dots<4>}};
const Int8Path kAvx2 = {
    quantizeRowAvx2,
    {nullptr, dotsAvx2<1>, dotsAvx2<2>, dotsAvx2<3>, dotsAvx2<4>}};

/// The kernels for \p isa ("avx512vnni" or "avx2"), or null.
const Int8Path *pathFor(const char *isa) {
  if (std::strcmp(isa, "avx512vnni") == 0)
    return &kVnni;
  if (std::strcmp(isa, "avx2") == 0)
    return &kAvx2;
  return nullptr;
}

bool applies(const Weights &w) {
  bool groups = w.group == 32 || w.group == 64 || w.group % 128 == 0;
  return w.bits == 4 && groups && !w.zeroPoints &&
         w.columns % kChunkColumns == 0 && w.columns <= kMaxInputColumns;
}

// Quantized input rows on the caller's stack: 80 KiB.
constexpr int64_t kScratchChunks = 256;

} // namespace

bool decodeWithInt8Inputs(const char *isa, const Weights &w, int64_t m,
                          const float *x, float *y) {
  const Int8Path *path = pathFor(isa);
  if (!path || !cpuHasIsa(isa) || !applies(w))
    return false;
  InputChunk chunks[kScratchChunks];
  int64_t count = w.columns / kChunkColumns;
  int64_t blockRows =
      std::clamp<int64_t>(kScratchChunks / count, 1, kMaxBlockRows);
  auto prepare = [&](int64_t first, int64_t rows) -> const float * {
    for (int64_t i = 0; i < rows; ++i)
      path->quantize(w.columns, x + (first + i) * w.columns,
                     chunks + i * count);
    return nullptr;
  };
  // One weight row at a time, for every count of input rows: a decode step
  // streams the weights from memory, and rows read one after the other are
  // one sequential stream the prefetchers follow (interleaving four rows
  // halved the bandwidth measured in a decode step).
  auto rowDots = [&](int64_t n, int64_t, int64_t rows, float *out) {
    for (int64_t i = 0; i < rows; i += kRegisterRows)
      path->dots[std::min(kRegisterRows, rows - i)](w, n, chunks + i * count,
                                                    out + i);
  };
  productByRowBlocks(w, m, blockRows, y, prepare, rowDots);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
