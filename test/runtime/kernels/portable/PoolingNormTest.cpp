// Pooling (ceil mode, padding, dilation, count_include_pad, divisor),
// adaptive pooling, batch/layer norm, softmax, reductions.
#include "KernelTestSupport.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

int64_t extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
               bool ceil) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + p)
    --out;
  return out;
}

TEST(PortablePooling, MaxAndAverageAgainstReference) {
  for (int trial = 0; trial < 30; ++trial) {
    int64_t k = randomInt(1, 3), s = randomInt(1, 3), p = randomInt(0, k / 2),
            d = trial % 3 == 0 ? 2 : 1;
    bool ceil = trial % 2, countPad = trial % 4 < 2;
    int64_t h = d * (k - 1) + 1 + randomInt(0, 6), w = h + randomInt(0, 2);
    int64_t oh = extent(h, k, s, p, d, ceil), ow = extent(w, k, s, p, d, ceil);
    OwnedTensor x = randomFloat({2, 3, h, w});
    OwnedTensor maxOut(ScalarType::Float32, {2, 3, oh, ow});
    Attributes window;
    window.ints("kernel_size", {k, k})
        .ints("stride", {s, s})
        .ints("padding", {p, p})
        .ints("dilation", {d, d})
        .b("ceil_mode", ceil);
    ASSERT_EQ(runKernel("edge.max_pool2d", {&x.view}, {&maxOut.view}, window),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double best = -std::numeric_limits<double>::infinity();
          for (int64_t ky = 0; ky < k; ++ky)
            for (int64_t kx = 0; kx < k; ++kx) {
              int64_t iy = y * s - p + ky * d, ix = xo * s - p + kx * d;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                best = std::max<double>(best, x.f()[(plane * h + iy) * w + ix]);
            }
          expected.push_back(best);
        }
    expectClose(maxOut, expected);

    if (d != 1)
      continue;
    int64_t aoh = extent(h, k, s, p, 1, ceil),
            aow = extent(w, k, s, p, 1, ceil);
    OwnedTensor avgOut(ScalarType::Float32, {2, 3, aoh, aow});
    Attributes avg;
    avg.ints("kernel_size", {k, k})
        .ints("stride", {s, s})
        .ints("padding", {p, p})
        .b("ceil_mode", ceil)
        .b("count_include_pad", countPad);
    ASSERT_EQ(runKernel("edge.avg_pool2d", {&x.view}, {&avgOut.view}, avg),
              Error::Ok);
    expected.clear();
    for (int64_t plane = 0; plane < 6; ++plane)
      for (int64_t y = 0; y < aoh; ++y)
        for (int64_t xo = 0; xo < aow; ++xo) {
          int64_t y0 = y * s - p, x0 = xo * s - p;
          int64_t y1 = std::min(y0 + k, h + p), x1 = std::min(x0 + k, w + p);
          int64_t padded = (y1 - y0) * (x1 - x0);
          double sum = 0;
          int64_t inside = 0;
          for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y1, h);
               ++iy)
            for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x1, w);
                 ++ix) {
              sum += x.f()[(plane * h + iy) * w + ix];
              ++inside;
            }
          expected.push_back(sum / (countPad ? padded : inside));
        }
    expectClose(avgOut, expected);
  }
}

TEST(PortablePooling, AdaptiveAverage) {
  OwnedTensor x = randomFloat({1, 2, 7, 5}),
              out(ScalarType::Float32, {1, 2, 3, 2});
  Attributes size;
  size.ints("output_size", {3, 2});
  ASSERT_EQ(runKernel("edge.adaptive_avg_pool2d", {&x.view}, {&out.view}, size),
            Error::Ok);
  std::vector<double> expected;
  for (int plane = 0; plane < 2; ++plane)
    for (int y = 0; y < 3; ++y)
      for (int xo = 0; xo < 2; ++xo) {
        int y0 = y * 7 / 3, y1 = ((y + 1) * 7 + 2) / 3;
        int x0 = xo * 5 / 2, x1 = ((xo + 1) * 5 + 1) / 2;
        double sum = 0;
        for (int iy = y0; iy < y1; ++iy)
          for (int ix = x0; ix < x1; ++ix)
            sum += x.f()[(plane * 7 + iy) * 5 + ix];
        expected.push_back(sum / ((y1 - y0) * (x1 - x0)));
      }
  expectClose(out, expected);
}

TEST(PortableNorm, BatchNormWithAndWithoutAffine) {
  OwnedTensor x = randomFloat({2, 3, 4, 5}), weight = randomFloat({3}),
              bias = randomFloat({3}), mean = randomFloat({3}),
              var = randomFloat({3}, 0.5f, 2.0f);
  for (bool affine : {true, false}) {
    OwnedTensor out(ScalarType::Float32, {2, 3, 4, 5});
    Attributes eps;
    eps.d("eps", 1e-3);
    ASSERT_EQ(runKernel("edge.batch_norm",
                        {&x.view, affine ? &weight.view : nullptr,
                         affine ? &bias.view : nullptr, &mean.view, &var.view},
                        {&out.view}, eps),
              Error::Ok);
    std::vector<double> expected(x.numel());
    for (int64_t i = 0; i < x.numel(); ++i) {
      int c = (i / 20) % 3;
      double normalized =
          (x.f()[i] - mean.f()[c]) / std::sqrt(var.f()[c] + 1e-3);
      expected[i] =
          affine ? normalized * weight.f()[c] + bias.f()[c] : normalized;
    }
    expectClose(out, expected, 1e-5, 1e-5);
  }
}

