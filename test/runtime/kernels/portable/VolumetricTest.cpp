// 3-D convolution (direct and transposed), 3-D max/average pooling and max
// pooling over integers
// against double-precision loops over random windows.
#include "KernelTestSupport.h"

#include <algorithm>
#include <limits>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

/// One spatial axis of a window: input extent, kernel, stride, padding,
/// dilation (and output_padding for transposed convolutions).
struct Axis {
  int64_t in, k, s, p, d, op = 0;
  int64_t out(bool transposed, bool ceil = false) const {
    if (transposed)
      return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
    int64_t span = in + 2 * p - d * (k - 1) - 1;
    int64_t count = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (count - 1) * s >= in + p)
      --count;
    return count;
  }
};

Axis randomAxis(bool transposed) {
  Axis a{0, randomInt(1, 3), randomInt(1, 3), 0, randomInt(1, 2)};
  a.p = randomInt(0, transposed ? a.k - 1 : a.k / 2);
  a.in = a.d * (a.k - 1) + 1 + randomInt(0, 4);
  if (transposed)
    a.op = randomInt(0, std::max(a.s, a.d) - 1);
  return a;
}

std::vector<int64_t> field(const Axis (&axes)[3], int64_t Axis::*member) {
  return {axes[0].*member, axes[1].*member, axes[2].*member};
}

/// Direct: out[n, o, z, y, x] = bias[o] + sum over the group's input
/// channels and the window. Transposed: every input element scattered
/// through the kernel.
std::vector<double> referenceConv3d(const Axis (&axes)[3], int64_t batch,
                                    int64_t channels, int64_t outChannels,
                                    int64_t groups, bool transposed,
                                    const float *x, const float *w,
                                    const float *bias) {
  int64_t o[3];
  for (int i = 0; i < 3; ++i)
    o[i] = axes[i].out(transposed);
  int64_t icPerGroup = channels / groups, ocPerGroup = outChannels / groups;
  int64_t inVolume = axes[0].in * axes[1].in * axes[2].in;
  int64_t outVolume = o[0] * o[1] * o[2];
  int64_t taps = axes[0].k * axes[1].k * axes[2].k;
  std::vector<double> out(batch * outChannels * outVolume);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oc = 0; oc < outChannels; ++oc)
      for (int64_t v = 0; v < outVolume; ++v)
        out[(n * outChannels + oc) * outVolume + v] = bias ? bias[oc] : 0.0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t ic = 0; ic < channels; ++ic)
      for (int64_t ocg = 0; ocg < ocPerGroup; ++ocg) {
        int64_t group = ic / icPerGroup, oc = group * ocPerGroup + ocg;
        const float *kernel =
            transposed ? w + (ic * ocPerGroup + ocg) * taps
                       : w + (oc * icPerGroup + ic % icPerGroup) * taps;
        for (int64_t kz = 0; kz < axes[0].k; ++kz)
          for (int64_t ky = 0; ky < axes[1].k; ++ky)
            for (int64_t kx = 0; kx < axes[2].k; ++kx) {
              double weight = kernel[(kz * axes[1].k + ky) * axes[2].k + kx];
              int64_t kk[3] = {kz, ky, kx};
              // Every (input, output) position pair the tap connects.
              int64_t lo[3], hi[3];
              for (int i = 0; i < 3; ++i) {
                lo[i] = 0;
                hi[i] = transposed ? axes[i].in : o[i];
              }
              for (int64_t a = lo[0]; a < hi[0]; ++a)
                for (int64_t b = lo[1]; b < hi[1]; ++b)
                  for (int64_t c = lo[2]; c < hi[2]; ++c) {
                    int64_t pos[3] = {a, b, c}, other[3];
                    bool inside = true;
                    for (int i = 0; i < 3; ++i) {
                      other[i] =
                          pos[i] * axes[i].s - axes[i].p + kk[i] * axes[i].d;
                      int64_t limit = transposed ? o[i] : axes[i].in;
                      inside &= other[i] >= 0 && other[i] < limit;
                    }
                    if (!inside)
                      continue;
                    const int64_t *src = transposed ? pos : other;
                    const int64_t *dst = transposed ? other : pos;
                    double value =
                        x[(n * channels + ic) * inVolume +
                          (src[0] * axes[1].in + src[1]) * axes[2].in + src[2]];
                    out[(n * outChannels + oc) * outVolume +
                        (dst[0] * o[1] + dst[1]) * o[2] + dst[2]] +=
                        weight * value;
                  }
            }
      }
  return out;
}

