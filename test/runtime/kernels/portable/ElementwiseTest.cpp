// Broadcasting arithmetic (float and int64), activations, clamp.
#include "KernelTestSupport.h"

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

/// Row-major index of `out` position `flat` into a broadcast operand.
int64_t broadcastIndex(const TensorView &in, const TensorView &out,
                       int64_t flat) {
  int64_t index = 0, stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    int64_t coordinate = flat % out.size(d);
    flat /= out.size(d);
    int inDim = d - (out.rank() - in.rank());
    if (inDim >= 0) {
      if (in.size(inDim) != 1)
        index += coordinate * stride;
      stride *= in.size(inDim);
    }
  }
  return index;
}

TEST(PortableBinary, BroadcastFloat) {
  struct Case {
    std::vector<int64_t> a, b, out;
  } cases[] = {{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
               {{2, 1, 4}, {3, 1}, {2, 3, 4}},
               {{4}, {2, 3, 1}, {2, 3, 4}},
               {{1, 3, 1, 5}, {2, 1, 4, 1}, {2, 3, 4, 5}},
               {{5, 6}, {}, {5, 6}}};
  const char *ops[] = {"edge.add", "edge.sub", "edge.mul", "edge.div"};
  for (const Case &c : cases)
    for (int op = 0; op < 4; ++op) {
      OwnedTensor a = randomFloat(c.a), b = randomFloat(c.b, 0.5f, 2.0f);
      OwnedTensor out(ScalarType::Float32, c.out);
      Attributes attributes;
      if (op < 2)
        attributes.d("alpha", 1.5);
      ASSERT_EQ(runKernel(ops[op], {&a.view, &b.view}, {&out.view}, attributes),
                Error::Ok);
      std::vector<double> expected(out.numel());
      for (int64_t i = 0; i < out.numel(); ++i) {
        double x = a.f()[broadcastIndex(a.view, out.view, i)];
        double y = b.f()[broadcastIndex(b.view, out.view, i)];
        expected[i] = op == 0   ? x + 1.5 * y
                      : op == 1 ? x - 1.5 * y
                      : op == 2 ? x * y
                                : x / y;
      }
      expectClose(out, expected);
    }
}

TEST(PortableBinary, Int64DivisionRounding) {
  OwnedTensor a(ScalarType::Int64, {4}), b(ScalarType::Int64, {4});
  int64_t numerators[] = {7, -7, 7, -8}, denominators[] = {2, 2, -2, 0};
  std::memcpy(a.i64(), numerators, sizeof(numerators));
  std::memcpy(b.i64(), denominators, sizeof(denominators));
  OwnedTensor trunc(ScalarType::Int64, {4}), floor(ScalarType::Int64, {4});
  Attributes truncMode, floorMode;
  truncMode.s("rounding_mode", "trunc");
  floorMode.s("rounding_mode", "floor");
  ASSERT_EQ(runKernel("edge.div", {&a.view, &b.view}, {&trunc.view}, truncMode),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.div", {&a.view, &b.view}, {&floor.view}, floorMode),
            Error::Ok);
  EXPECT_EQ(trunc.i64()[0], 3);
  EXPECT_EQ(trunc.i64()[1], -3);
  EXPECT_EQ(floor.i64()[1], -4);
  EXPECT_EQ(floor.i64()[2], -4);
  EXPECT_EQ(trunc.i64()[3], 0); // division by zero is defined, never a trap
}

TEST(PortableBinary, RejectsNonBroadcastable) {
  OwnedTensor a = randomFloat({2, 3}), b = randomFloat({4});
  OwnedTensor out(ScalarType::Float32, {2, 3});
  EXPECT_EQ(runKernel("edge.add", {&a.view, &b.view}, {&out.view}),
            Error::InvalidShape);
}

double geluExact(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double hardsigmoid(double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }

TEST(PortableActivations, MatchFormulas) {
  struct Case {
    const char *op;
    double (*reference)(double);
    const char *approximate;
  } cases[] = {
      {"edge.relu", [](double x) { return x > 0 ? x : 0.0; }, nullptr},
      {"edge.sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); },
       nullptr},
      {"edge.tanh", [](double x) { return std::tanh(x); }, nullptr},
      {"edge.silu", [](double x) { return x / (1 + std::exp(-x)); }, nullptr},
      {"edge.hardswish", [](double x) { return x * hardsigmoid(x); }, nullptr},
      {"edge.hardsigmoid", hardsigmoid, nullptr},
      {"edge.gelu", geluExact, "none"},
      {"edge.gelu", geluTanh, "tanh"},
      {"edge.exp", [](double x) { return std::exp(x); }, nullptr},
      {"edge.sin", [](double x) { return std::sin(x); }, nullptr},
      {"edge.cos", [](double x) { return std::cos(x); }, nullptr},
      {"edge.neg", [](double x) { return -x; }, nullptr},
      {"edge.abs", [](double x) { return std::fabs(x); }, nullptr},
      {"edge.erf", [](double x) { return std::erf(x); }, nullptr},
      {"edge.floor", [](double x) { return std::floor(x); }, nullptr},
      {"edge.ceil", [](double x) { return std::ceil(x); }, nullptr},
      {"edge.round", [](double x) { return std::nearbyint(x); }, nullptr},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.op);
    OwnedTensor x = randomFloat({3, 17}, -6, 6),
                out(ScalarType::Float32, {3, 17});
    Attributes attributes;
    if (c.approximate)
      attributes.s("approximate", c.approximate);
    ASSERT_EQ(runKernel(c.op, {&x.view}, {&out.view}, attributes), Error::Ok);
    std::vector<double> expected(x.numel());
    for (int64_t i = 0; i < x.numel(); ++i)
      expected[i] = c.reference(x.f()[i]);
    expectClose(out, expected, 1e-5, 1e-6);

    OwnedTensor wide(ScalarType::Float64, {3, 17}),
        wideOut(ScalarType::Float64, {3, 17});
    for (int64_t i = 0; i < x.numel(); ++i)
      wide.view.data<double>()[i] = x.f()[i];
    ASSERT_EQ(runKernel(c.op, {&wide.view}, {&wideOut.view}, attributes),
              Error::Ok);
    for (int64_t i = 0; i < x.numel(); ++i)
      EXPECT_NEAR(wideOut.view.data<double>()[i], expected[i],
                  1e-13 * (1 + std::fabs(expected[i])))
          << i;
  }
}

TEST(PortableMath, MatchLibm) {
  // Each over a domain where it is defined and well conditioned.
  struct Case {
    const char *op;
    float low, high;
    double (*reference)(double);
  } cases[] = {
      {"edge.log", 0.1f, 10.0f, [](double x) { return std::log(x); }},
      {"edge.sqrt", 0.1f, 10.0f, [](double x) { return std::sqrt(x); }},
      {"edge.rsqrt", 0.1f, 10.0f, [](double x) { return 1 / std::sqrt(x); }},
      {"edge.reciprocal", 0.1f, 10.0f, [](double x) { return 1 / x; }},
      {"edge.tan", -1.2f, 1.2f, [](double x) { return std::tan(x); }},
      {"edge.asin", -0.99f, 0.99f, [](double x) { return std::asin(x); }},
      {"edge.acos", -0.99f, 0.99f, [](double x) { return std::acos(x); }},
      {"edge.atan", -6.0f, 6.0f, [](double x) { return std::atan(x); }},
      {"edge.sinh", -4.0f, 4.0f, [](double x) { return std::sinh(x); }},
      {"edge.cosh", -4.0f, 4.0f, [](double x) { return std::cosh(x); }},
      {"edge.asinh", -6.0f, 6.0f, [](double x) { return std::asinh(x); }},
      {"edge.acosh", 1.01f, 8.0f, [](double x) { return std::acosh(x); }},
      {"edge.atanh", -0.99f, 0.99f, [](double x) { return std::atanh(x); }},
      {"edge.expm1", -4.0f, 4.0f, [](double x) { return std::expm1(x); }},
      {"edge.log1p", -0.9f, 8.0f, [](double x) { return std::log1p(x); }},
      {"edge.log2", 0.1f, 10.0f, [](double x) { return std::log2(x); }},
      {"edge.log10", 0.1f, 10.0f, [](double x) { return std::log10(x); }},
      {"edge.trunc", -6.0f, 6.0f, [](double x) { return std::trunc(x); }},
      {"edge.sign", -6.0f, 6.0f,
       [](double x) { return x > 0   ? 1.0
                             : x < 0 ? -1.0
                                     : x; }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.op);
    OwnedTensor x = randomFloat({5, 11}, c.low, c.high),
                out(ScalarType::Float32, {5, 11});
    ASSERT_EQ(runKernel(c.op, {&x.view}, {&out.view}), Error::Ok);
    std::vector<double> expected(x.numel());
    for (int64_t i = 0; i < x.numel(); ++i)
      expected[i] = c.reference(x.f()[i]);
    expectClose(out, expected, 1e-5, 1e-5);

    // Float64 computes in double: libm's own result, to rounding.
    OwnedTensor wide(ScalarType::Float64, {5, 11}),
        wideOut(ScalarType::Float64, {5, 11});
    for (int64_t i = 0; i < x.numel(); ++i)
      wide.view.data<double>()[i] = x.f()[i];
    ASSERT_EQ(runKernel(c.op, {&wide.view}, {&wideOut.view}), Error::Ok);
    for (int64_t i = 0; i < x.numel(); ++i)
      EXPECT_NEAR(wideOut.view.data<double>()[i], expected[i],
                  1e-13 * (1 + std::fabs(expected[i])))
          << i;
  }
}

TEST(PortableMath, AbsNegSignKeepIntegers) {
  OwnedTensor x(ScalarType::Int64, {4}), out(ScalarType::Int64, {4});
  int64_t values[] = {-7, 0, 5, INT64_MIN};
  std::memcpy(x.i64(), values, sizeof(values));
  struct Case {
    const char *op;
    int64_t expected[4];
  } cases[] = {{"edge.abs", {7, 0, 5, INT64_MIN}},
               {"edge.neg", {7, 0, -5, INT64_MIN}},
               {"edge.sign", {-1, 0, 1, -1}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.op);
    ASSERT_EQ(runKernel(c.op, {&x.view}, {&out.view}), Error::Ok);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out.i64()[i], c.expected[i]) << i;
  }
}

