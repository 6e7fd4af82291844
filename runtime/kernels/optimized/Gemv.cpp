// Few-row products: the weights stream through once. Rows variant (w is
// [n, k]): each weight row dotted with every input row in vector
// registers, reduced at the end. Columns variant (w is [k, n]): a
// block of 64 output columns stays in registers while k walks down.
#include "runtime/kernels/optimized/Gemv.h"
#include "runtime/kernels/optimized/CpuFeatures.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace etch::runtime::optimized {
namespace {

using RowsFn = void (*)(int64_t m, int64_t n, int64_t k, const float *x,
                        int64_t ldx, const float *w, float *y, int64_t ldy);

void rowsScalar(int64_t m, int64_t n, int64_t k, const float *x, int64_t ldx,
                const float *w, float *y, int64_t ldy) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += x[i * ldx + p] * w[j * k + p];
      y[i * ldy + j] += sum;
    }
}

using ColumnsFn = void (*)(int64_t m, int64_t n, int64_t k, const float *x,
                           int64_t ldx, const float *w, int64_t ldw, float *y,
                           int64_t ldy);

void columnsScalar(int64_t m, int64_t n, int64_t k, const float *x,
                   int64_t ldx, const float *w, int64_t ldw, float *y,
                   int64_t ldy) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      float a = x[i * ldx + p];
      for (int64_t j = 0; j < n; ++j)
        y[i * ldy + j] += a * w[p * ldw + j];
    }
}

// Steps of a 16-vector reduction: two selections of a and b added, which
// halves the partial sums each vector holds and doubles the vectors it
// holds them for. By 128-bit lanes (halves, then quarters), then within
// lanes (pairs, then singles).
template <int Low, int High>
__attribute__((target("avx512f"))) inline __m512 addLanePicks(__m512 a,
                                                               __m512 b) {
  return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, Low),
                       _mm512_shuffle_f32x4(a, b, High));
}
template <int Low, int High>
__attribute__((target("avx512f"))) inline __m512 addInLanePicks(__m512 a,
                                                                 __m512 b) {
  return _mm512_add_ps(_mm512_shuffle_ps(a, b, Low),
                       _mm512_shuffle_ps(a, b, High));
}

/// y[4 x 4 block, rows ldy apart] += the lane sums of acc[i][r]: a tree of
/// ~46 shuffles and adds where 16 separate reductions take ~150 (a quarter
/// of a 4 x 4 block's work at k = 512).
__attribute__((target("avx512f"))) inline void
addSums4x4(const __m512 acc[4][4], float *y, int64_t ldy) {
  const __m512 *a = &acc[0][0]; // a[v], v = 4 i + r
  __m512 b[8], c[4];
  for (int v = 0; v < 8; ++v)
    b[v] = addLanePicks<_MM_SHUFFLE(1, 0, 1, 0), _MM_SHUFFLE(3, 2, 3, 2)>(
        a[v], a[v + 8]);
  for (int v = 0; v < 4; ++v)
    c[v] = addLanePicks<_MM_SHUFFLE(2, 0, 2, 0), _MM_SHUFFLE(3, 1, 3, 1)>(
        b[v], b[v + 4]);
  constexpr int kLowPair = _MM_SHUFFLE(1, 0, 1, 0),
                kHighPair = _MM_SHUFFLE(3, 2, 3, 2);
  __m512 d = addInLanePicks<_MM_SHUFFLE(2, 0, 2, 0), _MM_SHUFFLE(3, 1, 3, 1)>(
      addInLanePicks<kLowPair, kHighPair>(c[0], c[2]),
      addInLanePicks<kLowPair, kHighPair>(c[1], c[3]));
  // Lane 4 L + t of d holds the sum of a[{0, 8, 4, 12}[L] + {0, 2, 1, 3}[t]].
  const __m512i order = _mm512_set_epi32(15, 13, 14, 12, 7, 5, 6, 4, 11, 9,
                                         10, 8, 3, 1, 2, 0);
  alignas(64) float sums[16];
  _mm512_store_ps(sums, _mm512_permutexvar_ps(order, d));
  for (int i = 0; i < 4; ++i)
    _mm_storeu_ps(y + i * ldy, _mm_add_ps(_mm_loadu_ps(y + i * ldy),
                                          _mm_load_ps(sums + 4 * i)));
}

