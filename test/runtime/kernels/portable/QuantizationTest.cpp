// Numeric tests of quantize/dequantize against a double reference: round
// half to even, clamping to [qmin, qmax], per-tensor and per-axis
// parameters, every storage type.
#include "KernelTestSupport.h"

#include <cmath>

namespace etch::runtime::testing {
namespace {

// Quantizes then dequantizes \p x through the kernels and checks both
// against the reference formulas.
void checkRoundTrip(OwnedTensor &x, QuantTensor &q) {
  ASSERT_EQ(runKernel("edge.quantize", {&x.view}, {&q.tensor.view}), Error::Ok);
  std::vector<double> expected;
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t c = q.channelOf(i);
    double scale = static_cast<float>(q.scales[c]);
    double value = std::nearbyint(static_cast<float>(x.f()[i] / scale)) +
                   q.zeroPoints[c];
    value = std::fmin(std::fmax(value, q.params.qmin), q.params.qmax);
    ASSERT_EQ(loadInt(q.tensor.view, i), value) << "element " << i;
    expected.push_back((value - q.zeroPoints[c]) * scale);
  }
  OwnedTensor back(ScalarType::Float32,
                   std::vector<int64_t>(q.tensor.view.sizes(),
                                        q.tensor.view.sizes() + q.tensor.view.rank()));
  ASSERT_EQ(runKernel("edge.dequantize", {&q.tensor.view}, {&back.view}),
            Error::Ok);
  expectClose(back, expected, 1e-6, 0);
}

TEST(PortableQuantization, PerTensorInt8RoundsHalfToEvenAndClamps) {
  OwnedTensor x(ScalarType::Float32, {8});
  float values[] = {0.25f, 0.75f, -0.25f, 1.25f, 100.0f, -100.0f, 0.0f, 0.5f};
  std::memcpy(x.f(), values, sizeof(values));
  QuantTensor q(ScalarType::Int8, {8}, {0.5}, {3}, -1, -128, 127);
  checkRoundTrip(x, q);
  // 0.25/0.5 = 0.5 rounds to 0 (even), 0.75/0.5 = 1.5 to 2, -0.5 to -0.
  const int8_t *data = q.tensor.view.data<int8_t>();
  EXPECT_EQ(data[0], 3);
  EXPECT_EQ(data[1], 5);
  EXPECT_EQ(data[2], 3);
  EXPECT_EQ(data[3], 5);
  EXPECT_EQ(data[4], 127);
  EXPECT_EQ(data[5], -128);
}

TEST(PortableQuantization, PerAxisSymmetricWeights) {
  // Conv weights [out=3, in=2, 2, 2] on axis 0, range [-127, 127].
  OwnedTensor x = randomFloat({3, 2, 2, 2}, -3, 3);
  QuantTensor q(ScalarType::Int8, {3, 2, 2, 2}, {0.01, 0.02, 0.005}, {0, 0, 0},
                0, -127, 127);
  checkRoundTrip(x, q);
}

TEST(PortableQuantization, PerAxisInnerDimension) {
  OwnedTensor x = randomFloat({2, 4, 3}, -2, 2);
  QuantTensor q(ScalarType::UInt8, {2, 4, 3}, {0.01, 0.02, 0.03, 0.04},
                {128, 120, 0, 255}, 1, 0, 255);
  checkRoundTrip(x, q);
}

TEST(PortableQuantization, Int32AndInt16Storage) {
  OwnedTensor x = randomFloat({5}, -10, 10);
  QuantTensor bias(ScalarType::Int32, {5}, {1e-4}, {0}, -1, INT32_MIN,
                   INT32_MAX);
  checkRoundTrip(x, bias);
  QuantTensor wide(ScalarType::Int16, {5}, {1e-3}, {-5}, -1, -32768, 32767);
  checkRoundTrip(x, wide);
}

TEST(PortableQuantization, RejectsUnquantizedTensors) {
  OwnedTensor x = randomFloat({4});
  OwnedTensor plain(ScalarType::Int8, {4});
  EXPECT_EQ(runKernel("edge.quantize", {&x.view}, {&plain.view}),
            Error::InvalidType);
  EXPECT_EQ(runKernel("edge.dequantize", {&plain.view}, {&x.view}),
            Error::InvalidType);
  QuantTensor q(ScalarType::Int8, {2, 2}, {0.5}, {0}, -1, -128, 127);
  EXPECT_EQ(runKernel("edge.quantize", {&x.view}, {&q.tensor.view}),
            Error::InvalidShape);
}

} // namespace
} // namespace etch::runtime::testing
