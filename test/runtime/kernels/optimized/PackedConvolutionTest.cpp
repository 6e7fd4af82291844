// PackedConvolution against a double-precision NHWC convolution, with every
// micro-kernel this CPU runs (and run() on the thread pool), at geometries
// around its tile and block edges: pixels not a multiple of the 6-row tile,
// output channels not a multiple of 16 (and of 32: the AVX-512 kernel's
// panel pairs), padding, strides, dilation, groups,
// a 3-channel first layer (rows copied per tile), reductions cut into blocks
// (weights past L2), fully connected layers, and the output clamp.
#include "../portable/KernelTestSupport.h"

#include "runtime/kernels/optimized/PackedConvolution.h"
#include "runtime/platform/Platform.h"

#include <algorithm>
#include <limits>

namespace etch::runtime::testing {
namespace {

using optimized::ConvGeometry;
using optimized::PackedConvolution;

struct ConvCase {
  int64_t n, h, w, ic, oc, kh, kw, stride, pad, dilation, groups;
};

ConvGeometry geometryOf(const ConvCase &c) {
  ConvGeometry g;
  g.batch = c.n;
  g.height = c.h;
  g.width = c.w;
  g.inChannels = c.ic;
  g.outChannels = c.oc;
  g.kernelHeight = c.kh;
  g.kernelWidth = c.kw;
  g.strideHeight = g.strideWidth = c.stride;
  g.padTop = g.padLeft = c.pad;
  g.dilationHeight = g.dilationWidth = c.dilation;
  g.groups = c.groups;
  g.outHeight = (c.h + 2 * c.pad - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
  g.outWidth = (c.w + 2 * c.pad - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
  return g;
}

/// The NHWC convolution in double, clamped; \p scale: the largest
/// magnitude before the clamp (the float sums' rounding scales with it).
std::vector<double> reference(const ConvGeometry &g, const float *in,
                              const float *weights, const float *bias,
                              double lo, double hi, double &scale) {
  scale = 1e-30;
  int64_t gi = g.inChannels / g.groups, go = g.outChannels / g.groups;
  std::vector<double> out(g.batch * g.outHeight * g.outWidth * g.outChannels);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.outHeight; ++oy)
      for (int64_t ox = 0; ox < g.outWidth; ++ox)
        for (int64_t o = 0; o < g.outChannels; ++o) {
          double sum = bias ? bias[o] : 0.0;
          int64_t group = o / go;
          for (int64_t ky = 0; ky < g.kernelHeight; ++ky)
            for (int64_t kx = 0; kx < g.kernelWidth; ++kx) {
              int64_t iy =
                  oy * g.strideHeight - g.padTop + ky * g.dilationHeight;
              int64_t ix =
                  ox * g.strideWidth - g.padLeft + kx * g.dilationWidth;
              if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width)
                continue;
              const float *pixel =
                  in + ((b * g.height + iy) * g.width + ix) * g.inChannels +
                  group * gi;
              const float *w =
                  weights +
                  ((o * g.kernelHeight + ky) * g.kernelWidth + kx) * gi;
              for (int64_t c = 0; c < gi; ++c)
                sum += double(pixel[c]) * w[c];
            }
          scale = std::max(scale, std::fabs(sum));
          out[((b * g.outHeight + oy) * g.outWidth + ox) * g.outChannels + o] =
              std::min(std::max(sum, lo), hi);
        }
  return out;
}

/// Max |actual - expected| over \p scale.
double relativeError(const float *actual, const std::vector<double> &expected,
                     double scale) {
  double error = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    error = std::max(error, std::fabs(actual[i] - expected[i]));
  return error / scale;
}

void check(const char *isa, const ConvGeometry &g, bool withBias, float lo,
           float hi) {
  ASSERT_TRUE(PackedConvolution::supports(g));
  OwnedTensor in = randomFloat({g.batch, g.height, g.width, g.inChannels});
  OwnedTensor weights = randomFloat(
      {g.outChannels, g.kernelHeight, g.kernelWidth, g.inChannels / g.groups});
  OwnedTensor bias = randomFloat({g.outChannels});
  const float *biasData = withBias ? bias.f() : nullptr;
  PlatformBlock storage =
      allocatePlatformBlock(PackedConvolution::packedBytes(g), 64);
  PackedConvolution conv(g, weights.f(), biasData,
                         reinterpret_cast<float *>(storage.get()));
  double scale;
  std::vector<double> expected =
      reference(g, in.f(), weights.f(), biasData, lo, hi, scale);
  // A guard past the output: nothing is written beyond it.
  std::vector<float> out(expected.size() + 16, -7.0f);
  if (isa) {
    if (!conv.runWith(isa, in.f(), out.data(), lo, hi))
      GTEST_SKIP() << "this CPU has no " << isa;
  } else {
    conv.run(in.f(), out.data(), lo, hi);
  }
  EXPECT_LT(relativeError(out.data(), expected, scale), 1e-5)
      << (isa ? isa : "run()") << " " << g.batch << "x" << g.height << "x"
      << g.width << "x" << g.inChannels << " -> " << g.outChannels << " k"
      << g.kernelHeight << "x" << g.kernelWidth << " s" << g.strideHeight
      << " p" << g.padTop << " d" << g.dilationHeight << " g" << g.groups;
  for (size_t i = expected.size(); i < out.size(); ++i)
    ASSERT_EQ(out[i], -7.0f) << "written past the output";
}

const ConvCase kCases[] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1},     // one value
    {1, 5, 7, 3, 17, 3, 3, 1, 1, 1, 1},    // 3 channels: rows copied
    {1, 9, 9, 3, 8, 7, 7, 2, 3, 1, 1},     // a stem: 7x7 stride 2
    {1, 6, 2, 3, 5, 5, 5, 1, 2, 1, 1},     // window wider than the input
    {1, 7, 7, 2, 6, 3, 3, 1, 2, 2, 2},     // copied rows, dilated, grouped
    {2, 6, 5, 16, 16, 3, 3, 1, 1, 1, 1},   // batch 2, full panel
    {3, 5, 3, 3, 10, 3, 3, 1, 1, 1, 1},    // copied rows, tiles span images
    {2, 5, 5, 8, 24, 1, 1, 1, 0, 1, 1},    // 1x1, tiles span images, 16 + 8
    {1, 5, 5, 16, 16, 1, 1, 1, 0, 1, 2},   // groups of 8 outputs
    {1, 7, 7, 24, 33, 3, 3, 2, 1, 1, 1},   // 2 panels + 1 column
    {1, 8, 8, 20, 30, 3, 3, 1, 2, 2, 1},   // dilation 2
    {1, 6, 6, 32, 48, 3, 3, 1, 1, 1, 4},   // groups of 8 -> 12
    {1, 5, 5, 12, 12, 1, 1, 1, 0, 1, 3},   // grouped 1x1
    {1, 9, 9, 64, 20, 1, 1, 2, 0, 1, 1},   // 1x1 stride 2
    {1, 4, 5, 300, 250, 3, 3, 1, 1, 1, 1}, // a long whole reduction
    // Weights past the 3 MB of a whole reduction: reduction blocks.
    {1, 3, 4, 600, 330, 3, 3, 1, 1, 1, 1},  // blocks of channels per tap
    {1, 3, 4, 600, 152, 3, 3, 1, 1, 1, 1},  // blocks, a last panel of 8
    {1, 3, 3, 64, 1400, 3, 3, 1, 1, 1, 1},  // blocks of whole taps
    {1, 4, 3, 520, 1600, 3, 3, 1, 0, 1, 1}, // uneven channel blocks
};

