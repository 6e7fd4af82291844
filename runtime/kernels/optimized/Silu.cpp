// silu(x) = x / (1 + e^-x) in one pass, written with intrinsics for AVX-512
// and AVX2: the reciprocal is an estimate refined by one Newton step (a
// division is the slowest instruction in the loop), and e^t is Cephes'
// polynomial (VectorMath.h) with 2^n applied by scalef (AVX-512) or in the
// exponent bits (AVX2). t = -x is clamped to [-87, 88], where e^t and
// 1 + e^t are normal floats; below x = -87 the result is x * 0 (-0, and NaN
// for -inf, as x / (1 + e^-x) gives), and x's NaN passes through the final
// product. Relative error within 4e-7 of the exact value (tested against
// the portable kernel with torch's float32 tolerance).
#include "runtime/kernels/optimized/Activations.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/VectorMath.h"

#include <immintrin.h>

// GCC 12's avx512fintrin.h passes _mm512_undefined_ps() to masked builtins,
// then warns that it may be used uninitialized (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace etch::runtime::optimized {
namespace {

constexpr float kLowT = -87.0f, kHighT = 88.0f, kLowX = -87.0f;

float siluScalar(float x) { return x / (1.0f + expVectorizable(-x)); }

__attribute__((target("avx512f"))) __m512 siluVector(__m512 x) {
  __m512 t = _mm512_min_ps(
      _mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), x),
                    _mm512_set1_ps(kLowT)),
      _mm512_set1_ps(kHighT));
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(kExpLog2e)),
                                  _MM_FROUND_TO_NEAREST_INT);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2High), t);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Low), r);
  __m512 p = _mm512_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i)
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[i]));
  __m512 one = _mm512_set1_ps(1.0f);
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, one));
  __m512 d = _mm512_add_ps(_mm512_scalef_ps(p, n), one);
  __m512 rc = _mm512_rcp14_ps(d);
  rc = _mm512_fmadd_ps(rc, _mm512_fnmadd_ps(d, rc, one), rc);
  __mmask16 low = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kLowX), _CMP_LT_OQ);
  return _mm512_mask_mul_ps(_mm512_mul_ps(x, rc), low, x,
                            _mm512_setzero_ps());
}

__attribute__((target("avx512f"))) void siluAvx512(const float *in,
                                                    float *out,
                                                    int64_t count) {
  int64_t i = 0;
  // Four independent vectors per step: each is a chain of ~20 dependent
  // instructions.
  for (; i + 64 <= count; i += 64) {
    __m512 a = siluVector(_mm512_loadu_ps(in + i));
    __m512 b = siluVector(_mm512_loadu_ps(in + i + 16));
    __m512 c = siluVector(_mm512_loadu_ps(in + i + 32));
    __m512 d = siluVector(_mm512_loadu_ps(in + i + 48));
    _mm512_storeu_ps(out + i, a);
    _mm512_storeu_ps(out + i + 16, b);
    _mm512_storeu_ps(out + i + 32, c);
    _mm512_storeu_ps(out + i + 48, d);
  }
  for (; i + 16 <= count; i += 16)
    _mm512_storeu_ps(out + i, siluVector(_mm512_loadu_ps(in + i)));
  if (i < count) {
    __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1);
    _mm512_mask_storeu_ps(out + i, tail,
                          siluVector(_mm512_maskz_loadu_ps(tail, in + i)));
  }
}

__attribute__((target("avx2,fma"))) __m256 siluVector(__m256 x) {
  __m256 t = _mm256_min_ps(
      _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), x),
                    _mm256_set1_ps(kLowT)),
      _mm256_set1_ps(kHighT));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(kExpLog2e)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kExpLn2High), t);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kExpLn2Low), r);
  __m256 p = _mm256_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i)
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpPoly[i]));
  __m256 one = _mm256_set1_ps(1.0f);
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, one));
  // 2^n into the exponent: n is in [-126, 127] on the clamped range.
  __m256i scaled = _mm256_add_epi32(
      _mm256_castps_si256(p), _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23));
  __m256 d = _mm256_add_ps(_mm256_castsi256_ps(scaled), one);
  __m256 rc = _mm256_rcp_ps(d);
  rc = _mm256_fmadd_ps(rc, _mm256_fnmadd_ps(d, rc, one), rc);
  __m256 low = _mm256_cmp_ps(x, _mm256_set1_ps(kLowX), _CMP_LT_OQ);
  return _mm256_blendv_ps(_mm256_mul_ps(x, rc),
                          _mm256_mul_ps(x, _mm256_setzero_ps()), low);
}

__attribute__((target("avx2,fma"))) void siluAvx2(const float *in, float *out,
                                                  int64_t count) {
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256 a = siluVector(_mm256_loadu_ps(in + i));
    __m256 b = siluVector(_mm256_loadu_ps(in + i + 8));
    __m256 c = siluVector(_mm256_loadu_ps(in + i + 16));
    __m256 d = siluVector(_mm256_loadu_ps(in + i + 24));
    _mm256_storeu_ps(out + i, a);
    _mm256_storeu_ps(out + i + 8, b);
    _mm256_storeu_ps(out + i + 16, c);
    _mm256_storeu_ps(out + i + 24, d);
  }
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(out + i, siluVector(_mm256_loadu_ps(in + i)));
  for (; i < count; ++i)
    out[i] = siluScalar(in[i]);
}

void siluBaseline(const float *in, float *out, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    out[i] = siluScalar(in[i]);
}

} // namespace

void silu(const float *in, float *out, int64_t count) {
  using Fn = void (*)(const float *, float *, int64_t);
  static const Fn fn = cpuHasIsa("avx512") ? siluAvx512
                       : cpuHasIsa("avx2") ? siluAvx2
                                           : siluBaseline;
  fn(in, out, count);
}

void siluParallel(const float *in, float *out, int64_t count) {
  // ~16K elements take a few microseconds on one core: below it a second
  // thread's hand-off costs about what it saves.
  constexpr int64_t kGrain = 16384;
  ThreadPool::shared().parallelFor(count, kGrain,
                                   [&](int64_t begin, int64_t end) {
                                     silu(in + begin, out + begin, end - begin);
                                   });
}

void runSilu(const KernelCall &call) {
  siluParallel(call.inputs[0]->data<float>(), call.outputs[0]->data<float>(),
               call.outputs[0]->numel());
}

} // namespace etch::runtime::optimized
