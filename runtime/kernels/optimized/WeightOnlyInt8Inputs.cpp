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
#include "runtime/kernels/portable/WeightPacking.h"

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
  int8_t low[64];        // columns 0..15 of each of 4 blocks
  int8_t high[64];       // columns 16..31 of the same blocks
  float scale[16];       // lane l: the input scale of its block
  int32_t start[16];     // lane l: -8 times its inputs' sum (the offset)
  int32_t blockStart[4]; // block b: -8 times its sum (the panels)
};

constexpr int64_t kChunkColumns = 128;

/// Each block's offset, the sum of its 4 lanes' (for the panels).
inline void setBlockStarts(InputChunk &chunk) {
  for (int b = 0; b < 4; ++b)
    chunk.blockStart[b] = chunk.start[4 * b] + chunk.start[4 * b + 1] +
                          chunk.start[4 * b + 2] + chunk.start[4 * b + 3];
}

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
    setBlockStarts(chunk);
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

#define ETCH_VNNI                                                              \
  __attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline

/// Weight row n against M quantized inputs (\p chunks: M rows of \p count
/// chunks each): scaled dot products in out[i]. A decode step's rows, one
/// after the other: one sequential stream of weights (interleaving rows
/// halved the bandwidth measured).
template <int M>
ETCH_VNNI void rowTile(const Weights &w, int64_t n, int64_t count,
                       const InputChunk *chunks, float *out) {
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  const float *rowScales = w.scales + n * w.groups;
  for (int64_t c = 0; c < count; ++c) {
    __m512i bytes = _mm512_loadu_si512(w.row(n) + c * 64);
    __m512i low = _mm512_and_si512(bytes, nibble);
    __m512i high = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble);
    const float *scales = rowScales + c * kChunkColumns / w.group;
    __m512 scale = w.group % kChunkColumns == 0 ? _mm512_set1_ps(*scales)
                                                : weightScales(scales, w.group);
    for (int i = 0; i < M; ++i) {
      const InputChunk &chunk = chunks[i * count + c];
      __m512i sum = _mm512_dpbusd_epi32(_mm512_load_si512(chunk.start), low,
                                        _mm512_load_si512(chunk.low));
      sum = _mm512_dpbusd_epi32(sum, high, _mm512_load_si512(chunk.high));
      total[i] = _mm512_fmadd_ps(
          _mm512_cvtepi32_ps(sum),
          _mm512_mul_ps(scale, _mm512_load_ps(chunk.scale)), total[i]);
    }
  }
  for (int i = 0; i < M; ++i)
    out[i] = _mm512_reduce_add_ps(total[i]);
}

/// A decode step's weight rows n.. n + weightRows - 1 against 1 to 3
/// inputs, one row after the other through one ISA's row tile
/// (Tiles::tile<M>): one input row straight into y with the bias (true),
/// 2 or 3 as dots in \p out (false). Inlined into each ISA's caller, so the
/// tiles inline too.
template <typename Tiles>
__attribute__((always_inline)) inline bool
decodeRows(const Weights &w, int64_t n, int64_t weightRows,
           const InputChunk *chunks, int64_t rows, float *out, float *y) {
  const int64_t count = w.columns / kChunkColumns;
  if (rows == 1) {
    for (int64_t r = 0; r < weightRows; ++r) {
      float dot;
      Tiles::template tile<1>(w, n + r, count, chunks, &dot);
      finishRow(w, 1, n + r, &dot, nullptr, y);
    }
    return true;
  }
  for (int64_t r = 0; r < weightRows; ++r, out += kMaxBlockRows)
    if (rows == 2)
      Tiles::template tile<2>(w, n + r, count, chunks, out);
    else
      Tiles::template tile<3>(w, n + r, count, chunks, out);
  return false;
}

struct VnniRowTiles {
  template <int M>
  __attribute__((target("avx512f,avx512bw,avx512vnni"))) static void
  tile(const Weights &w, int64_t n, int64_t count, const InputChunk *chunks,
       float *out) {
    rowTile<M>(w, n, count, chunks, out);
  }
};

// --- Prefill panels: weight rows one per lane ------------------------------
// A block's 16 bytes from each of a panel's rows, transposed in registers so
// that dword j of every row shares a vector: each input then meets all the
// panel's rows through broadcasts of its own 4 bytes, and a block's integer
// sums are one vector, scaled once (weight scales per lane, the input's
// block scale broadcast). Against one or two weight rows at a time this
// halves the vector instructions per product and leaves no horizontal sums.
// 16 rows with VNNI (zmm), 8 with AVX2 (ymm).

