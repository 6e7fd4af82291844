// quantized_convolution and quantized_linear on 8-bit affine tensors with
// the portable kernels' arithmetic (their exact integer sums, then their
// requantization: portable/QuantizedOperands.h), so the bytes are the same.
// The portable references walk one output element at a time, working out
// the storage type of every operand per product (and, for convolutions,
// the window). Here an output pixel's window (a linear layer's input row) is
// gathered once, minus the input's zero point, into 16-bit values on the
// stack, and every output channel takes a dot product with it, a loop the
// compiler vectorizes (built per ISA: IsaClones.h):
// sum((w - zw) * v) = sum(w * v) - zw * sum(v). Pixels (rows and blocks of
// outputs) are split across the thread pool.
#include "runtime/kernels/optimized/IsaClones.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/kernels/portable/QuantizedOperands.h"

#include <algorithm>
#include <limits>

namespace etch::runtime::optimized {
namespace {

using portable::ChannelScale;
using portable::ConvShape;
using portable::Requantizer;

/// Windows gathered on the stack up to this many values (16 KiB); larger
/// reductions run the portable kernels.
constexpr int64_t kMaxReduction = 8192;
// An 8-bit weight times a window value (|x - zero| <= 255) summed over a
// window: every partial sum fits in 32 bits.
static_assert(kMaxReduction * 255 * 255 <= std::numeric_limits<int32_t>::max(),
              "dot products must be exact in int32");

/// sum(w[k] * v[k]) over k < n, exactly.
template <typename W>
__attribute__((always_inline)) inline int32_t
dot(const W *__restrict w, const int16_t *__restrict v, int64_t n) {
  int32_t sum = 0;
  for (int64_t k = 0; k < n; ++k)
    sum += static_cast<int32_t>(w[k]) * static_cast<int32_t>(v[k]);
  return sum;
}

/// One gathered window (n values) and the output channels that meet it.
struct Window {
  const int16_t *values;
  int64_t n;
};
struct Channels {
  int64_t first, count;
  int64_t outIndex, outStride; // channel c's output: outIndex + c * outStride
};

/// Every channel's dot product with \p window, requantized into the output.
template <typename W>
void storeProducts(const KernelCall &call, const Requantizer &requantize,
                   const Window &window, const Channels &channels) {
  const W *weight = call.inputs[1]->data<W>();
  auto product = IsaClones<dot<W>>::chosen();
  int64_t windowSum = 0;
  for (int64_t k = 0; k < window.n; ++k)
    windowSum += window.values[k];
  for (int64_t c = channels.first; c < channels.first + channels.count; ++c) {
    ChannelScale wq = portable::channelScale(call, c);
    int64_t sum = static_cast<int64_t>(
                      product(weight + c * window.n, window.values, window.n)) -
                  wq.zeroPoint * windowSum;
    requantize.store(channels.outIndex + c * channels.outStride,
                     static_cast<double>(sum) * wq.realPerUnit +
                         portable::biasOf(call, c));
  }
}

/// Calls fn(In(), W()) with the input's and the weight's storage types.
template <typename Fn> void byStorage(const KernelCall &call, Fn fn) {
  bool signedInput = call.inputs[0]->scalarType() == ScalarType::Int8;
  bool signedWeight = call.inputs[1]->scalarType() == ScalarType::Int8;
  if (signedInput)
    signedWeight ? fn(int8_t(), int8_t()) : fn(int8_t(), uint8_t());
  else
    signedWeight ? fn(uint8_t(), int8_t()) : fn(uint8_t(), uint8_t());
}

/// The window of output pixel (oy, ox) of one image and group, minus the
/// input's zero point: the value padding stands for, 0.
template <typename In>
void gatherWindow(const ConvShape &s, const In *group, int64_t inputZero,
                  int64_t oy, int64_t ox, int16_t *window) {
  int64_t top = oy * s.sh - s.ph, left = ox * s.sw - s.pw;
  int64_t inPerGroup = s.c / s.groups;
  for (int64_t icg = 0; icg < inPerGroup; ++icg) {
    const In *plane = group + icg * s.h * s.w;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      int64_t iy = top + ky * s.dh;
      bool rowInside = iy >= 0 && iy < s.h;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        int64_t ix = left + kx * s.dw;
        *window++ = rowInside && ix >= 0 && ix < s.w
                        ? static_cast<int16_t>(plane[iy * s.w + ix] - inputZero)
                        : int16_t(0);
      }
    }
  }
}

