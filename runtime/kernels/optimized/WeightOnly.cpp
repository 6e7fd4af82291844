// weight_only_linear: int8 / int4 weights (WeightPacking.h), f32 input.
//
// Few input rows (decoding): weights stream through once, 1 or 0.5 bytes
// each (what makes int8 / int4 decode faster than f32), one row after the
// other. int8 values widen to exact floats. An int4 value u = q + 8 goes
// into the mantissa of 1.0f -- f = 1 + u/16 -- with a shift and a bitwise
// select instead of an int to float conversion, so the vector units spend
// their float work on the multiply-adds: q = 16 (f - 1.5), and a group's
// dot product is 16 (sum f * x - 1.5 * sum x), each group's sum starting at
// -1.5 * sum x. A group's sum is scaled once; zero points come off at the
// end as scale * zp * sum x. int4 tables run on int8 dot products instead
// on AVX-512 VNNI and on AVX2 (WeightOnlyInt8Inputs.cpp), int8 tables
// meet one input row as two int16 halves on AVX2 (WeightOnlyInt16Inputs.cpp,
// float arithmetic). More input rows
// (prefill): blocks of up to 16 pass each weight row while it sits in L1,
// 4 at a time in registers, so the table streams from memory once per
// block. Output rows are split across the pool. Shapes and types were
// checked by the portable validate function.
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/WeightOnly.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/WeightPacking.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

namespace packing = weight_packing;
using namespace weight_only;

constexpr int32_t kOne = 0x3F800000; // 1.0f

// --- AVX-512: a step of 32 columns becomes two vectors of 16 ----------------

/// Columns p..p+31 as floats: int4 as 1 + u/16, int8 exactly.
__attribute__((target("avx512f"))) inline void
widenAvx512(int bits, const uint8_t *row, int64_t p, __m512 &low,
            __m512 &high) {
  if (bits == 4) {
    // Columns p..p+15 in the low nibbles, p+16..p+31 in the high ones;
    // a nibble lands in mantissa bits 19..22 ((a & b) | c: 0xEA).
    __m512i bytes = _mm512_cvtepu8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p / 2)));
    __m512i mask = _mm512_set1_epi32(0xF << 19), one = _mm512_set1_epi32(kOne);
    low = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_slli_epi32(bytes, 19), mask, one, 0xEA));
    high = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_slli_epi32(bytes, 15), mask, one, 0xEA));
  } else {
    low = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p))));
    high = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p + 16))));
  }
}

/// Row n against M input rows: scaled dot products in dots[i]. A group's
/// sum starts at -start / 16 in each of its 16 lanes (\p starts holds
/// int4's 1.5 * sum(x), int8's 0, per input row and group).
template <int M, int R = 1>
__attribute__((target("avx512f"))) void
dotsAvx512(const Weights &w, int64_t n, const float *x, const float *starts,
           float *dots) {
  const int bits = w.bits;
  const int64_t group = w.group, groups = w.groups, columns = w.columns;
  const float *scales = w.scales + n * groups;
  const uint8_t *rows[R];
  for (int r = 0; r < R; ++r)
    rows[r] = w.row(n + r);
  __m512 total[M][R];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      total[i][r] = _mm512_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    __m512 start[M];
    for (int i = 0; i < M; ++i)
      start[i] = _mm512_set1_ps(starts[i * groups + g] * (-1.0f / 16));
    __m512 sum[M][R], high[M][R];
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r) {
        sum[i][r] = start[i];
        high[i][r] = _mm512_setzero_ps();
      }
    for (int64_t p = g * group; p < (g + 1) * group; p += kStep) {
      __m512 wl[R], wh[R];
      for (int r = 0; r < R; ++r)
        widenAvx512(bits, rows[r], p, wl[r], wh[r]);
      for (int i = 0; i < M; ++i) {
        __m512 xl = _mm512_loadu_ps(x + i * columns + p);
        __m512 xh = _mm512_loadu_ps(x + i * columns + p + 16);
        for (int r = 0; r < R; ++r) {
          sum[i][r] = _mm512_fmadd_ps(wl[r], xl, sum[i][r]);
          high[i][r] = _mm512_fmadd_ps(wh[r], xh, high[i][r]);
        }
      }
    }
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r)
        sum[i][r] = _mm512_add_ps(sum[i][r], high[i][r]);
    for (int r = 0; r < R; ++r) {
      __m512 scale = _mm512_set1_ps(scales[r * groups + g]);
      for (int i = 0; i < M; ++i)
        total[i][r] = _mm512_fmadd_ps(sum[i][r], scale, total[i][r]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      dots[r * M + i] = _mm512_reduce_add_ps(total[i][r]) * w.unit();
}

// --- AVX2: a step of 32 columns becomes four vectors of 8 -------------------

/// A nibble shifted to mantissa bits 19..22 of 1.0f.
__attribute__((target("avx2,fma"))) inline __m256 placeNibble(__m256i shifted) {
  return _mm256_castsi256_ps(_mm256_or_si256(
      _mm256_and_si256(shifted, _mm256_set1_epi32(0xF << 19)),
      _mm256_set1_epi32(kOne)));
}

__attribute__((target("avx2,fma"))) inline void
widenAvx2(int bits, const uint8_t *row, int64_t p, __m256 out[4]) {
  if (bits == 4) {
    for (int half = 0; half < 2; ++half) { // bytes 0..7, then 8..15
      __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(
          reinterpret_cast<const __m128i *>(row + p / 2 + 8 * half)));
      out[half] = placeNibble(_mm256_slli_epi32(bytes, 19));
      out[2 + half] = placeNibble(_mm256_slli_epi32(bytes, 15));
    }
  } else {
    for (int quarter = 0; quarter < 4; ++quarter)
      out[quarter] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(
          reinterpret_cast<const __m128i *>(row + p + 8 * quarter))));
  }
}