constexpr int64_t kInt4Block = weight_packing::kInt4Block;

/// What a panel's tiles read: its rows, its weight scales by group in lane
/// order, and the next panel's rows and scales to prefetch.
template <int Rows> struct Panel {
  const uint8_t *rowBytes[Rows];
  const uint8_t *scaleRows[Rows]; // each row's scales, as bytes
  const float *scales;            // by group, Rows lanes each
  const uint8_t *next;            // the next panel's first row, or null
  const float *nextScales;        // and its first row's scales
  int64_t rowStride, count, blocksPerScale;
};

/// One instruction set's panels: tiles[m - 1] meets m inputs (up to
/// Inputs), scaleGroups writes groups g.. g + 3 of the panel's scales in
/// lane order, and lane q holds row rowOf[q].
template <int Rows, int Inputs> struct PanelKernels {
  void (*tiles[Inputs])(const Panel<Rows> &, const InputChunk *, float *);
  void (*scaleGroups)(const Panel<Rows> &, int64_t g, float *scales);
  int8_t rowOf[Rows];
};

/// A panel's weight scales block by block: each group's vector of Rows
/// lanes serves group / 32 blocks, stepped to without a division.
template <int Rows> class BlockScales {
public:
  explicit BlockScales(const Panel<Rows> &panel)
      : at_(panel.scales), blocksPerScale_(panel.blocksPerScale) {}
  /// This block's scales; the next call gives the next block's.
  const float *next() {
    const float *current = at_;
    if (++blockInGroup_ == blocksPerScale_) {
      blockInGroup_ = 0;
      at_ += Rows;
    }
    return current;
  }

private:
  const float *at_;
  int64_t blocksPerScale_, blockInGroup_ = 0;
};

/// Weight rows n.. n + weightRows - 1 (at most Rows; the last row repeats
/// past them) against \p rows inputs, in tiles of up to Inputs, into their
/// columns of \p y (the inputs' output rows, w.rows apart) with the bias.
/// Out of line: its callers' flatten would take its loops into theirs.
template <int Rows, int Inputs>
__attribute__((noinline)) void
runPanel(const PanelKernels<Rows, Inputs> &kernels, const Weights &w, int64_t n,
         int64_t weightRows, const InputChunk *chunks, int64_t rows, float *y) {
  alignas(64) float scales[kMaxInputColumns / kInt4Block * Rows];
  Panel<Rows> panel;
  panel.scales = scales;
  panel.rowStride = w.rowBytes;
  panel.count = w.columns / kChunkColumns;
  panel.blocksPerScale = w.group / kInt4Block;
  panel.nextScales = w.scales + (n + Rows) * w.groups;
  for (int q = 0; q < Rows; ++q) {
    int64_t row = n + std::min<int64_t>(q, weightRows - 1);
    panel.rowBytes[q] = w.row(row);
    panel.scaleRows[q] =
        reinterpret_cast<const uint8_t *>(w.scales + row * w.groups);
  }
  // The scales in lane order, once a panel: 4 groups at a time as the
  // weights' dwords (a gather per group took a tenth of the time).
  int64_t g = 0;
  for (; g + 4 <= w.groups; g += 4)
    kernels.scaleGroups(panel, g, scales);
  for (; g < w.groups; ++g)
    for (int q = 0; q < Rows; ++q)
      scales[Rows * g + q] =
          reinterpret_cast<const float *>(panel.scaleRows[kernels.rowOf[q]])[g];
  int8_t laneOf[Rows];
  for (int q = 0; q < Rows; ++q)
    laneOf[kernels.rowOf[q]] = static_cast<int8_t>(q);
  float bias[Rows];
  for (int64_t r = 0; r < weightRows; ++r)
    bias[r] = w.bias ? w.bias[n + r] : 0.0f;
  alignas(64) float sums[Inputs * Rows];
  for (int64_t i = 0; i < rows; i += Inputs) {
    int64_t m = std::min<int64_t>(Inputs, rows - i);
    panel.next = i == 0 ? w.row(n + Rows) : nullptr;
    kernels.tiles[m - 1](panel, chunks + i * panel.count, sums);
    // Straight into y, each input's outputs one contiguous run: staging
    // them by weight row for finishRow took a tenth of a prefill.
    for (int64_t k = 0; k < m; ++k) {
      float *outputs = y + (i + k) * w.rows + n;
      for (int64_t r = 0; r < weightRows; ++r)
        outputs[r] = sums[k * Rows + laneOf[r]] + bias[r];
    }
  }
}

