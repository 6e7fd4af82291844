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
// lane as 8 * (sum of the inputs it met): the lane's sum starts there. A
// block's integer sum is then
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
  int32_t start[16];  // lane l: -8 times its inputs' sum (the offset)
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
    _mm512_store_si512(
        chunk.start,
        _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(sum, 3)));
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

#define ETCH_AVX512 __attribute__((target("avx512f"), always_inline)) inline

/// 128-bit groups of \p a and \p b: a.x, a.y, b.x, b.y (vshuff32x4 with
/// both sources, written as a two-source permute: GCC 12 warns on the
/// shuffle intrinsic's undefined mask operand).
template <int X, int Y> ETCH_AVX512 __m512 groups(__m512 a, __m512 b) {
  const __m512i index = _mm512_setr_epi32(
      4 * X, 4 * X + 1, 4 * X + 2, 4 * X + 3, 4 * Y, 4 * Y + 1, 4 * Y + 2,
      4 * Y + 3, 16 + 4 * X, 17 + 4 * X, 18 + 4 * X, 19 + 4 * X, 16 + 4 * Y,
      17 + 4 * Y, 18 + 4 * Y, 19 + 4 * Y);
  return _mm512_permutex2var_ps(a, index, b);
}

/// a's halves summed, then b's: 8 partial sums of each.
ETCH_AVX512 __m512 halves(__m512 a, __m512 b) {
  return _mm512_add_ps(groups<0, 1>(a, b), groups<2, 3>(a, b));
}

/// The lane sums of v0..v7 into out[0..7]: a transposing tree (23
/// instructions) instead of eight reductions of their own (about 64).
ETCH_AVX512 void sumLanes8(__m512 v0, __m512 v1, __m512 v2, __m512 v3,
                           __m512 v4, __m512 v5, __m512 v6, __m512 v7,
                           float *out) {
  __m512 t0 = halves(v0, v1), t1 = halves(v2, v3), t2 = halves(v4, v5),
         t3 = halves(v6, v7);
  // Quarters: 128-bit group g of u0 holds 4 partial sums of v_g, of u1 of
  // v_{g+4}.
  __m512 u0 = _mm512_add_ps(groups<0, 2>(t0, t1), groups<1, 3>(t0, t1));
  __m512 u1 = _mm512_add_ps(groups<0, 2>(t2, t3), groups<1, 3>(t2, t3));
  __m512 a =
      _mm512_add_ps(_mm512_unpacklo_ps(u0, u1), _mm512_unpackhi_ps(u0, u1));
  __m512 b = _mm512_add_ps(a, _mm512_permute_ps(a, 0x4E));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, b); // group g: lane 0 sums v[g], lane 1 v[g + 4]
  for (int g = 0; g < 4; ++g) {
    out[g] = lanes[4 * g];
    out[g + 4] = lanes[4 * g + 1];
  }
}

#define ETCH_VNNI                                                              \
  __attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline

/// Weight rows n.. n + W - 1 against M quantized inputs (\p chunks: M rows
/// of \p count chunks each): scaled dot products in out[r * kMaxBlockRows
/// + i]. With \p prefetch, asks for the next W weight rows (and their
/// scales) while it reads these: a prefill's weights come from memory once,
/// and the rows of a tile take long enough that the hardware's prefetchers
/// fall behind (the down projection's tiles ran half as fast from memory as
/// from the caches).
template <int W, int M>
ETCH_VNNI void tile(const Weights &w, int64_t n, int64_t count,
                    const InputChunk *chunks, float *out, bool prefetch) {
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  __m512 total[W * M];
  for (int k = 0; k < W * M; ++k)
    total[k] = _mm512_setzero_ps();
  for (int64_t c = 0; c < count; ++c) {
    __m512i low[W], high[W];
    __m512 scale[W];
    for (int r = 0; r < W; ++r) {
      __m512i bytes = _mm512_loadu_si512(w.row(n + r) + c * 64);
      low[r] = _mm512_and_si512(bytes, nibble);
      high[r] = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble);
      const float *scales = w.scales + (n + r) * w.groups + c * 128 / w.group;
      scale[r] = w.group % 128 == 0 ? _mm512_set1_ps(*scales)
                                    : weightScales(scales, w.group);
      if (prefetch) { // past the table's end a prefetch is dropped, not read
        _mm_prefetch(reinterpret_cast<const char *>(w.row(n + W + r) + c * 64),
                     _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(scales + W * w.groups),
                     _MM_HINT_T0);
      }
    }
    for (int i = 0; i < M; ++i) {
      const InputChunk &chunk = chunks[i * count + c];
      __m512i start = _mm512_load_si512(chunk.start);
      __m512i inputLow = _mm512_load_si512(chunk.low);
      __m512i inputHigh = _mm512_load_si512(chunk.high);
      __m512 inputScale = _mm512_load_ps(chunk.scale);
      // In registers for every weight row: GCC would load them again as
      // memory operands, and a zmm load a cycle is this loop's limit.
      if constexpr (W > 1)
        asm(""
            : "+v"(start), "+v"(inputLow), "+v"(inputHigh), "+v"(inputScale));
      for (int r = 0; r < W; ++r) {
        __m512i sum = _mm512_dpbusd_epi32(start, low[r], inputLow);
        sum = _mm512_dpbusd_epi32(sum, high[r], inputHigh);
        total[r * M + i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum),
                                           _mm512_mul_ps(scale[r], inputScale),
                                           total[r * M + i]);
      }
    }
  }
  if constexpr (W * M == 8) {
    float sums[8];
    sumLanes8(total[0], total[1], total[2], total[3], total[4], total[5],
              total[6], total[7], sums);
    for (int r = 0; r < W; ++r)
      for (int i = 0; i < M; ++i)
        out[r * kMaxBlockRows + i] = sums[r * M + i];
  } else {
    for (int r = 0; r < W; ++r)
      for (int i = 0; i < M; ++i)
        out[r * kMaxBlockRows + i] = _mm512_reduce_add_ps(total[r * M + i]);
  }
}

