// batch_norm (inference), layer_norm, softmax, log_softmax.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace etch::runtime::portable {

// Inputs: input, weight?, bias?, running_mean, running_var. Absent optional
// inputs are null entries, so the layout is fixed.
Error validateBatchNorm(const KernelCall &call) {
  if (call.inputs.size() != 5 || call.outputs.size() != 1 || !call.inputs[0] ||
      !call.inputs[3] || !call.inputs[4])
    return kernelError(
        call, Error::InvalidProgram,
        "needs input, weight?, bias?, running_mean, running_var");
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkType(call, &in, "input", ScalarType::Float32));
  if (in.rank() < 2)
    return kernelError(call, Error::InvalidShape, "input must have rank >= 2");
  int64_t channels[1] = {in.size(1)};
  const char *names[] = {"input", "weight", "bias", "running_mean",
                         "running_var"};
  for (size_t i = 1; i < 5; ++i) {
    if (!call.inputs[i])
      continue;
    ET_CHECK_OK(checkType(call, call.inputs[i], names[i], ScalarType::Float32));
    ET_CHECK_OK(checkShape(call, call.inputs[i], names[i], channels, 1));
  }
  return checkSameShape(call, &in, call.outputs[0], "output");
}

void runBatchNorm(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const float *weight =
      call.inputs[1] ? call.inputs[1]->data<float>() : nullptr;
  const float *bias = call.inputs[2] ? call.inputs[2]->data<float>() : nullptr;
  const float *mean = call.inputs[3]->data<float>();
  const float *var = call.inputs[4]->data<float>();
  float eps = static_cast<float>(call.doubleAttr("eps", 1e-5));
  int64_t n = in.size(0), c = in.size(1);
  int64_t inner = n * c != 0 ? in.numel() / (n * c) : 0;
  const float *src = in.data<float>();
  float *dst = call.outputs[0]->data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      float scale = (weight ? weight[ch] : 1.0f) / std::sqrt(var[ch] + eps);
      float shift = (bias ? bias[ch] : 0.0f) - mean[ch] * scale;
      const float *s = src + (b * c + ch) * inner;
      float *d = dst + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i)
        d[i] = s[i] * scale + shift;
    }
}

// Inputs: input, weight?, bias?.
Error validateLayerNorm(const KernelCall &call) {
  if (call.inputs.size() != 3 || call.outputs.size() != 1 || !call.inputs[0])
    return kernelError(call, Error::InvalidProgram,
                       "needs input, weight?, bias?");
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkType(call, &in, "input", ScalarType::Float32));
  Span<const int64_t> shape = call.intsAttr("normalized_shape");
  if (shape.empty() || static_cast<int>(shape.size()) > in.rank())
    return kernelError(call, Error::InvalidProgram, "bad normalized_shape");
  for (size_t i = 0; i < shape.size(); ++i)
    if (in.size(in.rank() - shape.size() + i) != shape[i])
      return kernelError(call, Error::InvalidShape,
                         "normalized_shape differs from the trailing dims");
  for (size_t i = 1; i < 3; ++i)
    if (call.inputs[i]) {
      ET_CHECK_OK(
          checkType(call, call.inputs[i], "parameter", ScalarType::Float32));
      ET_CHECK_OK(checkShape(call, call.inputs[i], "parameter", shape.data(),
                             static_cast<int>(shape.size())));
    }
  return checkSameShape(call, &in, call.outputs[0], "output");
}

void runLayerNorm(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const float *weight =
      call.inputs[1] ? call.inputs[1]->data<float>() : nullptr;
  const float *bias = call.inputs[2] ? call.inputs[2]->data<float>() : nullptr;
  double eps = call.doubleAttr("eps", 1e-5);
  int64_t inner = 1;
  for (int64_t size : call.intsAttr("normalized_shape"))
    inner *= size;
  int64_t rows = inner ? in.numel() / inner : 0;
  const float *src = in.data<float>();
  float *dst = call.outputs[0]->data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float *s = src + r * inner;
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < inner; ++i)
      sum += s[i];
    double mean = sum / inner;
    for (int64_t i = 0; i < inner; ++i)
      squares += (s[i] - mean) * (s[i] - mean);
    float invStd = static_cast<float>(1.0 / std::sqrt(squares / inner + eps));
    float *d = dst + r * inner;
    for (int64_t i = 0; i < inner; ++i)
      d[i] = (s[i] - static_cast<float>(mean)) * invStd *
                 (weight ? weight[i] : 1.0f) +
             (bias ? bias[i] : 0.0f);
  }
}

Error validateSoftmax(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkFloatType(call, in, "self"));
  if (normalizeDim(call.intAttr("dim", -1), std::max(in.rank(), 1)) < 0)
    return kernelError(call, Error::InvalidProgram, "dim is out of range");
  return checkSameShape(call, &in, call.outputs[0], "output");
}

namespace {
/// softmaxLine in \p T (float64 programs compute in double, as torch).
template <typename T>
void softmaxLineOf(const T *s, T *d, int64_t extent, int64_t stride,
                   bool logarithm) {
  T maximum = s[0];
  for (int64_t k = 1; k < extent; ++k)
    maximum = std::max(maximum, s[k * stride]);
  T sum = 0;
  for (int64_t k = 0; k < extent; ++k)
    sum += std::exp(s[k * stride] - maximum);
  if (logarithm) {
    T logSum = std::log(sum);
    for (int64_t k = 0; k < extent; ++k)
      d[k * stride] = s[k * stride] - maximum - logSum;
  } else {
    for (int64_t k = 0; k < extent; ++k)
      d[k * stride] = std::exp(s[k * stride] - maximum) / sum;
  }
}

void softmax(const KernelCall &call, bool logarithm) {
  const TensorView &in = *call.inputs[0];
  int rank = in.rank();
  int64_t dim = normalizeDim(call.intAttr("dim", -1), std::max(rank, 1));
  int64_t extent = rank ? in.size(dim) : 1;
  int64_t inner = rank ? in.stride(dim) : 1;
  int64_t outer = extent * inner != 0 ? in.numel() / (extent * inner) : 0;
  visitFloatType(in.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const T *src = in.data<T>();
    T *dst = call.outputs[0]->data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        softmaxLineOf(src + o * extent * inner + i,
                      dst + o * extent * inner + i, extent, inner, logarithm);
  });
}
} // namespace

void softmaxLine(const float *s, float *d, int64_t extent, int64_t stride,
                 bool logarithm) {
  softmaxLineOf(s, d, extent, stride, logarithm);
}

void runSoftmax(const KernelCall &call) { softmax(call, false); }
void runLogSoftmax(const KernelCall &call) { softmax(call, true); }

} // namespace etch::runtime::portable