// VNNI: lane q = 4L + g holds row 4g + L (128-bit lane L of 4 vectors of 4
// rows each).
constexpr int kPanelRows = 16;
constexpr int kPanelInputs = 8;

/// sum += the lane dot products of \p weights with \p input's 4 bytes in
/// every lane, the input read by the instruction's own broadcast (GCC 12
/// loads it into a register first: one more instruction per product).
ETCH_VNNI void dotBroadcast(__m512i &sum, __m512i weights,
                            const int32_t &input) {
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(sum) : "v"(weights), "m"(input));
}

/// Dword j (j = 0..3) of the 16 bytes at \p offset of each of 16 rows, in
/// t[j] (lane q = 4L + g: row 4g + L): the 4x4 dword transposes of 128-bit
/// lanes that hold 4 rows each.
ETCH_VNNI void transposeDwords(const uint8_t *const rows[kPanelRows],
                               int64_t offset, __m512i t[4]) {
  __m512i v[4]; // v[g], 128-bit lane L: row 4g + L's 16 bytes
  for (int g = 0; g < 4; ++g) {
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128(
        reinterpret_cast<const __m128i *>(rows[4 * g] + offset)));
    for (int l = 1; l < 4; ++l)
      x = _mm512_mask_broadcast_i32x4(
          x, static_cast<__mmask16>(0xF << (4 * l)),
          _mm_loadu_si128(
              reinterpret_cast<const __m128i *>(rows[4 * g + l] + offset)));
    v[g] = x;
  }
  __m512i a = _mm512_unpacklo_epi32(v[0], v[1]),
          b = _mm512_unpacklo_epi32(v[2], v[3]);
  __m512i c = _mm512_unpackhi_epi32(v[0], v[1]),
          d = _mm512_unpackhi_epi32(v[2], v[3]);
  t[0] = _mm512_unpacklo_epi64(a, b);
  t[1] = _mm512_unpackhi_epi64(a, b);
  t[2] = _mm512_unpacklo_epi64(c, d);
  t[3] = _mm512_unpackhi_epi64(c, d);
}

/// One 32-column block of the panel's rows (16 bytes each): dword j's low
/// nibbles in low[j], its high ones in high[j].
ETCH_VNNI void panelBlock(const uint8_t *const rowBytes[kPanelRows],
                          int64_t offset, __m512i low[4], __m512i high[4]) {
  __m512i t[4];
  transposeDwords(rowBytes, offset, t);
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  for (int j = 0; j < 4; ++j) {
    low[j] = _mm512_and_si512(t[j], nibble);
    high[j] = _mm512_and_si512(_mm512_srli_epi16(t[j], 4), nibble);
  }
}

using VnniPanel = Panel<kPanelRows>;