template <int M, int R>
__attribute__((target("avx512f"))) void
rowsAvx512Block(int64_t k, const float *x, int64_t ldx, const float *w,
                float *y, int64_t ldy) {
  __m512 acc[M][R];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      acc[i][r] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 weights[R];
    for (int r = 0; r < R; ++r)
      weights[r] = _mm512_loadu_ps(w + r * k + p);
    for (int i = 0; i < M; ++i) {
      __m512 input = _mm512_loadu_ps(x + i * ldx + p);
      for (int r = 0; r < R; ++r)
        acc[i][r] = _mm512_fmadd_ps(weights[r], input, acc[i][r]);
    }
  }
  if (p < k) {
    __mmask16 mask = static_cast<__mmask16>((1u << (k - p)) - 1);
    __m512 weights[R];
    for (int r = 0; r < R; ++r)
      weights[r] = _mm512_maskz_loadu_ps(mask, w + r * k + p);
    for (int i = 0; i < M; ++i) {
      __m512 input = _mm512_maskz_loadu_ps(mask, x + i * ldx + p);
      for (int r = 0; r < R; ++r)
        acc[i][r] = _mm512_fmadd_ps(weights[r], input, acc[i][r]);
    }
  }
  if constexpr (M == 4 && R == 4) {
    addSums4x4(acc, y, ldy);
  } else {
    for (int i = 0; i < M; ++i)
      for (int r = 0; r < R; ++r)
        y[i * ldy + r] += _mm512_reduce_add_ps(acc[i][r]);
  }
}

template <int M>
__attribute__((target("avx512f"))) void
rowsAvx512(int64_t n, int64_t k, const float *x, int64_t ldx, const float *w,
           float *y, int64_t ldy) {
  // One weight row at a time: rows read in order are one sequential
  // stream from memory, which the prefetchers follow (measured faster in
  // a decode step than four rows interleaved).
  for (int64_t j = 0; j < n; ++j)
    rowsAvx512Block<M, 1>(k, x, ldx, w + j * k, y + j, ldy);
}

__attribute__((target("avx2,fma"))) inline float hsum256(__m256 v) {
  __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
  sum = _mm_add_ss(sum, _mm_movehdup_ps(sum));
  return _mm_cvtss_f32(sum);
}

template <int M, int R>
__attribute__((target("avx2,fma"))) void
rowsAvx2Block(int64_t k, const float *x, int64_t ldx, const float *w, float *y,
              int64_t ldy) {
  __m256 acc[M][R];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r)
      acc[i][r] = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    __m256 weights[R];
    for (int r = 0; r < R; ++r)
      weights[r] = _mm256_loadu_ps(w + r * k + p);
    for (int i = 0; i < M; ++i) {
      __m256 input = _mm256_loadu_ps(x + i * ldx + p);
      for (int r = 0; r < R; ++r)
        acc[i][r] = _mm256_fmadd_ps(weights[r], input, acc[i][r]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r) {
      float sum = hsum256(acc[i][r]);
      for (int64_t q = p; q < k; ++q)
        sum += x[i * ldx + q] * w[r * k + q];
      y[i * ldy + r] += sum;
    }
}

template <int M>
__attribute__((target("avx2,fma"))) void
rowsAvx2(int64_t n, int64_t k, const float *x, int64_t ldx, const float *w,
         float *y, int64_t ldy) {
  for (int64_t j = 0; j < n; ++j) // one row at a time, as above
    rowsAvx2Block<M, 1>(k, x, ldx, w + j * k, y + j, ldy);
}