TEST(PortableMath, RoundTiesToEven) {
  OwnedTensor x(ScalarType::Float32, {4}), out(ScalarType::Float32, {4});
  float values[] = {0.5f, 1.5f, 2.5f, -0.5f};
  std::memcpy(x.f(), values, sizeof(values));
  ASSERT_EQ(runKernel("edge.round", {&x.view}, {&out.view}), Error::Ok);
  expectClose(out, {0.0, 2.0, 2.0, -0.0}, 0, 0);
}

TEST(PortableBinary, PowMaximumMinimumBroadcast) {
  OwnedTensor a = randomFloat({3, 4}, 0.5f, 2.0f),
              b = randomFloat({4}, -2.0f, 2.0f);
  for (const char *op : {"edge.pow", "edge.maximum", "edge.minimum"}) {
    SCOPED_TRACE(op);
    OwnedTensor out(ScalarType::Float32, {3, 4});
    ASSERT_EQ(runKernel(op, {&a.view, &b.view}, {&out.view}), Error::Ok);
    std::vector<double> expected(12);
    for (int i = 0; i < 12; ++i) {
      double x = a.f()[i], y = b.f()[i % 4];
      expected[i] = op[5] == 'p'   ? std::pow(x, y)
                    : op[6] == 'a' ? std::max(x, y)
                                   : std::min(x, y);
    }
    expectClose(out, expected, 1e-5, 1e-6);
  }
  OwnedTensor i(ScalarType::Int64, {3}), j(ScalarType::Int64, {3}),
      k(ScalarType::Int64, {3});
  int64_t left[] = {1, 5, -3}, right[] = {4, 2, -7};
  std::memcpy(i.i64(), left, sizeof(left));
  std::memcpy(j.i64(), right, sizeof(right));
  ASSERT_EQ(runKernel("edge.maximum", {&i.view, &j.view}, {&k.view}),
            Error::Ok);
  EXPECT_EQ(k.i64()[0], 4);
  EXPECT_EQ(k.i64()[1], 5);
  EXPECT_EQ(k.i64()[2], -3);
  // Integer powers are exact; a negative exponent gives 1, -1 or 0 (torch).
  int64_t bases[] = {3, -2, 7}, exponents[] = {4, 3, -1};
  std::memcpy(i.i64(), bases, sizeof(bases));
  std::memcpy(j.i64(), exponents, sizeof(exponents));
  ASSERT_EQ(runKernel("edge.pow", {&i.view, &j.view}, {&k.view}), Error::Ok);
  EXPECT_EQ(k.i64()[0], 81);
  EXPECT_EQ(k.i64()[1], -8);
  EXPECT_EQ(k.i64()[2], 0);
  OwnedTensor f(ScalarType::Float32, {3});
  EXPECT_EQ(runKernel("edge.pow", {&i.view, &j.view}, {&f.view}),
            Error::InvalidType);
}