/// Weight rows n.. n + W - 1 against \p rows quantized inputs, in tiles of
/// kRegisterRows inputs. Two weight rows share each input load (prefill);
/// one row at a time keeps a decode step's weights one sequential stream.
template <int W>
ETCH_VNNI void dots(const Weights &w, int64_t n, const InputChunk *chunks,
                    int64_t rows, float *out) {
  const int64_t count = w.columns / kChunkColumns;
  int64_t i = 0;
  constexpr bool kPrefetch = W > 1; // decode streams one row at a time
  for (; i + kRegisterRows <= rows; i += kRegisterRows)
    tile<W, kRegisterRows>(w, n, count, chunks + i * count, out + i,
                           kPrefetch && i == 0);
  bool first = kPrefetch && i == 0;
  if (rows - i == 1)
    tile<W, 1>(w, n, count, chunks + i * count, out + i, first);
  else if (rows - i == 2)
    tile<W, 2>(w, n, count, chunks + i * count, out + i, first);
  else if (rows - i == 3)
    tile<W, 3>(w, n, count, chunks + i * count, out + i, first);
}

/// Weight rows n.. n + weightRows - 1 (a task's) against \p rows inputs:
/// a prefill block two weight rows at a time; a decode step one row after
/// the other, all in one call (a row of 512 columns takes nanoseconds).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
dotsVnni(const Weights &w, int64_t n, int64_t weightRows,
         const InputChunk *chunks, int64_t rows, float *out) {
  int64_t r = 0;
  if (rows >= kRegisterRows)
    for (; r + 2 <= weightRows; r += 2)
      dots<2>(w, n + r, chunks, rows, out + r * kMaxBlockRows);
  for (; r < weightRows; ++r)
    dots<1>(w, n + r, chunks, rows, out + r * kMaxBlockRows);
}

#undef ETCH_VNNI

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
      _mm256_store_si256(
          reinterpret_cast<__m256i *>(chunk.start + 8 * h),
          _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(sums, 3)));
    }
  }
}

/// A chunk's weight scales for its halves (lanes 8h..8h+7 in out[h]):
/// groups of 32 (lane / 4: one load, a permute per half), 64 (one per
/// half), or a multiple of 128 (one for the chunk).
ETCH_AVX2 void weightScalesAvx2(const float *scales, int64_t chunk,
                                int64_t group, __m256 out[2]) {
  if (group == 32) {
    __m256 four = _mm256_castps128_ps256(_mm_loadu_ps(scales + chunk * 4));
    out[0] = _mm256_permutevar8x32_ps(
        four, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    out[1] = _mm256_permutevar8x32_ps(
        four, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3));
  } else if (group == 64) {
    out[0] = _mm256_set1_ps(scales[chunk * 2]);
    out[1] = _mm256_set1_ps(scales[chunk * 2 + 1]);
  } else {
    out[0] = out[1] = _mm256_set1_ps(scales[chunk * 128 / group]);
  }
}

