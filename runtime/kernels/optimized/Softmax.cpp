// softmax and log_softmax over the last dim: max and sum in lanes, exp
// branch-free (VectorMath.h) so the compiler vectorizes the row loops, built
// for AVX-512, AVX2 and the baseline (IsaClones.h).
// Softmax over another dim, or of float64, runs the portable kernel.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/VectorMath.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>

namespace etch::runtime::optimized {
namespace {

constexpr int kLanes = 16; // partial results the compiler keeps in vectors

/// The row's maximum; false when the row holds a NaN or its maximum is
/// infinite (torch's answer is then NaN or needs inf - inf: the portable
/// path keeps its exact semantics).
__attribute__((always_inline)) inline bool
finiteMaximumBody(const float *src, int64_t n, float &maximum) {
  float lanes[kLanes];
  int nan[kLanes] = {};
  for (int l = 0; l < kLanes; ++l)
    lanes[l] = src[0];
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float x = src[k + l];
      lanes[l] = x > lanes[l] ? x : lanes[l];
      nan[l] |= x != x;
    }
  for (; k < n; ++k) {
    lanes[0] = src[k] > lanes[0] ? src[k] : lanes[0];
    nan[0] |= src[k] != src[k];
  }
  float top = lanes[0];
  int anyNan = 0;
  for (int l = 0; l < kLanes; ++l) {
    top = lanes[l] > top ? lanes[l] : top;
    anyNan |= nan[l];
  }
  maximum = top;
  return !anyNan && std::isfinite(top);
}

__attribute__((always_inline)) inline void
softmaxRowBody(const float *src, float *dst, int64_t n, bool logarithm) {
  float maximum;
  if (!finiteMaximumBody(src, n, maximum)) {
    portable::softmaxLine(src, dst, n, 1, logarithm);
    return;
  }
  float sums[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float e = expVectorizable(src[k + l] - maximum);
      dst[k + l] = e;
      sums[l] += e;
    }
  float sum = 0;
  for (; k < n; ++k) {
    dst[k] = expVectorizable(src[k] - maximum);
    sum += dst[k];
  }
  for (float lane : sums)
    sum += lane;
  if (logarithm) {
    float logSum = std::log(sum);
    for (k = 0; k < n; ++k)
      dst[k] = src[k] - maximum - logSum;
    return;
  }
  float inverse = 1.0f / sum;
  for (k = 0; k < n; ++k)
    dst[k] *= inverse;
}

void softmax(const KernelCall &call, bool logarithm) {
  const TensorView &in = *call.inputs[0];
  int rank = in.rank();
  int64_t dim =
      portable::normalizeDim(call.intAttr("dim", -1), rank > 0 ? rank : 1);
  if (rank == 0 || dim != rank - 1 || in.scalarType() != ScalarType::Float32) {
    (logarithm ? portable::runLogSoftmax : portable::runSoftmax)(call);
    return;
  }
  int64_t n = in.size(dim);
  int64_t rows = n ? in.numel() / n : 0;
  for (int64_t r = 0; r < rows; ++r)
    IsaClones<softmaxRowBody>::call(in.data<float>() + r * n,
                                    call.outputs[0]->data<float>() + r * n, n,
                                    logarithm);
}

} // namespace

void runSoftmax(const KernelCall &call) { softmax(call, false); }
void runLogSoftmax(const KernelCall &call) { softmax(call, true); }

} // namespace etch::runtime::optimized
