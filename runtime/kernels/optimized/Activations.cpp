// Activations written branch-free, in loops built for AVX-512, AVX2 and the
// baseline (IsaClones.h). gelu (exact, erf form): erf(z) = z * P(z^2) /
// Q(z^2) with z clamped to +-3.92 (where erf is 1 in f32), degree-5
// polynomials fitted to erf on [0, 4] (max abs error 3.3e-7 in f32, gelu's
// 8e-7; torch's float32 tolerance is 1e-5). sigmoid and gelu's tanh form go
// through the branch-free exp (VectorMath.h); silu has a loop of its own
// (Silu.cpp). Runs of values are split across the thread pool.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/VectorMath.h"

namespace etch::runtime::optimized {
namespace {

constexpr float kClamp = 3.92f;
constexpr float kSqrtHalf = 0.70710678118654752f;
// Numerator and denominator coefficients, constant term first.
constexpr float kP[] = {1.1283789589328872f,     0.1967416863199123f,
                        0.053532676095493434f,   0.004024601248151382f,
                        0.00028848934115363253f, 1.970879618173882e-06f};
constexpr float kQ[] = {1.0f,
                        0.507688798508134f,
                        0.11668013704741408f,
                        0.015486613274090053f,
                        0.0012213836462456901f,
                        3.746302161319187e-05f};

__attribute__((always_inline)) inline float geluErf(float x) {
  // Selects, not calls, so the loops over it vectorize.
  float z = x * kSqrtHalf;
  z = z > -kClamp ? z : -kClamp;
  z = z < kClamp ? z : kClamp;
  float s = z * z, p = kP[5], q = kQ[5];
  for (int i = 4; i >= 0; --i) {
    p = p * s + kP[i];
    q = q * s + kQ[i];
  }
  return 0.5f * x * (1.0f + z * p / q);
}

enum class Activation { GeluErf, GeluTanh, Sigmoid };

/// The switch is outside the loops, so each loop vectorizes.
__attribute__((always_inline)) inline void
mapActivationBody(Activation kind, const float *in, float *out, int64_t n) {
  switch (kind) {
  case Activation::GeluErf:
    for (int64_t i = 0; i < n; ++i)
      out[i] = geluErf(in[i]);
    return;
  case Activation::Sigmoid:
    for (int64_t i = 0; i < n; ++i)
      out[i] = 1.0f / (1.0f + expVectorizable(-in[i]));
    return;
  case Activation::GeluTanh:
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

void runActivation(const KernelCall &call, Activation kind) {
  const float *in = call.inputs[0]->data<float>();
  float *out = call.outputs[0]->data<float>();
  auto map = IsaClones<mapActivationBody>::chosen();
  ThreadPool::shared().parallelFor(call.outputs[0]->numel(), kMinValuesPerTask,
                                   [&](int64_t begin, int64_t end) {
                                     map(kind, in + begin, out + begin,
                                         end - begin);
                                   });
}

} // namespace

void runSigmoid(const KernelCall &call) {
  runActivation(call, Activation::Sigmoid);
}

void runGelu(const KernelCall &call) {
  bool tanhForm = call.stringAttr("approximate", "none")[0] == 't';
  runActivation(call, tanhForm ? Activation::GeluTanh : Activation::GeluErf);
}

} // namespace etch::runtime::optimized