/// tile with AVX2: weight row n against M quantized inputs, each chunk in
/// two 256-bit halves; with \p prefetch, the next row's bytes are asked for.
template <int M>
ETCH_AVX2 void tileAvx2(const Weights &w, int64_t n, int64_t count,
                        const InputChunk *chunks, float *out, bool prefetch) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const float *scales = w.scales + n * w.groups;
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  for (int64_t c = 0; c < count; ++c) {
    if (prefetch) // past the table's end a prefetch is dropped, not read
      _mm_prefetch(reinterpret_cast<const char *>(w.row(n + 1) + c * 64),
                   _MM_HINT_T0);
    __m256 halfScales[2];
    weightScalesAvx2(scales, c, w.group, halfScales);
    for (int h = 0; h < 2; ++h) {
      __m256i bytes = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(w.row(n) + c * 64 + 32 * h));
      __m256i low = _mm256_and_si256(bytes, nibble);
      __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
      __m256 scale = halfScales[h];
      for (int i = 0; i < M; ++i) {
        const InputChunk &chunk = chunks[i * count + c];
        __m256i sum =
            laneDots(low,
                     _mm256_load_si256(
                         reinterpret_cast<const __m256i *>(chunk.low + 32 * h)),
                     high,
                     _mm256_load_si256(reinterpret_cast<const __m256i *>(
                         chunk.high + 32 * h)));
        __m256 value = _mm256_cvtepi32_ps(_mm256_add_epi32(
            sum, _mm256_load_si256(
                     reinterpret_cast<const __m256i *>(chunk.start + 8 * h))));
        total[i] = _mm256_fmadd_ps(
            value, _mm256_mul_ps(scale, _mm256_load_ps(chunk.scale + 8 * h)),
            total[i]);
      }
    }
  }
  for (int i = 0; i < M; ++i)
    out[i] = sumLanesAvx2(total[i]);
}

/// Weight row n against \p rows inputs in tiles of kRegisterRows.
ETCH_AVX2 void dotsAvx2(const Weights &w, int64_t n, const InputChunk *chunks,
                        int64_t rows, float *out, bool prefetch) {
  const int64_t count = w.columns / kChunkColumns;
  int64_t i = 0;
  for (; i + kRegisterRows <= rows; i += kRegisterRows)
    tileAvx2<kRegisterRows>(w, n, count, chunks + i * count, out + i,
                            prefetch && i == 0);
  bool first = prefetch && i == 0;
  if (rows - i == 1)
    tileAvx2<1>(w, n, count, chunks + i * count, out + i, first);
  else if (rows - i == 2)
    tileAvx2<2>(w, n, count, chunks + i * count, out + i, first);
  else if (rows - i == 3)
    tileAvx2<3>(w, n, count, chunks + i * count, out + i, first);
}

/// dotsVnni with AVX2: one weight row at a time (its 16 registers hold no
/// pair of rows against 4 inputs; pairs against 2 were no faster), a
/// prefill block's next row prefetched.
__attribute__((target("avx2,fma"))) void
dotsAvx2Rows(const Weights &w, int64_t n, int64_t weightRows,
             const InputChunk *chunks, int64_t rows, float *out) {
  for (int64_t r = 0; r < weightRows; ++r)
    dotsAvx2(w, n + r, chunks, rows, out + r * kMaxBlockRows,
             rows >= kRegisterRows);
}

#undef ETCH_AVX2
#undef ETCH_AVX512

using DotsFn = void (*)(const Weights &, int64_t, int64_t, const InputChunk *,
                        int64_t, float *);
using QuantizeFn = void (*)(int64_t, const float *, InputChunk *);

/// One instruction set's kernels: the row quantizer, and the dots of a
/// task's weight rows against a block of input rows.
struct Int8Path {
  QuantizeFn quantize;
  DotsFn dots;
};

const Int8Path kVnni = {quantizeRow, dotsVnni};
const Int8Path kAvx2 = {quantizeRowAvx2, dotsAvx2Rows};

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
  auto rowDots = [&](int64_t n, int64_t weightRows, int64_t, int64_t rows,
                     float *out) {
    path->dots(w, n, weightRows, chunks, rows, out);
  };
  // A task's 16 weight rows at once. A decode step takes them one after the
  // other: it streams the weights from memory, and rows read in order are
  // one sequential stream the prefetchers follow (interleaving four rows
  // halved the bandwidth measured). Prefill blocks compute: two weight
  // rows share each quantized input they load.
  productByRowBlocks<16>(w, m, blockRows, y, prepare, rowDots);
  return true;
}

} // namespace etch::runtime::optimized::weight_only