/// The panel's rows against M quantized inputs (\p chunks: M rows of
/// panel.count chunks), input i's sums in out[i * kPanelRows + q] (lane
/// order). With panel.next, a chunk's bytes of the next panel's rows are
/// asked for as this one's are read: a prefill reads the table from memory
/// once, 16 rows at a time, more streams than the prefetchers follow.
template <int M>
ETCH_VNNI void panelTile(const VnniPanel &panel, const InputChunk *chunks,
                         float *out) {
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  BlockScales<kPanelRows> blockScales(panel);
  for (int64_t c = 0; c < panel.count; ++c) {
    if (panel.next) { // past the table's end a prefetch is dropped, not read
      for (int q = 0; q < kPanelRows; ++q)
        _mm_prefetch(reinterpret_cast<const char *>(
                         panel.next + q * panel.rowStride + c * 64),
                     _MM_HINT_T0);
      // The next panel's scales, 16 rows' worth (4 lines a chunk for
      // groups of 32, fewer needed for larger groups).
      for (int line = 0; line < 4; ++line)
        _mm_prefetch(reinterpret_cast<const char *>(panel.nextScales + 64 * c +
                                                    16 * line),
                     _MM_HINT_T0);
    }
    for (int b = 0; b < 4; ++b) {
      __m512i low[4], high[4];
      panelBlock(panel.rowBytes, c * 64 + 16 * b, low, high);
      __m512 weightScale = _mm512_load_ps(blockScales.next());
      for (int i = 0; i < M; ++i) {
        const InputChunk &chunk = chunks[i * panel.count + c];
        const int32_t *lowInput =
            reinterpret_cast<const int32_t *>(chunk.low + 16 * b);
        const int32_t *highInput =
            reinterpret_cast<const int32_t *>(chunk.high + 16 * b);
        __m512i sum = _mm512_set1_epi32(chunk.blockStart[b]);
        for (int j = 0; j < 4; ++j) {
          dotBroadcast(sum, low[j], lowInput[j]);
          dotBroadcast(sum, high[j], highInput[j]);
        }
        total[i] = _mm512_fmadd_ps(
            _mm512_cvtepi32_ps(sum),
            _mm512_mul_ps(weightScale, _mm512_set1_ps(chunk.scale[4 * b])),
            total[i]);
      }
    }
  }
  for (int i = 0; i < M; ++i)
    _mm512_storeu_ps(out + i * kPanelRows, total[i]);
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
scaleGroupsVnni(const VnniPanel &panel, int64_t g, float *scales) {
  __m512i t[4];
  transposeDwords(panel.scaleRows, g * sizeof(float), t);
  for (int j = 0; j < 4; ++j)
    _mm512_store_si512(scales + kPanelRows * (g + j), t[j]);
}

constexpr PanelKernels<kPanelRows, kPanelInputs> kVnniPanels = {
    {panelTile<1>, panelTile<2>, panelTile<3>, panelTile<4>, panelTile<5>,
     panelTile<6>, panelTile<7>, panelTile<8>},
    scaleGroupsVnni,
    {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}};

/// Weight rows n.. n + weightRows - 1 (a task's) against \p rows inputs:
/// a prefill block in panels of 16 weight rows, written to \p y (the
/// block's output rows; true); a decode step one row after the other, all
/// in one call (a row of 512 columns takes nanoseconds), one input row
/// into \p y as well, 2 or 3 as dots in \p out (false).
__attribute__((target("avx512f,avx512bw,avx512vnni"), flatten)) bool
dotsVnni(const Weights &w, int64_t n, int64_t weightRows,
         const InputChunk *chunks, int64_t rows, float *out, float *y) {
  if (rows >= kRegisterRows) {
    runPanel(kVnniPanels, w, n, weightRows, chunks, rows, y);
    return true;
  }
  return decodeRows<VnniRowTiles>(w, n, weightRows, chunks, rows, out, y);
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
    setBlockStarts(chunk);
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

/// rowTile with AVX2: weight row n against M (1 to 3) quantized inputs,
/// each chunk in two 256-bit halves.
template <int M>
ETCH_AVX2 void rowTileAvx2(const Weights &w, int64_t n, int64_t count,
                           const InputChunk *chunks, float *out) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const float *scales = w.scales + n * w.groups;
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  for (int64_t c = 0; c < count; ++c) {
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

// Prefill panels with AVX2: 8 weight rows, one per lane (as the VNNI
// panels; lane q holds row q). A block's 16 products of a 16-bit lane stay
// within int16 (16 * 15 * 127), so vpmaddubsw's results add in 16 bits and
// one vpmaddwd per block widens them.

constexpr int kPanelRowsAvx2 = 8;
constexpr int kPanelInputsAvx2 = 4;

/// Dword j of the 16 bytes at \p offset of rows 0..7, in t[j] (lane q: row
/// q).
ETCH_AVX2 void transposeDwordsAvx2(const uint8_t *const rows[kPanelRowsAvx2],
                                   int64_t offset, __m256i t[4]) {
  __m256i v[4]; // v[g]: rows g and g + 4
  for (int g = 0; g < 4; ++g)
    v[g] = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(
            reinterpret_cast<const __m128i *>(rows[g] + offset))),
        _mm_loadu_si128(
            reinterpret_cast<const __m128i *>(rows[g + 4] + offset)),
        1);
  __m256i a = _mm256_unpacklo_epi32(v[0], v[1]),
          b = _mm256_unpacklo_epi32(v[2], v[3]);
  __m256i c = _mm256_unpackhi_epi32(v[0], v[1]),
          d = _mm256_unpackhi_epi32(v[2], v[3]);
  t[0] = _mm256_unpacklo_epi64(a, b);
  t[1] = _mm256_unpackhi_epi64(a, b);
  t[2] = _mm256_unpacklo_epi64(c, d);
  t[3] = _mm256_unpackhi_epi64(c, d);
}

using Avx2Panel = Panel<kPanelRowsAvx2>;

/// panelTile with AVX2: the panel's 8 rows against M inputs (up to 4: the
/// 16 registers), input i's sums in out[i * 8 + q].
template <int M>
ETCH_AVX2 void panelTileAvx2(const Avx2Panel &panel, const InputChunk *chunks,
                             float *out) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  BlockScales<kPanelRowsAvx2> blockScales(panel);
  for (int64_t c = 0; c < panel.count; ++c) {
    if (panel.next) // past the table's end a prefetch is dropped, not read
      for (int q = 0; q < kPanelRowsAvx2; ++q)
        _mm_prefetch(reinterpret_cast<const char *>(
                         panel.next + q * panel.rowStride + c * 64),
                     _MM_HINT_T0);
    for (int b = 0; b < 4; ++b) {
      __m256i t[4];
      transposeDwordsAvx2(panel.rowBytes, c * 64 + 16 * b, t);
      __m256i sums[M];
      for (int j = 0; j < 4; ++j) {
        __m256i low = _mm256_and_si256(t[j], nibble);
        __m256i high = _mm256_and_si256(_mm256_srli_epi16(t[j], 4), nibble);
        for (int i = 0; i < M; ++i) {
          const InputChunk &chunk = chunks[i * panel.count + c];
          const int32_t *lowInput =
              reinterpret_cast<const int32_t *>(chunk.low + 16 * b);
          const int32_t *highInput =
              reinterpret_cast<const int32_t *>(chunk.high + 16 * b);
          __m256i pairs = _mm256_add_epi16(
              _mm256_maddubs_epi16(low, _mm256_set1_epi32(lowInput[j])),
              _mm256_maddubs_epi16(high, _mm256_set1_epi32(highInput[j])));
          sums[i] = j == 0 ? pairs : _mm256_add_epi16(sums[i], pairs);
        }
      }
      __m256 weightScale = _mm256_load_ps(blockScales.next());
      for (int i = 0; i < M; ++i) {
        const InputChunk &chunk = chunks[i * panel.count + c];
        __m256i sum =
            _mm256_add_epi32(_mm256_madd_epi16(sums[i], _mm256_set1_epi16(1)),
                             _mm256_set1_epi32(chunk.blockStart[b]));
        total[i] = _mm256_fmadd_ps(
            _mm256_cvtepi32_ps(sum),
            _mm256_mul_ps(weightScale, _mm256_set1_ps(chunk.scale[4 * b])),
            total[i]);
      }
    }
  }
  for (int i = 0; i < M; ++i)
    _mm256_storeu_ps(out + i * kPanelRowsAvx2, total[i]);
}