/// More input rows (prefill): R weight rows stay in L1 while every block
/// of up to 4 input rows passes them, so each input vector loaded feeds R
/// multiply-adds instead of one. Block<M, R>::run(k, x, ldx, w, y, ldy).
template <template <int, int> class Block, int R>
void rowsBlocked(int64_t m, int64_t n, int64_t k, const float *x, int64_t ldx,
                 const float *w, float *y, int64_t ldy) {
  auto inputBlocks = [&](auto weightRows, int64_t j) {
    constexpr int RR = decltype(weightRows)::value;
    for (int64_t i0 = 0; i0 < m; i0 += 4) {
      const float *xs = x + i0 * ldx;
      const float *ws = w + j * k;
      float *ys = y + i0 * ldy + j;
      switch (std::min<int64_t>(m - i0, 4)) {
      case 1: Block<1, RR>::run(k, xs, ldx, ws, ys, ldy); break;
      case 2: Block<2, RR>::run(k, xs, ldx, ws, ys, ldy); break;
      case 3: Block<3, RR>::run(k, xs, ldx, ws, ys, ldy); break;
      default: Block<4, RR>::run(k, xs, ldx, ws, ys, ldy); break;
      }
    }
  };
  int64_t j = 0;
  for (; j + R <= n; j += R)
    inputBlocks(std::integral_constant<int, R>(), j);
  for (; j < n; ++j)
    inputBlocks(std::integral_constant<int, 1>(), j);
}

template <int M, int R> struct BlockAvx512 {
  static void run(int64_t k, const float *x, int64_t ldx, const float *w,
                  float *y, int64_t ldy) {
    rowsAvx512Block<M, R>(k, x, ldx, w, y, ldy);
  }
};
template <int M, int R> struct BlockAvx2 {
  static void run(int64_t k, const float *x, int64_t ldx, const float *w,
                  float *y, int64_t ldy) {
    rowsAvx2Block<M, R>(k, x, ldx, w, y, ldy);
  }
};

/// Dispatches the row count to its instantiation (1..kGemvMaxRows).
template <template <int> class Kernel>
void byRows(int64_t m, int64_t n, int64_t k, const float *x, int64_t ldx,
            const float *w, float *y, int64_t ldy) {
  for (int64_t i0 = 0; i0 < m; i0 += kGemvMaxRows) {
    const float *xs = x + i0 * ldx;
    float *ys = y + i0 * ldy;
    switch (std::min<int64_t>(m - i0, kGemvMaxRows)) {
    case 1: Kernel<1>::run(n, k, xs, ldx, w, ys, ldy); break;
    case 2: Kernel<2>::run(n, k, xs, ldx, w, ys, ldy); break;
    case 3: Kernel<3>::run(n, k, xs, ldx, w, ys, ldy); break;
    default: Kernel<4>::run(n, k, xs, ldx, w, ys, ldy); break;
    }
  }
}

template <int M> struct RowsAvx512 {
  static void run(int64_t n, int64_t k, const float *x, int64_t ldx,
                  const float *w, float *y, int64_t ldy) {
    rowsAvx512<M>(n, k, x, ldx, w, y, ldy);
  }
};
template <int M> struct RowsAvx2 {
  static void run(int64_t n, int64_t k, const float *x, int64_t ldx,
                  const float *w, float *y, int64_t ldy) {
    rowsAvx2<M>(n, k, x, ldx, w, y, ldy);
  }
};

/// Columns: 64 at a time (4 zmm per input row), masked at the edge.
template <int M>
__attribute__((target("avx512f"))) void
columnsAvx512(int64_t n, int64_t k, const float *x, int64_t ldx,
              const float *w, int64_t ldw, float *y, int64_t ldy) {
  for (int64_t j = 0; j < n; j += 64) {
    int64_t width = std::min<int64_t>(64, n - j);
    __mmask16 masks[4];
    for (int c = 0; c < 4; ++c) {
      int64_t lanes = std::clamp<int64_t>(width - 16 * c, 0, 16);
      masks[c] = static_cast<__mmask16>((1u << lanes) - 1);
    }
    __m512 acc[M][4];
    for (int i = 0; i < M; ++i)
      for (int c = 0; c < 4; ++c)
        acc[i][c] = _mm512_maskz_loadu_ps(masks[c], y + i * ldy + j + 16 * c);
    for (int64_t p = 0; p < k; ++p) {
      __m512 weights[4];
      for (int c = 0; c < 4; ++c)
        weights[c] = _mm512_maskz_loadu_ps(masks[c], w + p * ldw + j + 16 * c);
      for (int i = 0; i < M; ++i) {
        __m512 a = _mm512_set1_ps(x[i * ldx + p]);
        for (int c = 0; c < 4; ++c)
          acc[i][c] = _mm512_fmadd_ps(a, weights[c], acc[i][c]);
      }
    }
    for (int i = 0; i < M; ++i)
      for (int c = 0; c < 4; ++c)
        _mm512_mask_storeu_ps(y + i * ldy + j + 16 * c, masks[c], acc[i][c]);
  }
}