void checkConv3d(bool transposed) {
  for (int trial = 0; trial < 24; ++trial) {
    Axis axes[3];
    for (Axis &axis : axes)
      axis = randomAxis(transposed);
    int64_t groups = randomInt(1, 2), batch = randomInt(1, 2);
    int64_t channels = groups * randomInt(1, 3),
            outChannels = groups * randomInt(1, 3);
    bool withBias = trial % 2 == 0;
    OwnedTensor x =
        randomFloat({batch, channels, axes[0].in, axes[1].in, axes[2].in});
    OwnedTensor weight = randomFloat(
        transposed ? std::vector<int64_t>{channels, outChannels / groups,
                                          axes[0].k, axes[1].k, axes[2].k}
                   : std::vector<int64_t>{outChannels, channels / groups,
                                          axes[0].k, axes[1].k, axes[2].k});
    OwnedTensor bias = randomFloat({outChannels});
    OwnedTensor out(ScalarType::Float32,
                    {batch, outChannels, axes[0].out(transposed),
                     axes[1].out(transposed), axes[2].out(transposed)});
    Attributes attributes;
    attributes.ints("stride", field(axes, &Axis::s))
        .ints("padding", field(axes, &Axis::p))
        .ints("dilation", field(axes, &Axis::d))
        .ints("output_padding", field(axes, &Axis::op))
        .b("transposed", transposed)
        .i("groups", groups);
    std::vector<TensorView *> inputs = {&x.view, &weight.view};
    if (withBias)
      inputs.push_back(&bias.view);
    ASSERT_EQ(runKernel("edge.convolution3d", inputs, {&out.view}, attributes),
              Error::Ok)
        << "trial " << trial;
    expectClose(out,
                referenceConv3d(axes, batch, channels, outChannels, groups,
                                transposed, x.f(), weight.f(),
                                withBias ? bias.f() : nullptr),
                1e-4, 1e-4);
  }
}

TEST(PortableVolumetric, Convolution3dAgainstReference) { checkConv3d(false); }

TEST(PortableVolumetric, TransposedConvolution3dAgainstReference) {
  checkConv3d(true);
}

TEST(PortableVolumetric, Convolution3dRefusesWrongWindows) {
  OwnedTensor x = randomFloat({1, 2, 4, 4, 4});
  OwnedTensor weight = randomFloat({3, 2, 2, 2, 2});
  OwnedTensor out(ScalarType::Float32, {1, 3, 3, 3, 3});
  Attributes twoEntries;
  twoEntries.ints("stride", {1, 1})
      .ints("padding", {0, 0})
      .ints("dilation", {1, 1});
  EXPECT_EQ(runKernel("edge.convolution3d", {&x.view, &weight.view},
                      {&out.view}, twoEntries),
            Error::InvalidProgram);
  OwnedTensor wrong(ScalarType::Float32, {1, 3, 3, 3, 2});
  Attributes threeEntries;
  threeEntries.ints("stride", {1, 1, 1})
      .ints("padding", {0, 0, 0})
      .ints("dilation", {1, 1, 1});
  EXPECT_EQ(runKernel("edge.convolution3d", {&x.view, &weight.view},
                      {&wrong.view}, threeEntries),
            Error::InvalidShape);
  // A 2-D input is edge.convolution's, not this op's.
  OwnedTensor flat = randomFloat({1, 2, 4, 4});
  EXPECT_EQ(runKernel("edge.convolution3d", {&flat.view, &weight.view},
                      {&out.view}, threeEntries),
            Error::InvalidShape);
}

