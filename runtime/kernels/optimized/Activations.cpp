// Activations vectorized. gelu (exact, erf form): erf(z) = z * P(z^2) /
// Q(z^2) with z clamped to +-3.92 (where erf is 1 in f32), degree-5
// polynomials fitted to erf on [0, 4] (max abs error 3.3e-7 in f32, gelu's
// 8e-7; torch's float32 tolerance is 1e-5), AVX-512 and AVX2 paths by CPU
// feature. sigmoid, silu and gelu's tanh form go through the branch-free exp
// (VectorMath.h), in loops built for each ISA by target_clones.
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/VectorMath.h"

#include <immintrin.h>

#include <algorithm>

namespace etch::runtime::optimized {
namespace {

constexpr float kClamp = 3.92f;
constexpr float kSqrtHalf = 0.70710678118654752f;
// Numerator and denominator coefficients, constant term first.
constexpr float kP[] = {1.1283789589328872f, 0.1967416863199123f,
                        0.053532676095493434f, 0.004024601248151382f,
                        0.00028848934115363253f, 1.970879618173882e-06f};
constexpr float kQ[] = {1.0f, 0.507688798508134f, 0.11668013704741408f,
                        0.015486613274090053f, 0.0012213836462456901f,
                        3.746302161319187e-05f};

inline float geluScalar(float x) {
  float z = std::min(std::max(x * kSqrtHalf, -kClamp), kClamp);
  float s = z * z, p = kP[5], q = kQ[5];
  for (int i = 4; i >= 0; --i) {
    p = p * s + kP[i];
    q = q * s + kQ[i];
  }
  return 0.5f * x * (1.0f + z * p / q);
}

// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_ps in the
// masked min/max it expands to); nothing here is uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) int64_t geluAvx512(const float *in,
                                                      float *out, int64_t n) {
  int64_t i = 0;
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
  for (; i + 16 <= n; i += 16) {
    __m512 x = _mm512_loadu_ps(in + i);
    __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(kSqrtHalf));
    z = _mm512_min_ps(_mm512_max_ps(z, _mm512_set1_ps(-kClamp)),
                      _mm512_set1_ps(kClamp));
    __m512 s = _mm512_mul_ps(z, z);
    __m512 p = _mm512_set1_ps(kP[5]), q = _mm512_set1_ps(kQ[5]);
    for (int k = 4; k >= 0; --k) {
      p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(kP[k]));
      q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(kQ[k]));
    }
    __m512 erf = _mm512_div_ps(_mm512_mul_ps(z, p), q);
    _mm512_storeu_ps(out + i,
                     _mm512_mul_ps(_mm512_mul_ps(half, x), _mm512_add_ps(one, erf)));
  }
  return i;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

__attribute__((target("avx2,fma"))) int64_t geluAvx2(const float *in,
                                                     float *out, int64_t n) {
  int64_t i = 0;
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(in + i);
    __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(kSqrtHalf));
    z = _mm256_min_ps(_mm256_max_ps(z, _mm256_set1_ps(-kClamp)),
                      _mm256_set1_ps(kClamp));
    __m256 s = _mm256_mul_ps(z, z);
    __m256 p = _mm256_set1_ps(kP[5]), q = _mm256_set1_ps(kQ[5]);
    for (int k = 4; k >= 0; --k) {
      p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(kP[k]));
      q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(kQ[k]));
    }
    __m256 erf = _mm256_div_ps(_mm256_mul_ps(z, p), q);
    _mm256_storeu_ps(out + i,
                     _mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_add_ps(one, erf)));
  }
  return i;
}

using GeluLoop = int64_t (*)(const float *, float *, int64_t);

GeluLoop selectGelu() {
  if (cpuHasIsa("avx512"))
    return geluAvx512;
  if (cpuHasIsa("avx2"))
    return geluAvx2;
  return [](const float *, float *, int64_t) -> int64_t { return 0; };
}

enum class ExpActivation { Sigmoid, Silu, GeluTanh };

/// The exp-based activations; the switch is outside the loops, so each loop
/// vectorizes.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
mapExpActivation(ExpActivation kind, const float *in, float *out, int64_t n) {
  switch (kind) {
  case ExpActivation::Sigmoid:
    for (int64_t i = 0; i < n; ++i)
      out[i] = 1.0f / (1.0f + expVectorizable(-in[i]));
    return;
  case ExpActivation::Silu:
    for (int64_t i = 0; i < n; ++i)
      out[i] = in[i] / (1.0f + expVectorizable(-in[i]));
    return;
  case ExpActivation::GeluTanh:
    // tanh(u) = 1 - 2 / (e^{2u} + 1), u = sqrt(2/pi) (x + 0.044715 x^3).
    for (int64_t i = 0; i < n; ++i) {
      float x = in[i];
      float u = 0.7978845608f * (x + 0.044715f * x * x * x);
      float tanh = 1.0f - 2.0f / (expVectorizable(2.0f * u) + 1.0f);
      out[i] = 0.5f * x * (1.0f + tanh);
    }
    return;
  }
}

void runExpActivation(const KernelCall &call, ExpActivation kind) {
  mapExpActivation(kind, call.inputs[0]->data<float>(),
                   call.outputs[0]->data<float>(), call.outputs[0]->numel());
}

} // namespace

void runSigmoid(const KernelCall &call) {
  runExpActivation(call, ExpActivation::Sigmoid);
}

void runSilu(const KernelCall &call) {
  runExpActivation(call, ExpActivation::Silu);
}

void runGelu(const KernelCall &call) {
  if (call.stringAttr("approximate", "none")[0] == 't') {
    runExpActivation(call, ExpActivation::GeluTanh);
    return;
  }
  static const GeluLoop vectorLoop = selectGelu();
  const float *in = call.inputs[0]->data<float>();
  float *out = call.outputs[0]->data<float>();
  int64_t n = call.outputs[0]->numel();
  for (int64_t i = vectorLoop(in, out, n); i < n; ++i)
    out[i] = geluScalar(in[i]);
}

} // namespace etch::runtime::optimized
