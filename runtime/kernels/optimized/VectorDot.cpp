#include "runtime/kernels/optimized/VectorDot.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/IsaClones.h"

#include <immintrin.h>

namespace etch::runtime::optimized {
namespace {

float dotScalar(const float *a, const float *b, int64_t n) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += a[i] * b[i];
  return sum;
}

__attribute__((target("avx512f"))) float dotAvx512(const float *a,
                                                   const float *b, int64_t n) {
  __m512 even = _mm512_setzero_ps(), odd = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    even =
        _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), even);
    odd = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16),
                          _mm512_loadu_ps(b + i + 16), odd);
  }
  for (; i < n; i += 16) {
    __mmask16 mask = n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1;
    even = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a + i),
                           _mm512_maskz_loadu_ps(mask, b + i), even);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(even, odd));
}

__attribute__((target("avx2,fma"))) float dotAvx2(const float *a,
                                                  const float *b, int64_t n) {
  __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    even =
        _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), even);
    odd = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8),
                          _mm256_loadu_ps(b + i + 8), odd);
  }
  __m256 v = _mm256_add_ps(even, odd);
  __m128 sum =
      _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
  sum = _mm_add_ss(sum, _mm_movehdup_ps(sum));
  float total = _mm_cvtss_f32(sum);
  for (; i < n; ++i)
    total += a[i] * b[i];
  return total;
}

using DotFn = float (*)(const float *, const float *, int64_t);

DotFn chooseDot() {
  if (cpuHasIsa("avx512"))
    return dotAvx512;
  if (cpuHasIsa("avx2"))
    return dotAvx2;
  return dotScalar;
}

} // namespace

float dot(const float *a, const float *b, int64_t n) {
  static const DotFn chosen = chooseDot();
  return chosen(a, b, n);
}

namespace {
// A plain loop the compiler vectorizes for each ISA (no reduction).
__attribute__((always_inline)) inline void axpyBody(float alpha, const float *x,
                                                    float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}
} // namespace

void axpy(float alpha, const float *x, float *y, int64_t n) {
  IsaClones<axpyBody>::call(alpha, x, y, n);
}

} // namespace etch::runtime::optimized