// Every other numeric type: float64 and the narrow integers natively,
// float16/bfloat16 through float32 (rounded back per element).
TEST(PortableBinary, NarrowAndWideTypes) {
  OwnedTensor d(ScalarType::Float64, {3}), e(ScalarType::Float64, {1}),
      dOut(ScalarType::Float64, {3});
  double dv[] = {1.5, -2.25, 1e300};
  std::memcpy(d.view.data<double>(), dv, sizeof(dv));
  e.view.data<double>()[0] = 2.0;
  ASSERT_EQ(runKernel("edge.mul", {&d.view, &e.view}, {&dOut.view}), Error::Ok);
  EXPECT_EQ(dOut.view.data<double>()[0], 3.0);
  EXPECT_EQ(dOut.view.data<double>()[1], -4.5);
  EXPECT_EQ(dOut.view.data<double>()[2], 2e300); // beyond float32's range
  OwnedTensor i8(ScalarType::Int8, {3}), j8(ScalarType::Int8, {3}),
      k8(ScalarType::Int8, {3});
  int8_t left[] = {-7, 100, -128}, right[] = {3, -3, 5};
  std::memcpy(i8.view.data<int8_t>(), left, 3);
  std::memcpy(j8.view.data<int8_t>(), right, 3);
  ASSERT_EQ(runKernel("edge.remainder", {&i8.view, &j8.view}, {&k8.view}),
            Error::Ok);
  int8_t remainders[] = {2, -2, 2};
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(k8.view.data<int8_t>()[i], remainders[i]) << i;
  ASSERT_EQ(runKernel("edge.maximum", {&i8.view, &j8.view}, {&k8.view}),
            Error::Ok);
  EXPECT_EQ(k8.view.data<int8_t>()[1], 100);
  EXPECT_EQ(k8.view.data<int8_t>()[2], 5);
  OwnedTensor h(ScalarType::Float16, {2}), hOut(ScalarType::Float16, {2});
  uint16_t halves[] = {0x3c00 /* 1 */, 0x4000 /* 2 */};
  std::memcpy(h.view.data<uint16_t>(), halves, sizeof(halves));
  ASSERT_EQ(runKernel("edge.add", {&h.view, &h.view}, {&hOut.view}), Error::Ok);
  EXPECT_EQ(hOut.view.data<uint16_t>()[0], 0x4000); // 2
  EXPECT_EQ(hOut.view.data<uint16_t>()[1], 0x4400); // 4
  // clamp in a narrow integer type: bounds round inward.
  Attributes bounds;
  bounds.d("min", -2.5).d("max", 99.5);
  ASSERT_EQ(runKernel("edge.clamp", {&i8.view}, {&k8.view}, bounds), Error::Ok);
  int8_t clamped[] = {-2, 99, -2};
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(k8.view.data<int8_t>()[i], clamped[i]) << i;
  OwnedTensor flags(ScalarType::Bool, {2});
  EXPECT_EQ(runKernel("edge.add", {&flags.view, &flags.view}, {&flags.view}),
            Error::NotSupported);
}

