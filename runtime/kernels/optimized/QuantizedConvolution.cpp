// quantized_convolution on 8-bit affine tensors with the portable kernel's
// arithmetic (its exact integer sums, then its requantization:
// portable/QuantizedOperands.h), so the bytes are the same. The portable
// reference walks one output element at a time, working out its window and
// the storage type of every operand per product. Here each output pixel's
// window is gathered once, minus the input's zero point, into 16-bit values
// on the stack, and every output channel of its group takes a dot product
// with it, a loop the compiler vectorizes (built per ISA: IsaClones.h):
// sum((w - zw) * v) = sum(w * v) - zw * sum(v). Pixels are split across
// the thread pool.
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
/// reductions run the portable kernel.
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
void pixels(const KernelCall &call, const ConvShape &s, int64_t first,
            int64_t last) {
  const In *in = call.inputs[0]->data<In>();
  const W *weight = call.inputs[1]->data<W>();
  int64_t inputZero = call.inputs[0]->quant()->zeroPoints[0];
  int64_t inPerGroup = s.c / s.groups, outPerGroup = s.oc / s.groups;
  int64_t reduction = inPerGroup * s.kh * s.kw, plane = s.oh * s.ow;
  auto product = IsaClones<dot<W>>::chosen();
  Requantizer requantize(call);
  int16_t window[kMaxReduction];
  for (int64_t pixel = first; pixel < last; ++pixel) {
    int64_t at = pixel % plane, image = pixel / plane / s.groups;
    int64_t group = pixel / plane % s.groups;
    gatherWindow(s, in + (image * s.c + group * inPerGroup) * s.h * s.w,
                 inputZero, at / s.ow, at % s.ow, window);
    int64_t windowSum = 0;
    for (int64_t k = 0; k < reduction; ++k)
      windowSum += window[k];
    for (int64_t o = 0; o < outPerGroup; ++o) {
      int64_t oc = group * outPerGroup + o;
      ChannelScale wq = portable::channelScale(call, oc);
      int64_t sum = static_cast<int64_t>(
                        product(weight + oc * reduction, window, reduction)) -
                    wq.zeroPoint * windowSum;
      requantize.store((image * s.oc + oc) * plane + at,
                       static_cast<double>(sum) * wq.realPerUnit +
                           portable::biasOf(call, oc));
    }
  }
}

template <typename In, typename W>
void allPixels(const KernelCall &call, const ConvShape &s) {
  // A few pixels per task: each is a window and outPerGroup dot products.
  int64_t work = s.c / s.groups * s.kh * s.kw * (s.oc / s.groups);
  int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, work));
  ThreadPool::shared().parallelFor(s.n * s.groups * s.oh * s.ow, grain,
                                   [&](int64_t first, int64_t last) {
                                     pixels<In, W>(call, s, first, last);
                                   });
}

template <typename In>
void byWeightType(const KernelCall &call, const ConvShape &s) {
  if (call.inputs[1]->scalarType() == ScalarType::Int8)
    allPixels<In, int8_t>(call, s);
  else
    allPixels<In, uint8_t>(call, s);
}

} // namespace

void runQuantizedConvolution(const KernelCall &call) {
  ConvShape s = portable::convShape(call);
  if (s.kd != 1 || s.c / s.groups * s.kh * s.kw > kMaxReduction)
    return portable::runQuantizedConvolution(call);
  if (call.inputs[0]->scalarType() == ScalarType::Int8)
    byWeightType<int8_t>(call, s);
  else
    byWeightType<uint8_t>(call, s);
}

} // namespace etch::runtime::optimized
