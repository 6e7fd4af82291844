// silu(x) = x / (1 + e^-x) in one pass, written with intrinsics for AVX-512
// and AVX2: the reciprocal is an estimate refined by one Newton step (a
// division is the slowest instruction in the loop), and e^t is Cephes'
// polynomial (VectorMath.h) with 2^n applied by scalef (AVX-512) or in the
// exponent bits (AVX2). t = -x is clamped to [-87, 88], where e^t and
// 1 + e^t are normal floats; below x = -87 the result is x * 0 (-0, and NaN
// for -inf, as x / (1 + e^-x) gives), and x's NaN passes through the final
// product. Relative error within 3e-7 of the exact value (every 97th float
// in [-100, 100]; tested against the portable kernel with torch's float32
// tolerance). What is left after the last whole step goes through the same
// vectors with masked loads and stores.
#include "runtime/kernels/optimized/Activations.h"
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/VectorMath.h"

#include <immintrin.h>

#include <algorithm>

// GCC 12's avx512fintrin.h passes _mm512_undefined_ps() to masked builtins,
// then warns that it may be used uninitialized (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace etch::runtime::optimized {
namespace {

constexpr float kLowT = -87.0f, kHighT = 88.0f, kLowX = -87.0f;

float siluScalar(float x) { return x / (1.0f + expVectorizable(-x)); }

/// silu of kLanes vectors at once, each step over all of them: a vector's
/// chain of dependent instructions is ~60 cycles long, longer than the core
/// looks ahead, and GCC (which does not schedule before register allocation
/// on x86) would otherwise compute one vector's whole chain after the
/// other's (4 vectors: 0.74x the time of one after another on AVX2, 2 and 6
/// were slower). The chain is kept short: n = round(t log2 e) by adding a
/// magic number whose low bits then hold n + 127 (AVX2: 2^n from those
/// bits), and the polynomial in Estrin's form.
constexpr int kLanes = 4;
struct Vectors {
  __m256 v[kLanes];
  __m256 &operator[](int j) { return v[j]; }
};

#define ETCH_EACH for (int j = 0; j < kLanes; ++j)

__attribute__((target("avx2,fma"), always_inline)) inline Vectors
siluVectors(Vectors x) {
  // 1.5 * 2^23 + 127: n + 127 in the low bits of t log2 e + kMagic.
  const __m256 magic = _mm256_set1_ps(12583039.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  Vectors t, scale, n, r, r2, p, d, rc;
  ETCH_EACH t[j] =
      _mm256_min_ps(_mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), x[j]),
                                  _mm256_set1_ps(kLowT)),
                    _mm256_set1_ps(kHighT));
  ETCH_EACH n[j] = _mm256_fmadd_ps(t[j], _mm256_set1_ps(kExpLog2e), magic);
  // 2^n: n + 127 in [1, 254] on the clamped range, shifted into the
  // exponent.
  ETCH_EACH scale[j] =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n[j]), 23));
  ETCH_EACH n[j] = _mm256_sub_ps(n[j], magic);
  ETCH_EACH r[j] = _mm256_fnmadd_ps(n[j], _mm256_set1_ps(kExpLn2High), t[j]);
  ETCH_EACH r[j] = _mm256_fnmadd_ps(n[j], _mm256_set1_ps(kExpLn2Low), r[j]);
  // e^r = 1 + r + r^2 p(r), p of degree 5 in three pairs of terms.
  ETCH_EACH r2[j] = _mm256_mul_ps(r[j], r[j]);
  ETCH_EACH {
    __m256 high = _mm256_fmadd_ps(_mm256_set1_ps(kExpPoly[0]), r[j],
                                  _mm256_set1_ps(kExpPoly[1]));
    __m256 middle = _mm256_fmadd_ps(_mm256_set1_ps(kExpPoly[2]), r[j],
                                    _mm256_set1_ps(kExpPoly[3]));
    p[j] = _mm256_fmadd_ps(high, r2[j], middle);
  }
  ETCH_EACH p[j] =
      _mm256_fmadd_ps(p[j], r2[j],
                      _mm256_fmadd_ps(_mm256_set1_ps(kExpPoly[4]), r[j],
                                      _mm256_set1_ps(kExpPoly[5])));
  // 1 + e^t = 2^n (r + r^2 p) + (2^n + 1).
  ETCH_EACH d[j] = _mm256_fmadd_ps(scale[j], _mm256_fmadd_ps(p[j], r2[j], r[j]),
                                   _mm256_add_ps(scale[j], one));
  ETCH_EACH rc[j] = _mm256_rcp_ps(d[j]);
  ETCH_EACH rc[j] =
      _mm256_fmadd_ps(rc[j], _mm256_fnmadd_ps(d[j], rc[j], one), rc[j]);
  Vectors result;
  ETCH_EACH result[j] = _mm256_blendv_ps(
      _mm256_mul_ps(x[j], rc[j]), _mm256_mul_ps(x[j], _mm256_setzero_ps()),
      _mm256_cmp_ps(x[j], _mm256_set1_ps(kLowX), _CMP_LT_OQ));
  return result;
}

