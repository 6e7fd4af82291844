// layer_norm with f32 sums the compiler vectorizes (16 partial sums, built
// for AVX-512, AVX2 and the baseline, picked under ETCH_CPU_ISA: IsaClones.h).
// The portable kernel sums in double; these sums in f32 lanes agree to
// ~1e-6 relative over the row lengths models use.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <cmath>

namespace etch::runtime::optimized {
namespace {

constexpr int kLanes = 16;

__attribute__((always_inline)) inline void
normalizeRowBody(const float *src, float *dst, int64_t n, const float *weight,
                 const float *bias, float eps) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l)
      lanes[l] += src[i + l];
  float sum = 0;
  for (; i < n; ++i)
    sum += src[i];
  for (float lane : lanes)
    sum += lane;
  float mean = sum / static_cast<float>(n);
  float squares[kLanes] = {};
  for (i = 0; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float centered = src[i + l] - mean;
      squares[l] += centered * centered;
    }
  float variance = 0;
  for (; i < n; ++i)
    variance += (src[i] - mean) * (src[i] - mean);
  for (float lane : squares)
    variance += lane;
  float invStd = 1.0f / std::sqrt(variance / static_cast<float>(n) + eps);
  for (i = 0; i < n; ++i) {
    float y = (src[i] - mean) * invStd;
    dst[i] = y * (weight ? weight[i] : 1.0f) + (bias ? bias[i] : 0.0f);
  }
}

} // namespace

void runLayerNorm(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const float *weight =
      call.inputs[1] ? call.inputs[1]->data<float>() : nullptr;
  const float *bias = call.inputs[2] ? call.inputs[2]->data<float>() : nullptr;
  auto eps = static_cast<float>(call.doubleAttr("eps", 1e-5));
  int64_t inner = 1;
  for (int64_t size : call.intsAttr("normalized_shape"))
    inner *= size;
  int64_t rows = inner ? in.numel() / inner : 0;
  const float *x = in.data<float>();
  float *y = call.outputs[0]->data<float>();
  auto normalize = IsaClones<normalizeRowBody>::chosen();
  // Rows across the pool.
  ThreadPool::shared().parallelFor(rows, grainFor(inner, kMinValuesPerTask),
                                   [&](int64_t first, int64_t last) {
                                     for (int64_t r = first; r < last; ++r)
                                       normalize(x + r * inner, y + r * inner,
                                                 inner, weight, bias, eps);
                                   });
}

} // namespace etch::runtime::optimized