/// \p op over two 1-D tensors of unsigned type T; the output's values.
template <typename T>
std::vector<T> unsignedBinary(const char *op, std::vector<T> a,
                              std::vector<T> b, ScalarType type) {
  int64_t n = static_cast<int64_t>(a.size());
  OwnedTensor x(type, {n}), y(type, {n}), out(type, {n});
  std::memcpy(x.view.data<T>(), a.data(), n * sizeof(T));
  std::memcpy(y.view.data<T>(), b.data(), n * sizeof(T));
  EXPECT_EQ(runKernel(op, {&x.view, &y.view}, {&out.view}), Error::Ok) << op;
  return std::vector<T>(out.view.data<T>(), out.view.data<T>() + n);
}

TEST(PortableBinary, UnsignedWrapDivideRemainderShift) {
  using V16 = std::vector<uint16_t>;
  using V32 = std::vector<uint32_t>;
  using V64 = std::vector<uint64_t>;
  const auto u16 = ScalarType::UInt16;
  const auto u32 = ScalarType::UInt32;
  const auto u64 = ScalarType::UInt64;
  // Arithmetic wraps modulo 2^bits; values past INT_MAX stay unsigned.
  EXPECT_EQ(unsignedBinary<uint16_t>("edge.add", {65535, 7}, {2, 8}, u16),
            (V16{1, 15}));
  EXPECT_EQ(unsignedBinary<uint32_t>("edge.sub", {1, 4000000000u}, {2, 1}, u32),
            (V32{4294967295u, 3999999999u}));
  // Division and remainder never see a sign: the largest divisor is no -1.
  EXPECT_EQ(unsignedBinary<uint32_t>("edge.div", {4294967295u, 9, 5},
                                     {4294967295u, 2, 0}, u32),
            (V32{1, 4, 0}));
  EXPECT_EQ(unsignedBinary<uint64_t>("edge.remainder",
                                     {18446744073709551615ull, 7, 9},
                                     {10, 18446744073709551615ull, 0}, u64),
            (V64{5, 7, 0}));
  EXPECT_EQ(unsignedBinary<uint64_t>("edge.maximum",
                                     {18446744073709551615ull, 3}, {1, 4}, u64),
            (V64{18446744073709551615ull, 4}));
  EXPECT_EQ(unsignedBinary<uint16_t>("edge.pow", {3, 2}, {4, 17}, u16),
            (V16{81, 0}));
  // Shifts: a shift of the bit width or more gives 0.
  EXPECT_EQ(unsignedBinary<uint16_t>("edge.bitwise_left_shift", {1, 0x8001, 5},
                                     {15, 1, 16}, u16),
            (V16{0x8000, 2, 0}));
  EXPECT_EQ(unsignedBinary<uint64_t>("edge.bitwise_right_shift",
                                     {18446744073709551615ull, 16, 16},
                                     {63, 2, 64}, u64),
            (V64{1, 4, 0}));
  // Signed right shifts are arithmetic; out of range, a negative value
  // keeps its sign bits and negative amounts shift nothing in.
  OwnedTensor x(ScalarType::Int32, {4}), y(ScalarType::Int32, {4}),
      out(ScalarType::Int32, {4});
  int32_t values[] = {-16, 16, -1, 5}, amounts[] = {2, 40, 33, -1};
  std::memcpy(x.view.data<int32_t>(), values, sizeof(values));
  std::memcpy(y.view.data<int32_t>(), amounts, sizeof(amounts));
  ASSERT_EQ(
      runKernel("edge.bitwise_right_shift", {&x.view, &y.view}, {&out.view}),
      Error::Ok);
  int32_t shifted[] = {-4, 0, -1, 0};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.view.data<int32_t>()[i], shifted[i]) << i;
  // Shifting a float is refused.
  OwnedTensor f = randomFloat({2}), fOut(ScalarType::Float32, {2});
  EXPECT_EQ(
      runKernel("edge.bitwise_left_shift", {&f.view, &f.view}, {&fOut.view}),
      Error::NotSupported);
}