/// The AVX2 siluVectors' steps for AVX-512, with 2^n applied by scalef.
struct Vectors512 {
  __m512 v[kLanes];
  __m512 &operator[](int j) { return v[j]; }
};

__attribute__((target("avx512f"), always_inline)) inline Vectors512
siluVectors(Vectors512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  Vectors512 t, n, r, r2, p, d, rc;
  ETCH_EACH t[j] =
      _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), x[j]),
                                  _mm512_set1_ps(kLowT)),
                    _mm512_set1_ps(kHighT));
  ETCH_EACH n[j] =
      _mm512_roundscale_ps(_mm512_mul_ps(t[j], _mm512_set1_ps(kExpLog2e)),
                           _MM_FROUND_TO_NEAREST_INT);
  ETCH_EACH r[j] = _mm512_fnmadd_ps(n[j], _mm512_set1_ps(kExpLn2High), t[j]);
  ETCH_EACH r[j] = _mm512_fnmadd_ps(n[j], _mm512_set1_ps(kExpLn2Low), r[j]);
  ETCH_EACH r2[j] = _mm512_mul_ps(r[j], r[j]);
  ETCH_EACH {
    __m512 high = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly[0]), r[j],
                                  _mm512_set1_ps(kExpPoly[1]));
    __m512 middle = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly[2]), r[j],
                                    _mm512_set1_ps(kExpPoly[3]));
    p[j] = _mm512_fmadd_ps(high, r2[j], middle);
  }
  ETCH_EACH p[j] =
      _mm512_fmadd_ps(p[j], r2[j],
                      _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly[4]), r[j],
                                      _mm512_set1_ps(kExpPoly[5])));
  ETCH_EACH d[j] = _mm512_add_ps(
      _mm512_scalef_ps(_mm512_add_ps(_mm512_fmadd_ps(p[j], r2[j], r[j]), one),
                       n[j]),
      one);
  ETCH_EACH rc[j] = _mm512_rcp14_ps(d[j]);
  ETCH_EACH rc[j] =
      _mm512_fmadd_ps(rc[j], _mm512_fnmadd_ps(d[j], rc[j], one), rc[j]);
  Vectors512 result;
  ETCH_EACH result[j] = _mm512_mask_mul_ps(
      _mm512_mul_ps(x[j], rc[j]),
      _mm512_cmp_ps_mask(x[j], _mm512_set1_ps(kLowX), _CMP_LT_OQ), x[j],
      _mm512_setzero_ps());
  return result;
}

#undef ETCH_EACH

__attribute__((target("avx512f"))) void siluAvx512(const float *in, float *out,
                                                   int64_t count) {
  constexpr int64_t kStep = 16 * kLanes;
  int64_t i = 0;
  for (; i + kStep <= count; i += kStep) {
    Vectors512 x;
    for (int j = 0; j < kLanes; ++j)
      x[j] = _mm512_loadu_ps(in + i + 16 * j);
    x = siluVectors(x);
    for (int j = 0; j < kLanes; ++j)
      _mm512_storeu_ps(out + i + 16 * j, x[j]);
  }
  if (i == count)
    return;
  // What is left, in masked loads and stores.
  __mmask16 masks[kLanes];
  Vectors512 x;
  for (int j = 0; j < kLanes; ++j) {
    int64_t left = std::clamp<int64_t>(count - i - 16 * j, 0, 16);
    masks[j] = static_cast<__mmask16>((1u << left) - 1);
    x[j] = _mm512_maskz_loadu_ps(masks[j], in + i + 16 * j);
  }
  x = siluVectors(x);
  for (int j = 0; j < kLanes; ++j)
    _mm512_mask_storeu_ps(out + i + 16 * j, masks[j], x[j]);
}

__attribute__((target("avx2,fma"))) void siluAvx2(const float *in, float *out,
                                                  int64_t count) {
  constexpr int64_t kStep = 8 * kLanes;
  int64_t i = 0;
  for (; i + kStep <= count; i += kStep) {
    Vectors x;
    for (int j = 0; j < kLanes; ++j)
      x[j] = _mm256_loadu_ps(in + i + 8 * j);
    x = siluVectors(x);
    for (int j = 0; j < kLanes; ++j)
      _mm256_storeu_ps(out + i + 8 * j, x[j]);
  }
  if (i == count)
    return;
  // What is left, in masked loads and stores.
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i masks[kLanes];
  Vectors x;
  for (int j = 0; j < kLanes; ++j) {
    int64_t left = std::clamp<int64_t>(count - i - 8 * j, 0, 8);
    masks[j] =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), lane);
    x[j] = _mm256_maskload_ps(in + i + 8 * j, masks[j]);
  }
  x = siluVectors(x);
  for (int j = 0; j < kLanes; ++j)
    _mm256_maskstore_ps(out + i + 8 * j, masks[j], x[j]);
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
  ThreadPool::shared().parallelFor(count, kMinValuesPerTask,
                                   [&](int64_t begin, int64_t end) {
                                     silu(in + begin, out + begin, end - begin);
                                   });
}

void runSilu(const KernelCall &call) {
  siluParallel(call.inputs[0]->data<float>(), call.outputs[0]->data<float>(),
               call.outputs[0]->numel());
}

} // namespace etch::runtime::optimized