TEST(PortableNorm, LayerNormOverTrailingDims) {
  OwnedTensor x = randomFloat({3, 4, 6}), weight = randomFloat({4, 6}),
              bias = randomFloat({4, 6}), out(ScalarType::Float32, {3, 4, 6});
  Attributes attributes;
  attributes.ints("normalized_shape", {4, 6}).d("eps", 1e-5);
  ASSERT_EQ(runKernel("edge.layer_norm", {&x.view, &weight.view, &bias.view},
                      {&out.view}, attributes),
            Error::Ok);
  std::vector<double> expected(x.numel());
  for (int r = 0; r < 3; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 24; ++i)
      mean += x.f()[r * 24 + i] / 24.0;
    for (int i = 0; i < 24; ++i)
      var += std::pow(x.f()[r * 24 + i] - mean, 2) / 24.0;
    for (int i = 0; i < 24; ++i)
      expected[r * 24 + i] =
          (x.f()[r * 24 + i] - mean) / std::sqrt(var + 1e-5) * weight.f()[i] +
          bias.f()[i];
  }
  expectClose(out, expected, 1e-5, 1e-5);
}

TEST(PortableNorm, SoftmaxAndLogSoftmaxAnyDim) {
  for (int64_t dim : {0, 1, -1}) {
    OwnedTensor x = randomFloat({3, 4, 5}, -5, 5);
    OwnedTensor soft(ScalarType::Float32, {3, 4, 5}),
        logSoft(ScalarType::Float32, {3, 4, 5});
    Attributes attributes;
    attributes.i("dim", dim);
    ASSERT_EQ(runKernel("edge.softmax", {&x.view}, {&soft.view}, attributes),
              Error::Ok);
    ASSERT_EQ(
        runKernel("edge.log_softmax", {&x.view}, {&logSoft.view}, attributes),
        Error::Ok);
    int64_t d = dim < 0 ? dim + 3 : dim;
    int64_t sizes[3] = {3, 4, 5}, strides[3] = {20, 5, 1};
    std::vector<double> expected(60), expectedLog(60);
    for (int64_t i = 0; i < 60; ++i) {
      int64_t base = i - ((i / strides[d]) % sizes[d]) * strides[d];
      double sum = 0;
      for (int64_t k = 0; k < sizes[d]; ++k)
        sum += std::exp(double(x.f()[base + k * strides[d]]));
      expected[i] = std::exp(double(x.f()[i])) / sum;
      expectedLog[i] = x.f()[i] - std::log(sum);
    }
    expectClose(soft, expected, 1e-5, 1e-6);
    expectClose(logSoft, expectedLog, 1e-5, 1e-5);
  }
}

// float64 programs (softmax(dtype=torch.float64)) compute in double: values
// 1e-9 apart, which float32 cannot tell apart, keep their difference.
TEST(PortableNorm, SoftmaxInFloat64) {
  OwnedTensor x(ScalarType::Float64, {2, 3});
  double values[6] = {1.0, 1.0 + 1e-9, 1.0 - 1e-9, -3.0, 0.5, 2.0};
  std::memcpy(x.view.data<double>(), values, sizeof values);
  for (bool logarithm : {false, true}) {
    OwnedTensor out(ScalarType::Float64, {2, 3});
    Attributes attributes;
    attributes.i("dim", 1);
    ASSERT_EQ(runKernel(logarithm ? "edge.log_softmax" : "edge.softmax",
                        {&x.view}, {&out.view}, attributes),
              Error::Ok);
    for (int r = 0; r < 2; ++r) {
      double sum = 0;
      for (int k = 0; k < 3; ++k)
        sum += std::exp(values[r * 3 + k]);
      for (int k = 0; k < 3; ++k) {
        double v = values[r * 3 + k];
        double expected = logarithm ? v - std::log(sum) : std::exp(v) / sum;
        EXPECT_NEAR(out.view.data<double>()[r * 3 + k], expected, 1e-15);
      }
    }
  }
  OwnedTensor ints(ScalarType::Int32, {2, 3}), out(ScalarType::Int32, {2, 3});
  EXPECT_EQ(runKernel("edge.softmax", {&ints.view}, {&out.view}),
            Error::InvalidType);
}