struct Isa {
  const char *name;
  RowsFn rows;
  ColumnsFn columns;
};

// Registers: 4 x 4 accumulators of 32 zmm; 4 x 2 of 16 ymm.
void rowsAvx512All(int64_t m, int64_t n, int64_t k, const float *x,
                   int64_t ldx, const float *w, float *y, int64_t ldy) {
  // One row (decoding) streams the weights from memory, and ymm loads did
  // it faster than zmm ones on Zen 5: an LLM decode step's products 0.9x
  // the time (at 4 rows neither won).
  if (m == 1)
    rowsAvx2<1>(n, k, x, ldx, w, y, ldy);
  else if (m <= kGemvMaxRows)
    byRows<RowsAvx512>(m, n, k, x, ldx, w, y, ldy);
  else
    rowsBlocked<BlockAvx512, 4>(m, n, k, x, ldx, w, y, ldy);
}
void rowsAvx2All(int64_t m, int64_t n, int64_t k, const float *x, int64_t ldx,
                 const float *w, float *y, int64_t ldy) {
  if (m <= kGemvMaxRows)
    byRows<RowsAvx2>(m, n, k, x, ldx, w, y, ldy);
  else
    rowsBlocked<BlockAvx2, 2>(m, n, k, x, ldx, w, y, ldy);
}
void columnsAvx512All(int64_t m, int64_t n, int64_t k, const float *x,
                      int64_t ldx, const float *w, int64_t ldw, float *y,
                      int64_t ldy) {
  for (int64_t i0 = 0; i0 < m; i0 += 2) {
    if (m - i0 >= 2)
      columnsAvx512<2>(n, k, x + i0 * ldx, ldx, w, ldw, y + i0 * ldy, ldy);
    else
      columnsAvx512<1>(n, k, x + i0 * ldx, ldx, w, ldw, y + i0 * ldy, ldy);
  }
}

const Isa kIsas[] = {
    {"avx512", rowsAvx512All, columnsAvx512All},
    {"avx2", rowsAvx2All, columnsScalar}, // the compiler vectorizes it
    {"scalar", rowsScalar, columnsScalar},
};

const Isa &isa() {
  static const Isa &chosen = [] () -> const Isa & {
    for (const Isa &candidate : kIsas)
      if (cpuHasIsa(candidate.name))
        return candidate;
    return kIsas[2];
  }();
  return chosen;
}

} // namespace

void gemvRowsAccumulate(int64_t m, int64_t n, int64_t k, const float *x,
                        int64_t ldx, const float *w, float *y, int64_t ldy) {
  isa().rows(m, n, k, x, ldx, w, y, ldy);
}

void gemvColumnsAccumulate(int64_t m, int64_t n, int64_t k, const float *x,
                           int64_t ldx, const float *w, int64_t ldw, float *y,
                           int64_t ldy) {
  isa().columns(m, n, k, x, ldx, w, ldw, y, ldy);
}

const char *gemvIsa() { return isa().name; }

namespace {
const Isa *named(const char *name) {
  for (const Isa &candidate : kIsas)
    if (std::strcmp(candidate.name, name) == 0 && cpuHasIsa(candidate.name))
      return &candidate;
  return nullptr;
}
} // namespace

bool gemvRowsAccumulateWith(const char *name, int64_t m, int64_t n, int64_t k,
                            const float *x, int64_t ldx, const float *w,
                            float *y, int64_t ldy) {
  const Isa *chosen = named(name);
  if (chosen)
    chosen->rows(m, n, k, x, ldx, w, y, ldy);
  return chosen != nullptr;
}

bool gemvColumnsAccumulateWith(const char *name, int64_t m, int64_t n,
                               int64_t k, const float *x, int64_t ldx,
                               const float *w, int64_t ldw, float *y,
                               int64_t ldy) {
  const Isa *chosen = named(name);
  if (chosen)
    chosen->columns(m, n, k, x, ldx, w, ldw, y, ldy);
  return chosen != nullptr;
}

} // namespace etch::runtime::optimized