__attribute__((target("avx2,fma"))) void
scaleGroupsAvx2(const Avx2Panel &panel, int64_t g, float *scales) {
  __m256i t[4];
  transposeDwordsAvx2(panel.scaleRows, g * sizeof(float), t);
  for (int j = 0; j < 4; ++j)
    _mm256_store_si256(
        reinterpret_cast<__m256i *>(scales + kPanelRowsAvx2 * (g + j)), t[j]);
}

constexpr PanelKernels<kPanelRowsAvx2, kPanelInputsAvx2> kAvx2Panels = {
    {panelTileAvx2<1>, panelTileAvx2<2>, panelTileAvx2<3>, panelTileAvx2<4>},
    scaleGroupsAvx2,
    {0, 1, 2, 3, 4, 5, 6, 7}};

struct Avx2RowTiles {
  template <int M>
  __attribute__((target("avx2,fma"))) static void
  tile(const Weights &w, int64_t n, int64_t count, const InputChunk *chunks,
       float *out) {
    rowTileAvx2<M>(w, n, count, chunks, out);
  }
};

/// dotsVnni with AVX2: prefill in panels of 8 weight rows (0.69-0.92x the
/// time of one row against 4 inputs at a time), a decode step one row at a
/// time.
__attribute__((target("avx2,fma"), flatten)) bool
dotsAvx2Rows(const Weights &w, int64_t n, int64_t weightRows,
             const InputChunk *chunks, int64_t rows, float *out, float *y) {
  if (rows >= kRegisterRows) {
    for (int64_t r = 0; r < weightRows; r += kPanelRowsAvx2)
      runPanel(kAvx2Panels, w, n + r,
               std::min<int64_t>(kPanelRowsAvx2, weightRows - r), chunks, rows,
               y);
    return true;
  }
  return decodeRows<Avx2RowTiles>(w, n, weightRows, chunks, rows, out, y);
}

#undef ETCH_AVX2

using DotsFn = bool (*)(const Weights &, int64_t, int64_t, const InputChunk *,
                        int64_t, float *, float *);
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
  auto rowDots = [&](int64_t n, int64_t weightRows, int64_t first, int64_t rows,
                     float *out) {
    return path->dots(w, n, weightRows, chunks, rows, out, y + first * w.rows);
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