TEST(PortableVolumetric, MaxAndAveragePool3dAgainstReference) {
  for (int trial = 0; trial < 40; ++trial) {
    Axis axes[3];
    bool ceil = trial % 2, countPad = trial % 4 < 2, batched = trial % 3 != 0;
    for (Axis &axis : axes)
      axis = randomAxis(false);
    int64_t planes = 3 * (batched ? 2 : 1);
    std::vector<int64_t> shape = {3, axes[0].in, axes[1].in, axes[2].in};
    if (batched)
      shape.insert(shape.begin(), 2);
    OwnedTensor x = randomFloat(shape);
    int64_t o[3];
    for (int i = 0; i < 3; ++i)
      o[i] = axes[i].out(false, ceil);
    std::vector<int64_t> outShape = shape;
    std::copy(o, o + 3, outShape.end() - 3);
    int64_t inVolume = axes[0].in * axes[1].in * axes[2].in;
    auto at = [&](int64_t plane, int64_t z, int64_t y, int64_t xx) {
      return x.f()[plane * inVolume + (z * axes[1].in + y) * axes[2].in + xx];
    };

    OwnedTensor maxOut(ScalarType::Float32, outShape);
    Attributes window;
    window.ints("kernel_size", field(axes, &Axis::k))
        .ints("stride", field(axes, &Axis::s))
        .ints("padding", field(axes, &Axis::p))
        .ints("dilation", field(axes, &Axis::d))
        .b("ceil_mode", ceil);
    ASSERT_EQ(runKernel("edge.max_pool3d", {&x.view}, {&maxOut.view}, window),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t y = 0; y < o[1]; ++y)
          for (int64_t xo = 0; xo < o[2]; ++xo) {
            double best = -std::numeric_limits<double>::infinity();
            int64_t pos[3] = {z, y, xo};
            int64_t k[3];
            for (k[0] = 0; k[0] < axes[0].k; ++k[0])
              for (k[1] = 0; k[1] < axes[1].k; ++k[1])
                for (k[2] = 0; k[2] < axes[2].k; ++k[2]) {
                  int64_t in[3];
                  bool inside = true;
                  for (int i = 0; i < 3; ++i) {
                    in[i] = pos[i] * axes[i].s - axes[i].p + k[i] * axes[i].d;
                    inside &= in[i] >= 0 && in[i] < axes[i].in;
                  }
                  if (inside)
                    best = std::max<double>(best, at(p, in[0], in[1], in[2]));
                }
            expected.push_back(best);
          }
    expectClose(maxOut, expected);

    // Average pooling has no dilation.
    for (int i = 0; i < 3; ++i) {
      axes[i].d = 1;
      o[i] = axes[i].out(false, ceil);
    }
    std::copy(o, o + 3, outShape.end() - 3);
    int64_t divisor = trial % 5 == 0 ? 7 : 0;
    OwnedTensor avgOut(ScalarType::Float32, outShape);
    Attributes avg;
    avg.ints("kernel_size", field(axes, &Axis::k))
        .ints("stride", field(axes, &Axis::s))
        .ints("padding", field(axes, &Axis::p))
        .b("ceil_mode", ceil)
        .b("count_include_pad", countPad);
    if (divisor)
      avg.i("divisor_override", divisor);
    ASSERT_EQ(runKernel("edge.avg_pool3d", {&x.view}, {&avgOut.view}, avg),
              Error::Ok);
    expected.clear();
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t y = 0; y < o[1]; ++y)
          for (int64_t xo = 0; xo < o[2]; ++xo) {
            int64_t pos[3] = {z, y, xo}, first[3], last[3];
            int64_t padded = 1, inside = 1;
            for (int i = 0; i < 3; ++i) {
              first[i] = pos[i] * axes[i].s - axes[i].p;
              last[i] = std::min(first[i] + axes[i].k, axes[i].in + axes[i].p);
              padded *= last[i] - first[i];
              first[i] = std::max<int64_t>(first[i], 0);
              last[i] = std::min(last[i], axes[i].in);
              inside *= last[i] - first[i];
            }
            double sum = 0;
            for (int64_t a = first[0]; a < last[0]; ++a)
              for (int64_t b = first[1]; b < last[1]; ++b)
                for (int64_t c = first[2]; c < last[2]; ++c)
                  sum += at(p, a, b, c);
            int64_t count = divisor ? divisor : countPad ? padded : inside;
            expected.push_back(sum / count);
          }
    expectClose(avgOut, expected);
  }
}