TEST(PortableActivations, HardtanhAndClamp) {
  OwnedTensor x = randomFloat({40}, -8, 8), out(ScalarType::Float32, {40});
  Attributes relu6;
  relu6.d("min_val", 0).d("max_val", 6);
  ASSERT_EQ(runKernel("edge.hardtanh", {&x.view}, {&out.view}, relu6),
            Error::Ok);
  std::vector<double> expected(40);
  for (int i = 0; i < 40; ++i)
    expected[i] = std::min(std::max<double>(x.f()[i], 0), 6.0);
  expectClose(out, expected);

  Attributes low;
  low.d("min", -1.5);
  ASSERT_EQ(runKernel("edge.clamp", {&x.view}, {&out.view}, low), Error::Ok);
  for (int i = 0; i < 40; ++i)
    expected[i] = std::max<double>(x.f()[i], -1.5);
  expectClose(out, expected);
}

TEST(PortableActivations, LeakyReluAndElu) {
  OwnedTensor x = randomFloat({40}, -4, 4), out(ScalarType::Float32, {40});
  Attributes slope;
  slope.d("negative_slope", 0.2);
  ASSERT_EQ(runKernel("edge.leaky_relu", {&x.view}, {&out.view}, slope),
            Error::Ok);
  std::vector<double> expected(40);
  for (int i = 0; i < 40; ++i)
    expected[i] = x.f()[i] > 0 ? x.f()[i] : 0.2 * x.f()[i];
  expectClose(out, expected);

  ASSERT_EQ(runKernel("edge.leaky_relu", {&x.view}, {&out.view}), Error::Ok);
  for (int i = 0; i < 40; ++i)
    expected[i] = x.f()[i] > 0 ? x.f()[i] : 0.01 * x.f()[i];
  expectClose(out, expected);

  // ATen's elu(x, alpha, scale, input_scale).
  Attributes elu;
  elu.d("alpha", 0.7).d("scale", 1.5).d("input_scale", 2.0);
  ASSERT_EQ(runKernel("edge.elu", {&x.view}, {&out.view}, elu), Error::Ok);
  for (int i = 0; i < 40; ++i) {
    double v = x.f()[i];
    expected[i] = 1.5 * (v > 0 ? v : 0.7 * (std::exp(2.0 * v) - 1.0));
  }
  expectClose(out, expected);
}

TEST(PortableActivations, RejectIntegerInput) {
  OwnedTensor x(ScalarType::Int64, {4}), out(ScalarType::Int64, {4});
  EXPECT_EQ(runKernel("edge.relu", {&x.view}, {&out.view}), Error::InvalidType);
}

} // namespace
