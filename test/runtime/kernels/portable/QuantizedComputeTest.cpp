// Numeric tests of the integer kernels against the float path they replace:
// dequantize every operand, run the float kernel, clamp, quantize. Add and
// mul do the same f32 arithmetic, so they must agree exactly; convolution
// and linear accumulate exactly in integers where the float kernels round,
// so they may differ by one step where a value lands on a rounding boundary.
#include "KernelTestSupport.h"

#include <algorithm>

namespace etch::runtime::testing {
namespace {

/// Random storage values over the whole range of \p q.
void fillRandom(QuantTensor &q) {
  for (int64_t i = 0; i < q.tensor.numel(); ++i) {
    int64_t value = randomInt(q.params.qmin, q.params.qmax);
    if (q.tensor.view.scalarType() == ScalarType::Int8)
      q.tensor.view.data<int8_t>()[i] = static_cast<int8_t>(value);
    else
      q.tensor.view.data<uint8_t>()[i] = static_cast<uint8_t>(value);
  }
}

std::vector<int64_t> shapeOf(const TensorView &view) {
  return std::vector<int64_t>(view.sizes(), view.sizes() + view.rank());
}

OwnedTensor dequantized(QuantTensor &q) {
  OwnedTensor real(ScalarType::Float32, shapeOf(q.tensor.view));
  EXPECT_EQ(runKernel("edge.dequantize", {&q.tensor.view}, {&real.view}),
            Error::Ok);
  return real;
}

/// The float op's output clamped to [low, high], then quantized like \p out.
QuantTensor quantizedLike(OwnedTensor &real, const QuantTensor &out,
                          float low, float high) {
  for (int64_t i = 0; i < real.numel(); ++i)
    real.f()[i] = std::min(std::max(real.f()[i], low), high);
  QuantTensor result(out.tensor.view.scalarType(), shapeOf(out.tensor.view),
                     out.scales, out.zeroPoints, -1, out.params.qmin,
                     out.params.qmax);
  EXPECT_EQ(runKernel("edge.quantize", {&real.view}, {&result.tensor.view}),
            Error::Ok);
  return result;
}

/// Every element within one step of \p reference, and at least
/// \p exactShare of them equal.
void expectWithinOneStep(const QuantTensor &actual,
                         const QuantTensor &reference, double exactShare) {
  int64_t exact = 0, count = actual.tensor.numel();
  for (int64_t i = 0; i < count; ++i) {
    double a = loadInt(actual.tensor.view, i);
    double r = loadInt(reference.tensor.view, i);
    ASSERT_LE(std::fabs(a - r), 1.0) << "element " << i;
    exact += a == r;
  }
  EXPECT_GE(static_cast<double>(exact), exactShare * count)
      << exact << " of " << count << " exact";
}

struct ConvCase {
  std::vector<int64_t> input, weight;
  int64_t stride, padding, dilation, groups;
  bool perChannel;
  ScalarType inputStorage;
};

void checkConvolution(const ConvCase &c) {
  int64_t outChannels = c.weight[0];
  bool unsignedInput = c.inputStorage == ScalarType::UInt8;
  QuantTensor x(c.inputStorage, c.input, {0.02}, {unsignedInput ? 120 : -7},
                -1, unsignedInput ? 0 : -128, unsignedInput ? 255 : 127);
  std::vector<double> weightScales;
  for (int64_t o = 0; o < (c.perChannel ? outChannels : 1); ++o)
    weightScales.push_back(0.004 + 0.001 * o);
  QuantTensor w(ScalarType::Int8, c.weight, weightScales,
                std::vector<int64_t>(weightScales.size(), 0),
                c.perChannel ? 0 : -1, -127, 127);
  fillRandom(x);
  fillRandom(w);
  OwnedTensor bias = randomFloat({outChannels}, -0.5f, 0.5f);
  auto extent = [&](int d) {
    return (c.input[d] + 2 * c.padding - c.dilation * (c.weight[d] - 1) - 1) /
               c.stride +
           1;
  };
  std::vector<int64_t> outShape = {c.input[0], outChannels, extent(2),
                                   extent(3)};
  QuantTensor y(ScalarType::Int8, outShape, {0.05}, {-20}, -1, -128, 127);
  Attributes attributes;
  attributes.ints("stride", {c.stride, c.stride})
      .ints("padding", {c.padding, c.padding})
      .ints("dilation", {c.dilation, c.dilation})
      .i("groups", c.groups)
      .d("min", 0.0);
  ASSERT_EQ(runKernel("edge.quantized_convolution",
                      {&x.tensor.view, &w.tensor.view, &bias.view},
                      {&y.tensor.view}, attributes),
            Error::Ok);
  OwnedTensor xf = dequantized(x), wf = dequantized(w);
  OwnedTensor real(ScalarType::Float32, outShape);
  ASSERT_EQ(runKernel("edge.convolution", {&xf.view, &wf.view, &bias.view},
                      {&real.view}, attributes),
            Error::Ok);
  expectWithinOneStep(y, quantizedLike(real, y, 0.0f, INFINITY), 0.99);
}

TEST(PortableQuantizedCompute, ConvolutionPerChannelPaddedStrided) {
  checkConvolution({{2, 3, 9, 9}, {8, 3, 3, 3}, 2, 1, 1, 1, true,
                    ScalarType::Int8});
}

TEST(PortableQuantizedCompute, DepthwiseDilatedUint8Input) {
  checkConvolution({{1, 6, 10, 10}, {6, 1, 3, 3}, 1, 2, 2, 6, false,
                    ScalarType::UInt8});
}

TEST(PortableQuantizedCompute, GroupedPerChannel) {
  checkConvolution({{1, 8, 7, 7}, {4, 4, 1, 1}, 1, 0, 1, 2, true,
                    ScalarType::Int8});
}

TEST(PortableQuantizedCompute, LinearRank3PerChannelAndPerTensor) {
  for (bool perChannel : {true, false}) {
    QuantTensor x(ScalarType::Int8, {2, 3, 40}, {0.03}, {5}, -1, -128, 127);
    std::vector<double> scales =
        perChannel ? std::vector<double>{0.002, 0.003, 0.004, 0.005, 0.006}
                   : std::vector<double>{0.004};
    QuantTensor w(ScalarType::Int8, {5, 40}, scales,
                  std::vector<int64_t>(scales.size(), 0), perChannel ? 0 : -1,
                  -127, 127);
    fillRandom(x);
    fillRandom(w);
    OwnedTensor bias = randomFloat({5});
    QuantTensor y(ScalarType::UInt8, {2, 3, 5}, {0.04}, {128}, -1, 0, 255);
    Attributes clamp;
    clamp.d("min", -1.0).d("max", 1.5);
    ASSERT_EQ(runKernel("edge.quantized_linear",
                        {&x.tensor.view, &w.tensor.view, &bias.view},
                        {&y.tensor.view}, clamp),
              Error::Ok);
    OwnedTensor xf = dequantized(x), wf = dequantized(w);
    OwnedTensor real(ScalarType::Float32, {2, 3, 5});
    ASSERT_EQ(runKernel("edge.linear", {&xf.view, &wf.view, &bias.view},
                        {&real.view}),
              Error::Ok);
    expectWithinOneStep(y, quantizedLike(real, y, -1.0f, 1.5f), 0.95);
  }
}

void checkBinary(const char *quantizedOp, const char *floatOp) {
  QuantTensor a(ScalarType::Int8, {2, 3, 4}, {0.05}, {3}, -1, -128, 127);
  QuantTensor b(ScalarType::UInt8, {3, 1}, {0.02}, {128}, -1, 0, 255);
  fillRandom(a);
  fillRandom(b);
  QuantTensor y(ScalarType::Int8, {2, 3, 4}, {0.03}, {0}, -1, -128, 127);
  Attributes relu;
  relu.d("min", 0.0);
  ASSERT_EQ(runKernel(quantizedOp, {&a.tensor.view, &b.tensor.view},
                      {&y.tensor.view}, relu),
            Error::Ok);
  OwnedTensor af = dequantized(a), bf = dequantized(b);
  OwnedTensor real(ScalarType::Float32, {2, 3, 4});
  ASSERT_EQ(runKernel(floatOp, {&af.view, &bf.view}, {&real.view}), Error::Ok);
  expectWithinOneStep(y, quantizedLike(real, y, 0.0f, INFINITY), 1.0);
}

TEST(PortableQuantizedCompute, AddBroadcastsAndMatchesTheFloatPathExactly) {
  checkBinary("edge.quantized_add", "edge.add");
}

TEST(PortableQuantizedCompute, MulBroadcastsAndMatchesTheFloatPathExactly) {
  checkBinary("edge.quantized_mul", "edge.mul");
}

TEST(PortableQuantizedCompute, RejectsWhatTheVerifierWould) {
  QuantTensor x(ScalarType::Int8, {1, 4}, {0.1}, {0}, -1, -128, 127);
  QuantTensor perAxisInput(ScalarType::Int8, {1, 4}, {0.1}, {0}, 0, -128, 127);
  QuantTensor w(ScalarType::Int8, {2, 4}, {0.1, 0.2}, {0, 0}, 1, -127, 127);
  QuantTensor y(ScalarType::Int8, {1, 2}, {0.1}, {0}, -1, -128, 127);
  OwnedTensor plain(ScalarType::Int8, {1, 4});
  // A per-axis activation, a plain int8 tensor, weights on axis 1.
  EXPECT_EQ(runKernel("edge.quantized_linear",
                      {&perAxisInput.tensor.view, &w.tensor.view},
                      {&y.tensor.view}),
            Error::InvalidType);
  EXPECT_EQ(runKernel("edge.quantized_linear", {&plain.view, &w.tensor.view},
                      {&y.tensor.view}),
            Error::InvalidType);
  EXPECT_EQ(runKernel("edge.quantized_linear",
                      {&x.tensor.view, &w.tensor.view}, {&y.tensor.view}),
            Error::InvalidType);
  QuantTensor shortOut(ScalarType::Int8, {1, 3}, {0.1}, {0}, -1, -128, 127);
  QuantTensor w0(ScalarType::Int8, {2, 4}, {0.1}, {0}, -1, -127, 127);
  EXPECT_EQ(runKernel("edge.quantized_linear",
                      {&x.tensor.view, &w0.tensor.view},
                      {&shortOut.tensor.view}),
            Error::InvalidShape);
}

} // namespace
} // namespace etch::runtime::testing