TEST(PortableVolumetric, Pool3dRefusesPlanarInputAndShortWindows) {
  // Rank 4 is an unbatched CDHW volume; rank 3 has no depth.
  OwnedTensor planar = randomFloat({2, 4, 4});
  OwnedTensor out(ScalarType::Float32, {2, 2, 2});
  Attributes window;
  window.ints("kernel_size", {2, 2, 2});
  EXPECT_EQ(runKernel("edge.max_pool3d", {&planar.view}, {&out.view}, window),
            Error::InvalidShape);
  OwnedTensor x = randomFloat({1, 2, 4, 4, 4});
  OwnedTensor out3(ScalarType::Float32, {1, 2, 2, 2, 2});
  Attributes shortWindow;
  shortWindow.ints("kernel_size", {2, 2});
  EXPECT_EQ(runKernel("edge.avg_pool3d", {&x.view}, {&out3.view}, shortWindow),
            Error::InvalidProgram);
}

} // namespace

namespace {

TEST(PortablePooling, MaxPoolOverUint8AndInt64) {
  // Integer images pool in their own type: no float round trip, and the
  // padding never wins (the lowest value, not -inf, starts each window).
  OwnedTensor x(ScalarType::UInt8, {1, 1, 3, 3}),
      out(ScalarType::UInt8, {1, 1, 2, 2});
  uint8_t values[] = {0, 200, 3, 255, 7, 9, 1, 2, 254};
  std::copy(values, values + 9, x.view.data<uint8_t>());
  Attributes window;
  window.ints("kernel_size", {2, 2})
      .ints("stride", {2, 2})
      .ints("padding", {1, 1});
  ASSERT_EQ(runKernel("edge.max_pool2d", {&x.view}, {&out.view}, window),
            Error::Ok);
  uint8_t expected[] = {0, 200, 255, 254};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.view.data<uint8_t>()[i], expected[i]) << i;
  OwnedTensor y(ScalarType::Int64, {1, 2, 2}),
      yOut(ScalarType::Int64, {1, 1, 1});
  int64_t big[] = {-5, INT64_MIN, -7, -9};
  std::copy(big, big + 4, y.view.data<int64_t>());
  Attributes whole;
  whole.ints("kernel_size", {2, 2});
  ASSERT_EQ(runKernel("edge.max_pool2d", {&y.view}, {&yOut.view}, whole),
            Error::Ok);
  EXPECT_EQ(yOut.view.data<int64_t>()[0], -5);
  // With indices: each maximum's flat position in its plane (the first of
  // equal values).
  OwnedTensor indices(ScalarType::Int64, {1, 1, 2, 2});
  ASSERT_EQ(runKernel("edge.max_pool2d_with_indices", {&x.view},
                      {&out.view, &indices.view}, window),
            Error::Ok);
  int64_t positions[] = {0, 1, 3, 8};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(indices.view.data<int64_t>()[i], positions[i]) << i;
  // Average pooling stays float.
  EXPECT_EQ(runKernel("edge.avg_pool2d", {&x.view}, {&out.view}, window),
            Error::InvalidType);
}

} // namespace
