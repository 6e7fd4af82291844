// weight_only_linear of int4 tables on int8 dot products (AVX-512 VNNI's
// vpdpbusd: 64 multiply-adds of unsigned by signed bytes per instruction,
// four times what float FMAs do). Each input row is quantized per
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
  const __m512i byBlock = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1,
                                           0, 0, 0, 0);
  const __m512i byPair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0,
                                          0, 0, 0, 0);
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

using DotsFn = void (*)(const Weights &, int64_t, const InputChunk *, float *);

DotsFn kernelFor(int64_t m) {
  switch (m) {
  case 1: return dots<1>;
  case 2: return dots<2>;
  case 3: return dots<3>;
  default: return dots<4>;
  }
}

bool applies(const Weights &w) {
  static const bool cpu = cpuHasIsa("avx512vnni");
  bool groups = w.group == 32 || w.group == 64 || w.group % 128 == 0;
  return cpu && w.bits == 4 && groups && !w.zeroPoints &&
         w.columns % kChunkColumns == 0 && w.columns <= kMaxInputColumns;
}

// Quantized input rows on the caller's stack: 80 KiB.
constexpr int64_t kScratchChunks = 256;

} // namespace

bool decodeWithInt8Inputs(const Weights &w, int64_t m, const float *x,
                          float *y) {
  if (!applies(w))
    return false;
  InputChunk chunks[kScratchChunks];
  int64_t count = w.columns / kChunkColumns;
  int64_t blockRows = std::clamp<int64_t>(kScratchChunks / count, 1,
                                          kMaxBlockRows);
  auto prepare = [&](int64_t first, int64_t rows) -> const float * {
    for (int64_t i = 0; i < rows; ++i)
      quantizeRow(w.columns, x + (first + i) * w.columns, chunks + i * count);
    return nullptr;
  };
  // One weight row at a time, for every count of input rows: a decode step
  // streams the weights from memory, and rows read one after the other are
  // one sequential stream the prefetchers follow (interleaving four rows
  // halved the bandwidth measured in a decode step).
  auto rowDots = [&](int64_t n, int64_t, int64_t rows, float *out) {
    for (int64_t i = 0; i < rows; i += kRegisterRows)
      kernelFor(std::min(kRegisterRows, rows - i))(w, n, chunks + i * count,
                                                   out + i);
  };
  productByRowBlocks(w, m, blockRows, y, prepare, rowDots);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
