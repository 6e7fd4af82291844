// softmax and log_softmax over the last dim: exp as Cephes' expf (range
// reduction by ln 2, a degree-6 polynomial, the exponent set from the
// integer part; ~1 ulp), written branch-free so the compiler vectorizes the
// row loops, built for AVX-512, AVX2 and the baseline (target_clones).
// Softmax over another dim runs the portable kernel.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

constexpr float kExpMin = -87.33654f; // e^x is below FLT_MIN under it

/// e^x for x <= 88 (softmax's x - max <= 0): 0 below kExpMin. NaN is the
/// caller's (rows holding one take the portable path).
inline float expBranchFree(float input) {
  float x = input > kExpMin ? input : kExpMin;
  // n = round(x / ln 2) by the 1.5 * 2^23 trick; r = x - n ln 2 in two parts.
  float shifted = x * 1.44269504f + 12582912.0f;
  float n = shifted - 12582912.0f;
  float r = x - n * 0.693359375f - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  // n <= 0 here: multiply, since shifting a negative value is undefined.
  bits += static_cast<int32_t>(n) * (1 << 23);
  std::memcpy(&p, &bits, sizeof p);
  return input < kExpMin ? 0.0f : p;
}

constexpr int kLanes = 16; // partial results the compiler keeps in vectors

/// The row's maximum; false when the row holds a NaN or its maximum is
/// infinite (torch's answer is then NaN or needs inf - inf: the portable
/// path keeps its exact semantics).
__attribute__((target_clones("avx512f", "avx2", "default"))) bool
finiteMaximum(const float *src, int64_t n, float &maximum) {
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

/// The portable kernel's arithmetic for one row.
void softmaxRowExactly(const float *src, float *dst, int64_t n,
                       bool logarithm) {
  float maximum = src[0];
  for (int64_t k = 1; k < n; ++k)
    maximum = std::max(maximum, src[k]);
  float sum = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += std::exp(src[k] - maximum);
  float logSum = std::log(sum);
  for (int64_t k = 0; k < n; ++k)
    dst[k] = logarithm ? src[k] - maximum - logSum
                       : std::exp(src[k] - maximum) / sum;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
softmaxRow(const float *src, float *dst, int64_t n, bool logarithm) {
  float maximum;
  if (!finiteMaximum(src, n, maximum)) {
    softmaxRowExactly(src, dst, n, logarithm);
    return;
  }
  float sums[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float e = expBranchFree(src[k + l] - maximum);
      dst[k + l] = e;
      sums[l] += e;
    }
  float sum = 0;
  for (; k < n; ++k) {
    dst[k] = expBranchFree(src[k] - maximum);
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
  int64_t dim = portable::normalizeDim(call.intAttr("dim", -1),
                                       rank > 0 ? rank : 1);
  if (rank == 0 || dim != rank - 1) {
    (logarithm ? portable::runLogSoftmax : portable::runSoftmax)(call);
    return;
  }
  int64_t n = in.size(dim);
  int64_t rows = n ? in.numel() / n : 0;
  for (int64_t r = 0; r < rows; ++r)
    softmaxRow(in.data<float>() + r * n, call.outputs[0]->data<float>() + r * n,
               n, logarithm);
}

} // namespace

void runSoftmax(const KernelCall &call) { softmax(call, false); }
void runLogSoftmax(const KernelCall &call) { softmax(call, true); }

} // namespace etch::runtime::optimized