class PackedConvolutionTest : public ::testing::TestWithParam<const char *> {};

TEST_P(PackedConvolutionTest, MatchesADoubleReference) {
  for (const ConvCase &c : kCases)
    check(GetParam(), geometryOf(c), true,
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::infinity());
}

TEST_P(PackedConvolutionTest, FullyConnectedLayers) {
  for (auto [rows, in, out] : {std::array<int64_t, 3>{1, 1000, 10},
                               {7, 96, 384},
                               {13, 384, 96},
                               {3, 2048, 1000}})
    check(GetParam(), ConvGeometry::fullyConnected(rows, in, out), true,
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::infinity());
}

TEST_P(PackedConvolutionTest, ClampsAndRunsWithoutBias) {
  check(GetParam(), geometryOf({1, 7, 6, 16, 20, 3, 3, 1, 1, 1, 1}), false,
        0.0f, 6.0f);
  check(GetParam(), geometryOf({1, 3, 3, 700, 300, 3, 3, 1, 1, 1, 1}), false,
        -0.5f, 0.5f); // blocked (7.6 MB of weights): the last block clamps
}

INSTANTIATE_TEST_SUITE_P(Optimized, PackedConvolutionTest,
                         ::testing::Values("avx512", "avx2", "scalar", nullptr),
                         [](const auto &info) {
                           return std::string(info.param ? info.param : "pool");
                         });

TEST(PackedConvolution, RefusesWhatItCannotRun) {
  ConvGeometry g = geometryOf({1, 5, 5, 6, 6, 3, 3, 1, 1, 1, 1});
  EXPECT_TRUE(PackedConvolution::supports(g));
  g.groups = 4; // 6 channels do not split into 4 groups
  EXPECT_FALSE(PackedConvolution::supports(g));
  g = geometryOf({1, 40, 40, 2, 2, 17, 17, 1, 8, 1, 1}); // 289 taps
  EXPECT_FALSE(PackedConvolution::supports(g));
  g = geometryOf({1, 5, 5, 6, 6, 3, 3, 1, 1, 1, 1});
  g.padTop = -1;
  EXPECT_FALSE(PackedConvolution::supports(g));
}

} // namespace
} // namespace etch::runtime::testing
