// What the weight_only_linear kernels share: the packed table of a call
// (runtime/kernels/portable/WeightPacking.h) and the last step of a row.
// Internal to the optimized kernels.
#pragma once

#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace etch::runtime::optimized::weight_only {

// Columns the vector kernels step by: one 4-bit block, two 16-lane int8
// vectors. Groups must be whole steps for them.
constexpr int64_t kStep = 32;
// Per-call scratch (input sums, quantized inputs) lives on the stack: K up
// to this many columns.
constexpr int64_t kMaxColumns = 1 << 15;
// Below this many weights (times input rows) a product runs on one thread.
// A 512 x 512 table is worth splitting: int8 on 2 threads took 21 us where
// one took 41 (AVX2 EPYC) and 16 where one took 25 (AVX-512 Xeon), which
// made the reference Llama's int8 decode 1.15x faster (it was 300K).
constexpr int64_t kParallelWeights = 65536;

/// The packed table of a weight_only_linear call.
struct Weights {
  int bits;
  int64_t rows, columns, group, groups, rowBytes;
  const uint8_t *data;
  const float *scales;
  const int8_t *zeroPoints; // null: symmetric
  const float *bias;        // null: none

  const uint8_t *row(int64_t n) const { return data + n * rowBytes; }
  /// What the float kernels' sums are multiplied by: int4's q is
  /// 16 * (f - 1.5) for the float f it becomes; int8's is exact.
  float unit() const { return bits == 4 ? 16.0f : 1.0f; }
};

inline Weights weightsOf(const KernelCall &call) {
  const TensorView &weight = *call.inputs[1];
  Weights w;
  w.bits = static_cast<int>(call.intAttr("bits", 8));
  w.rows = weight.size(0);
  w.columns = w.bits == 4 ? weight.size(1) * 2 : weight.size(1);
  w.group = call.intAttr("group_size", w.columns);
  w.groups = w.columns / w.group;
  w.rowBytes = weight.size(1);
  w.data = weight.data<uint8_t>();
  w.scales = call.inputs[2]->data<float>();
  w.zeroPoints = call.input(3) ? call.input(3)->data<int8_t>() : nullptr;
  w.bias = call.input(4) ? call.input(4)->data<float>() : nullptr;
  return w;
}

/// The sum of an AVX2 vector's 8 lanes (the weight-only kernels' last step).
__attribute__((target("avx2,fma"))) inline float sumLanesAvx2(__m256 v) {
  __m128 sum =
      _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
  sum = _mm_add_ss(sum, _mm_movehdup_ps(sum));
  return _mm_cvtss_f32(sum);
}

/// Each input row's sum over each group ([m][groups]), in 8 independent
/// lanes so that it vectorizes.
inline void groupSums(const Weights &w, int64_t m, const float *x,
                      float *sums) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t g = 0; g < w.groups; ++g) {
      const float *xs = x + i * w.columns + g * w.group;
      float lanes[8] = {};
      int64_t p = 0;
      for (; p + 8 <= w.group; p += 8)
        for (int l = 0; l < 8; ++l)
          lanes[l] += xs[p + l];
      for (; p < w.group; ++p)
        lanes[0] += xs[p];
      sums[i * w.groups + g] = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
                               ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    }
}

/// y[i, n] = dot + bias, less the zero points' share when there are any.
inline void finishRow(const Weights &w, int64_t m, int64_t n,
                      const float *dots, const float *sums, float *y) {
  for (int64_t i = 0; i < m; ++i) {
    float value = dots[i] + (w.bias ? w.bias[n] : 0.0f);
    if (w.zeroPoints)
      for (int64_t g = 0; g < w.groups; ++g)
        value -= w.scales[n * w.groups + g] *
                 w.zeroPoints[n * w.groups + g] * sums[i * w.groups + g];
    y[i * w.rows + n] = value;
  }
}

// Input rows that meet a weight row at once in registers, and at most in
// one block (prefill: the block passes each weight row while it sits in
// L1, so the table is read from memory m / block times, not m times).
constexpr int64_t kRegisterRows = 4;
constexpr int64_t kMaxBlockRows = 16;

/// y = x . W^T (+ bias) for m input rows in blocks of up to \p blockRows:
/// prepare(first, count) readies rows first.. first + count - 1 (quantized
/// inputs, group sums) and returns the sums finishRow needs (null without
/// zero points); then the weight rows, split across the pool, meet the
/// block through rowDots(n, weightRows, first, count, dots): weight rows
/// n.. n + weightRows - 1 (up to \p WeightRows at once, so a kernel can
/// share each input load between them): row r's dots at
/// dots + r * kMaxBlockRows, returning false, or those rows' outputs
/// written in y itself, bias included, returning true (a kernel that has
/// them in another order than finishRow's).
template <int WeightRows = 1, typename Prepare, typename RowDots>
void productByRowBlocks(const Weights &w, int64_t m, int64_t blockRows,
                        float *y, Prepare &&prepare, RowDots &&rowDots) {
  static_assert(16 % WeightRows == 0, "a task's 16 rows split evenly");
  for (int64_t first = 0; first < m; first += blockRows) {
    int64_t count = std::min(blockRows, m - first);
    const float *sums = prepare(first, count);
    float *ys = y + first * w.rows;
    auto slice = [&](int64_t begin, int64_t end) {
      float dots[WeightRows * kMaxBlockRows];
      for (int64_t n = begin * 16, last = std::min(w.rows, end * 16); n < last;
           n += WeightRows) {
        int64_t rows = std::min<int64_t>(WeightRows, last - n);
        if (!rowDots(n, rows, first, count, dots))
          for (int64_t r = 0; r < rows; ++r)
            finishRow(w, count, n + r, dots + r * kMaxBlockRows, sums, ys);
      }
    };
    int64_t tasks = (w.rows + 15) / 16;
    int64_t grain = count * w.rows * w.columns < kParallelWeights ? tasks : 1;
    ThreadPool::shared().parallelFor(tasks, grain, slice);
  }
}

/// The int8 dot-product path for int4 tables on \p isa ("avx512vnni" or
/// "avx2"): the input quantized per 32-column block on the fly. False
/// (nothing computed) when the CPU or the table does not allow it.
bool decodeWithInt8Inputs(const char *isa, const Weights &w, int64_t m,
                          const float *x, float *y);

/// The int16 multiply-add path for int8 tables on \p isa ("avx2") for one
/// input row (m == 1), split into two int16 halves: float arithmetic.
/// False (nothing computed) when the CPU, the table, the row count or a
/// non-finite input does not allow it.
bool int8WithInt16Inputs(const char *isa, const Weights &w, int64_t m,
                         const float *x, float *y);

/// The kernel paths, widest first: "avx512vnni" (int4 tables on int8
/// inputs where the table allows, else as "avx512"), "avx512", "avx2"
/// (int4 tables on int8 inputs where the table allows, int8 tables on
/// int16 halves of a single input row, else float inputs), "scalar" (float
/// inputs).
extern const char *const kPaths[4];
/// weight_only_linear through \p path, so tests cover every one this CPU
/// runs; false (nothing computed) when cpuHasIsa does not allow it.
bool runWith(const char *path, const KernelCall &call);

} // namespace etch::runtime::optimized::weight_only