TEST(PortableReduction, MeanAndSumOverDims) {
  OwnedTensor x = randomFloat({2, 3, 4});
  OwnedTensor mean(ScalarType::Float32, {2, 1, 4}),
      all(ScalarType::Float32, {});
  Attributes overDim1, everything;
  overDim1.ints("dim", {-2}).b("keepdim", true);
  ASSERT_EQ(runKernel("edge.mean", {&x.view}, {&mean.view}, overDim1),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.sum", {&x.view}, {&all.view}, everything),
            Error::Ok);
  std::vector<double> expected(8, 0.0);
  double total = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) {
        expected[a * 4 + c] += x.f()[(a * 3 + b) * 4 + c] / 3.0;
        total += x.f()[(a * 3 + b) * 4 + c];
      }
  expectClose(mean, expected);
  expectClose(all, {total});
  OwnedTensor wrong(ScalarType::Float32, {2, 4});
  EXPECT_EQ(runKernel("edge.mean", {&x.view}, {&wrong.view}, overDim1),
            Error::InvalidShape);
}

TEST(PortableReduction, ProdOverDimsAndIntegers) {
  OwnedTensor x = randomFloat({2, 3, 4}, 0.5f, 1.5f),
              out(ScalarType::Float32, {2, 4});
  Attributes overDim1;
  overDim1.ints("dim", {1});
  ASSERT_EQ(runKernel("edge.prod", {&x.view}, {&out.view}, overDim1),
            Error::Ok);
  std::vector<double> expected(8, 1.0);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        expected[a * 4 + c] *= x.f()[(a * 3 + b) * 4 + c];
  expectClose(out, expected);
  // int64 wraps as torch's does; everything reduced.
  OwnedTensor ints(ScalarType::Int64, {3}), product(ScalarType::Int64, {});
  int64_t values[] = {INT64_MAX, 2, -3};
  std::memcpy(ints.i64(), values, sizeof(values));
  ASSERT_EQ(runKernel("edge.prod", {&ints.view}, {&product.view}), Error::Ok);
  EXPECT_EQ(product.i64()[0],
            static_cast<int64_t>(uint64_t(INT64_MAX) * 2u * uint64_t(-3)));
}

TEST(PortableReduction, AmaxAminArgmaxArgmin) {
  OwnedTensor x = randomFloat({3, 5});
  OwnedTensor amax(ScalarType::Float32, {3}), amin(ScalarType::Float32, {3});
  OwnedTensor argmax(ScalarType::Int64, {3, 1}),
      argminAll(ScalarType::Int64, {});
  Attributes lastDim, keep;
  lastDim.ints("dim", {-1});
  keep.i("dim", 1).b("keepdim", true);
  ASSERT_EQ(runKernel("edge.amax", {&x.view}, {&amax.view}, lastDim),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.amin", {&x.view}, {&amin.view}, lastDim),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.argmax", {&x.view}, {&argmax.view}, keep),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.argmin", {&x.view}, {&argminAll.view}), Error::Ok);
  int64_t globalMin = 0;
  for (int r = 0; r < 3; ++r) {
    const float *row = x.f() + r * 5;
    int64_t best = std::max_element(row, row + 5) - row;
    EXPECT_EQ(amax.f()[r], row[best]);
    EXPECT_EQ(amin.f()[r], *std::min_element(row, row + 5));
    EXPECT_EQ(argmax.i64()[r], best);
  }
  for (int i = 1; i < 15; ++i)
    if (x.f()[i] < x.f()[globalMin])
      globalMin = i;
  EXPECT_EQ(argminAll.i64()[0], globalMin);
}

// float64 keeps its precision; int32 sums wrap as int32.
TEST(PortableReduction, Float64AndInt32) {
  OwnedTensor d(ScalarType::Float64, {2, 2}), dSum(ScalarType::Float64, {2}),
      dMax(ScalarType::Float64, {}), dMean(ScalarType::Float64, {2});
  double dv[] = {1e300, 1.0, 1e-300, -3.0};
  std::memcpy(d.view.data<double>(), dv, sizeof(dv));
  Attributes rows;
  rows.ints("dim", {1});
  ASSERT_EQ(runKernel("edge.sum", {&d.view}, {&dSum.view}, rows), Error::Ok);
  ASSERT_EQ(runKernel("edge.amax", {&d.view}, {&dMax.view}), Error::Ok);
  ASSERT_EQ(runKernel("edge.mean", {&d.view}, {&dMean.view}, rows), Error::Ok);
  EXPECT_EQ(dSum.view.data<double>()[0], 1e300);
  EXPECT_EQ(dSum.view.data<double>()[1], 1e-300 - 3.0);
  EXPECT_EQ(dMax.view.data<double>()[0], 1e300);
  EXPECT_EQ(dMean.view.data<double>()[1], (1e-300 - 3.0) / 2);
  OwnedTensor i(ScalarType::Int32, {3}), iSum(ScalarType::Int32, {});
  int32_t iv[] = {2147483647, 1, 5};
  std::memcpy(i.view.data<int32_t>(), iv, sizeof(iv));
  ASSERT_EQ(runKernel("edge.sum", {&i.view}, {&iSum.view}), Error::Ok);
  EXPECT_EQ(iSum.view.data<int32_t>()[0], -2147483648 + 5);
  OwnedTensor iMean(ScalarType::Int32, {});
  EXPECT_EQ(runKernel("edge.mean", {&i.view}, {&iMean.view}),
            Error::NotSupported);
}

} // namespace