/// Output pixels [first, last) of the s.n * s.groups * oh * ow, each for
/// every output channel of its group.
template <typename In, typename W>
void convolutionPixels(const KernelCall &call, const ConvShape &s,
                       int64_t first, int64_t last) {
  const In *in = call.inputs[0]->data<In>();
  int64_t inputZero = call.inputs[0]->quant()->zeroPoints[0];
  int64_t inPerGroup = s.c / s.groups, outPerGroup = s.oc / s.groups;
  int64_t plane = s.oh * s.ow;
  Requantizer requantize(call);
  int16_t values[kMaxReduction];
  Window window{values, inPerGroup * s.kh * s.kw};
  for (int64_t pixel = first; pixel < last; ++pixel) {
    int64_t at = pixel % plane, image = pixel / plane / s.groups;
    int64_t group = pixel / plane % s.groups;
    gatherWindow(s, in + (image * s.c + group * inPerGroup) * s.h * s.w,
                 inputZero, at / s.ow, at % s.ow, values);
    storeProducts<W>(
        call, requantize, window,
        {group * outPerGroup, outPerGroup, image * s.oc * plane + at, plane});
  }
}

// Output channels of a linear layer per task: a row's gathered input is
// met by up to this many weight rows.
constexpr int64_t kLinearOutputs = 64;

/// Tasks [first, last) of rows x blocks of kLinearOutputs outputs.
template <typename In, typename W>
void linearBlocks(const KernelCall &call, int64_t features, int64_t outputs,
                  int64_t first, int64_t last) {
  const In *in = call.inputs[0]->data<In>();
  int64_t inputZero = call.inputs[0]->quant()->zeroPoints[0];
  int64_t blocks = (outputs + kLinearOutputs - 1) / kLinearOutputs;
  Requantizer requantize(call);
  int16_t values[kMaxReduction];
  for (int64_t task = first; task < last; ++task) {
    int64_t row = task / blocks, output = task % blocks * kLinearOutputs;
    for (int64_t k = 0; k < features; ++k)
      values[k] = static_cast<int16_t>(in[row * features + k] - inputZero);
    storeProducts<W>(
        call, requantize, {values, features},
        {output, std::min(kLinearOutputs, outputs - output), row * outputs, 1});
  }
}

} // namespace

void runQuantizedConvolution(const KernelCall &call) {
  ConvShape s = portable::convShape(call);
  int64_t reduction = s.c / s.groups * s.kh * s.kw;
  if (s.kd != 1 || reduction > kMaxReduction)
    return portable::runQuantizedConvolution(call);
  byStorage(call, [&](auto input, auto weight) {
    using In = decltype(input);
    using W = decltype(weight);
    ThreadPool::shared().parallelFor(
        s.n * s.groups * s.oh * s.ow,
        grainFor(reduction * s.oc / s.groups, kMinWorkPerTask),
        [&](int64_t first, int64_t last) {
          convolutionPixels<In, W>(call, s, first, last);
        });
  });
}

void runQuantizedLinear(const KernelCall &call) {
  int64_t features = call.inputs[1]->size(1), outputs = call.inputs[1]->size(0);
  if (features > kMaxReduction)
    return portable::runQuantizedLinear(call);
  int64_t rows = features ? call.inputs[0]->numel() / features : 0;
  int64_t blocks = (outputs + kLinearOutputs - 1) / kLinearOutputs;
  byStorage(call, [&](auto input, auto weight) {
    using In = decltype(input);
    using W = decltype(weight);
    ThreadPool::shared().parallelFor(
        rows * blocks, grainFor(features * kLinearOutputs, kMinWorkPerTask),
        [&](int64_t first, int64_t last) {
          linearBlocks<In, W>(call, features, outputs, first, last);
        });
  });
}

} // namespace etch::runtime::optimized
