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
#include "runtime/kernels/optimized/Gemv.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/WeightOnly.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

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

/// Quantizes input row \p x (K columns) into chunks.
void quantizeRow(int64_t columns, const float *x, InputChunk *chunks) {
  int8_t quantized[kMaxInputColumns];
  float scales[kMaxInputColumns / 32];
  for (int64_t b = 0; b < columns / 32; ++b) {
    float largest = 0;
    for (int j = 0; j < 32; ++j)
      largest = std::max(largest, std::fabs(x[b * 32 + j]));
    float scale = largest / 127.0f, inverse = largest > 0 ? 127.0f / largest : 0;
    scales[b] = scale;
    for (int j = 0; j < 32; ++j)
      quantized[b * 32 + j] =
          static_cast<int8_t>(std::lrint(x[b * 32 + j] * inverse));
  }
  for (int64_t c = 0; c < columns / kChunkColumns; ++c) {
    InputChunk &chunk = chunks[c];
    for (int b = 0; b < 4; ++b)
      for (int j = 0; j < 16; ++j) {
        chunk.low[16 * b + j] = quantized[128 * c + 32 * b + j];
        chunk.high[16 * b + j] = quantized[128 * c + 32 * b + 16 + j];
      }
    for (int l = 0; l < 16; ++l) {
      int32_t sum = 0;
      for (int t = 0; t < 4; ++t)
        sum += chunk.low[4 * l + t] + chunk.high[4 * l + t];
      chunk.offset[l] = 8 * sum;
      chunk.scale[l] = scales[4 * c + l / 4];
    }
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

/// One weight row at a time, for every count of input rows: a decode step
/// streams the weights from memory, and rows read one after the other are
/// one sequential stream the prefetchers follow (interleaving four rows
/// halved the bandwidth measured in a decode step).
DotsFn kernelFor(int64_t m) {
  switch (m) {
  case 1: return dots<1>;
  case 2: return dots<2>;
  case 3: return dots<3>;
  default: return dots<4>;
  }
}

bool applies(const Weights &w, int64_t m) {
  static const bool cpu = cpuHasIsa("avx512vnni");
  bool groups = w.group == 32 || w.group == 64 || w.group % 128 == 0;
  return cpu && w.bits == 4 && groups && !w.zeroPoints && m <= kGemvMaxRows &&
         w.columns % kChunkColumns == 0 && w.columns <= kMaxInputColumns;
}

} // namespace

bool decodeWithInt8Inputs(const Weights &w, int64_t m, const float *x,
                          float *y) {
  if (!applies(w, m))
    return false;
  constexpr int64_t kMaxChunks = kGemvMaxRows * kMaxInputColumns / 128;
  InputChunk chunks[kMaxChunks];
  int64_t count = w.columns / kChunkColumns;
  for (int64_t i = 0; i < m; ++i)
    quantizeRow(w.columns, x + i * w.columns, chunks + i * count);
  DotsFn kernel = kernelFor(m);
  auto slice = [&](int64_t first, int64_t last) {
    float out[kGemvMaxRows];
    for (int64_t n = first * 16, end = std::min(w.rows, last * 16); n < end;
         ++n) {
      kernel(w, n, chunks, out);
      finishRow(w, m, n, out, nullptr, y);
    }
  };
  int64_t tasks = (w.rows + 15) / 16;
  int64_t grain = m * w.rows * w.columns < kParallelWeights ? tasks : 1;
  ThreadPool::shared().parallelFor(tasks, grain, slice);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