/// As dotsAvx512, with 8-lane vectors: a group starts at -start / 8. The
/// four products of a step go to C independent sums per row pair (C = 4
/// for one input row and one weight row, a decode step: with two sums its
/// FMAs waited on each other's latency, 13 cycles per 32 int8 weights).
template <int M, int R = 1>
__attribute__((target("avx2,fma"))) void
dotsAvx2(const Weights &w, int64_t n, const float *x, const float *starts,
         float *dots) {
  constexpr int C = M * R == 1 ? 4 : 2;
  const int64_t group = w.group, groups = w.groups, columns = w.columns;
  const float *scales = w.scales + n * groups;
  __m256 total[M][R], part[M][R][C];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      total[i][r] = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    for (int i = 0; i < M; ++i) {
      __m256 start = _mm256_set1_ps(starts[i * groups + g] * (-1.0f / 8));
      for (int r = 0; r < R; ++r) {
        part[i][r][0] = start;
        for (int c = 1; c < C; ++c)
          part[i][r][c] = _mm256_setzero_ps();
      }
    }
    for (int64_t p = g * group; p < (g + 1) * group; p += kStep) {
      for (int r = 0; r < R; ++r) {
        __m256 weights[4];
        widenAvx2(w.bits, w.row(n + r), p, weights);
        for (int i = 0; i < M; ++i) {
          const float *xs = x + i * columns + p;
          for (int q = 0; q < 4; ++q)
            part[i][r][q % C] = _mm256_fmadd_ps(
                weights[q], _mm256_loadu_ps(xs + 8 * q), part[i][r][q % C]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      __m256 scale = _mm256_set1_ps(scales[r * groups + g]);
      for (int i = 0; i < M; ++i) {
        __m256 sum = part[i][r][0];
        for (int c = 1; c < C; ++c)
          sum = _mm256_add_ps(sum, part[i][r][c]);
        total[i][r] = _mm256_fmadd_ps(sum, scale, total[i][r]);
      }
    }
  }
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      dots[r * M + i] = sumLanesAvx2(total[i][r]) * w.unit();
}

/// The stored values as integers: sum over each group of q * x, scaled.
template <int M, int R = 1>
void dotsScalar(const Weights &w, int64_t n, const float *x, const float *,
                float *dots) {
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < M; ++i) {
      float total = 0;
      for (int64_t g = 0; g < w.groups; ++g) {
        float sum = 0;
        for (int64_t p = g * w.group; p < (g + 1) * w.group; ++p)
          sum += packing::quantizedAt(w.bits, w.row(n + r), p) *
                 x[i * w.columns + p];
        total += sum * w.scales[(n + r) * w.groups + g];
      }
      dots[r * M + i] = total;
    }
}

using DotsFn = void (*)(const Weights &, int64_t, const float *,
                        const float *, float *);

/// The kernel for M input rows on \p isa, one weight row at a time (a
/// sequential stream: see WeightOnlyInt8Inputs.cpp).
template <template <int> class Dots> DotsFn kernelFor(int64_t m) {
  switch (m) {
  case 1: return Dots<1>::run;
  case 2: return Dots<2>::run;
  case 3: return Dots<3>::run;
  default: return Dots<4>::run;
  }
}
template <int M> struct Avx512 {
  static void run(const Weights &w, int64_t n, const float *x,
                  const float *o, float *d) {
    dotsAvx512<M>(w, n, x, o, d);
  }
};
template <int M> struct Avx2 {
  static void run(const Weights &w, int64_t n, const float *x,
                  const float *o, float *d) {
    dotsAvx2<M>(w, n, x, o, d);
  }
};
template <int M> struct Scalar {
  static void run(const Weights &w, int64_t n, const float *x,
                  const float *o, float *d) {
    dotsScalar<M>(w, n, x, o, d);
  }
};

DotsFn kernelFor(const char *isa, int64_t m) {
  if (std::strcmp(isa, "avx512") == 0)
    return kernelFor<Avx512>(m);
  if (std::strcmp(isa, "avx2") == 0)
    return kernelFor<Avx2>(m);
  return kernelFor<Scalar>(m);
}

/// Float inputs: dot products on the fly, rows of W split across threads,
/// input rows in blocks (WeightOnly.h). Scratch for the group sums and
/// where int4's sums start lives on the stack.
void productRows(const char *isa, const Weights &w, int64_t m, const float *x,
                 float *y) {
  constexpr int64_t kScratchGroups = 4 * (kMaxColumns / kStep);
  float sums[kScratchGroups], starts[kScratchGroups];
  int64_t blockRows =
      std::clamp<int64_t>(kScratchGroups / w.groups, 1, kMaxBlockRows);
  // int8 without zero points needs neither.
  bool needSums = w.bits == 4 || w.zeroPoints;
  auto prepare = [&](int64_t first, int64_t rows) -> const float * {
    if (!needSums) {
      std::fill(starts, starts + rows * w.groups, 0.0f);
      return nullptr;
    }
    groupSums(w, rows, x + first * w.columns, sums);
    for (int64_t i = 0; i < rows * w.groups; ++i)
      starts[i] = w.bits == 4 ? 1.5f * sums[i] : 0.0f;
    return sums;
  };
  DotsFn kernels[kRegisterRows + 1] = {};
  for (int64_t count = 1; count <= kRegisterRows; ++count)
    kernels[count] = kernelFor(isa, count);
  auto rowDots = [&](int64_t n, int64_t, int64_t first, int64_t rows,
                     float *dots) {
    for (int64_t i = 0; i < rows; i += kRegisterRows)
      kernels[std::min(kRegisterRows, rows - i)](
          w, n, x + (first + i) * w.columns, starts + i * w.groups, dots + i);
    return false;
  };
  productByRowBlocks(w, m, blockRows, y, prepare, rowDots);
}

} // namespace

namespace weight_only {

const char *const kPaths[] = {"avx512vnni", "avx512", "avx2", "scalar"};

bool runWith(const char *path, const KernelCall &call) {
  if (!cpuHasIsa(path))
    return false;
  Weights w = weightsOf(call);
  const TensorView &input = *call.inputs[0];
  int64_t m = w.columns ? input.numel() / w.columns : 0;
  const float *x = input.data<float>();
  float *y = call.outputs[0]->data<float>();
  // The vector kernels step by whole 32-column blocks within groups.
  if (w.group % kStep != 0 || w.columns > kMaxColumns) {
    portable::runWeightOnlyLinear(call);
    return true;
  }
  if (decodeWithInt8Inputs(path, w, m, x, y) ||
      int8WithInt16Inputs(path, w, m, x, y))
    return true;
  productRows(std::strcmp(path, "avx512vnni") == 0 ? "avx512" : path, w, m,
              x, y);
  return true;
}

} // namespace weight_only

void runWeightOnlyLinear(const KernelCall &call) {
  // The widest path the CPU has (ETCH_CPU_ISA caps it).
  static const char *const path = [] {
    for (const char *candidate : weight_only::kPaths)
      if (cpuHasIsa(candidate))
        return candidate;
    return "scalar";
  }();
  weight_only::runWith(path, call);
}

} // namespace etch::runtime::optimized
