// convolution (direct/transposed, strides, padding, dilation, groups),
// linear, addmm, mm, bmm against double-precision loops.
#include "KernelTestSupport.h"

#include <cstring>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias, transposed;
  int64_t oph = 0, opw = 0;
};

std::vector<double> referenceConv(const ConvCase &k, const OwnedTensor &x,
                                  const OwnedTensor &weight, const float *bias,
                                  int64_t oh, int64_t ow) {
  std::vector<double> out(k.n * k.oc * oh * ow, 0.0);
  int64_t icg = k.c / k.groups, ocg = k.oc / k.groups;
  const float *in = x.view.data<float>(), *w = weight.view.data<float>();
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t oc = 0; oc < k.oc; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo)
          out[((n * k.oc + oc) * oh + y) * ow + xo] = bias ? bias[oc] : 0.0;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t ic = 0; ic < k.c; ++ic)
      for (int64_t iy = 0; iy < k.h; ++iy)
        for (int64_t ix = 0; ix < k.w; ++ix)
          for (int64_t ky = 0; ky < k.kh; ++ky)
            for (int64_t kx = 0; kx < k.kw; ++kx) {
              int64_t g = ic / icg;
              for (int64_t o = 0; o < ocg; ++o) {
                int64_t oc = g * ocg + o;
                int64_t y, xo;
                double wv;
                if (k.transposed) {
                  y = iy * k.sh - k.ph + ky * k.dh;
                  xo = ix * k.sw - k.pw + kx * k.dw;
                  wv = w[((ic * ocg + o) * k.kh + ky) * k.kw + kx];
                } else {
                  // Output (y, xo) reads input (iy, ix) through (ky, kx).
                  int64_t ny = iy + k.ph - ky * k.dh,
                          nx = ix + k.pw - kx * k.dw;
                  if (ny % k.sh || nx % k.sw)
                    continue;
                  y = ny / k.sh;
                  xo = nx / k.sw;
                  wv = w[((oc * icg + (ic - g * icg)) * k.kh + ky) * k.kw + kx];
                }
                if (y < 0 || y >= oh || xo < 0 || xo >= ow)
                  continue;
                out[((n * k.oc + oc) * oh + y) * ow + xo] +=
                    wv * in[((n * k.c + ic) * k.h + iy) * k.w + ix];
              }
            }
  return out;
}

void checkConv(const ConvCase &k) {
  SCOPED_TRACE("conv case c=" + std::to_string(k.c) + " oc=" +
               std::to_string(k.oc) + " groups=" + std::to_string(k.groups) +
               (k.transposed ? " transposed" : ""));
  OwnedTensor x = randomFloat({k.n, k.c, k.h, k.w});
  OwnedTensor weight = k.transposed
                           ? randomFloat({k.c, k.oc / k.groups, k.kh, k.kw})
                           : randomFloat({k.oc, k.c / k.groups, k.kh, k.kw});
  OwnedTensor bias = randomFloat({k.oc});
  int64_t oh, ow;
  if (k.transposed) {
    oh = (k.h - 1) * k.sh - 2 * k.ph + k.dh * (k.kh - 1) + k.oph + 1;
    ow = (k.w - 1) * k.sw - 2 * k.pw + k.dw * (k.kw - 1) + k.opw + 1;
  } else {
    oh = (k.h + 2 * k.ph - k.dh * (k.kh - 1) - 1) / k.sh + 1;
    ow = (k.w + 2 * k.pw - k.dw * (k.kw - 1) - 1) / k.sw + 1;
  }
  OwnedTensor out(ScalarType::Float32, {k.n, k.oc, oh, ow});
  Attributes attributes;
  attributes.ints("stride", {k.sh, k.sw})
      .ints("padding", {k.ph, k.pw})
      .ints("dilation", {k.dh, k.dw})
      .i("groups", k.groups)
      .b("transposed", k.transposed)
      .ints("output_padding", {k.oph, k.opw});
  std::vector<TensorView *> inputs = {&x.view, &weight.view};
  if (k.bias)
    inputs.push_back(&bias.view);
  ASSERT_EQ(runKernel("edge.convolution", inputs, {&out.view}, attributes),
            Error::Ok);
  expectClose(out,
              referenceConv(k, x, weight, k.bias ? bias.f() : nullptr, oh, ow),
              1e-4, 1e-4);
}

TEST(PortableConvolution, DirectShapes) {
  checkConv({1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false});
  checkConv({2, 4, 9, 7, 6, 3, 2, 2, 1, 1, 0, 1, 1, 2, false, false});
  checkConv(
      {1, 8, 10, 10, 8, 3, 3, 2, 2, 1, 1, 1, 1, 8, true, false}); // depthwise
  checkConv(
      {1, 2, 11, 11, 3, 3, 3, 1, 1, 2, 2, 2, 2, 1, true, false}); // dilation
  checkConv(
      {1, 3, 7, 5, 2, 1, 1, 3, 2, 0, 0, 1, 1, 1, false, false}); // 1x1 strided
}

TEST(PortableConvolution, RandomDirect) {
  for (int trial = 0; trial < 20; ++trial) {
    ConvCase k{};
    k.groups = randomInt(1, 3);
    k.n = randomInt(1, 2);
    k.c = k.groups * randomInt(1, 3);
    k.oc = k.groups * randomInt(1, 3);
    k.kh = randomInt(1, 4);
    k.kw = randomInt(1, 4);
    k.sh = randomInt(1, 3);
    k.sw = randomInt(1, 3);
    k.dh = randomInt(1, 2);
    k.dw = randomInt(1, 2);
    k.ph = randomInt(0, 2);
    k.pw = randomInt(0, 2);
    k.h = k.dh * (k.kh - 1) + 1 + randomInt(0, 6);
    k.w = k.dw * (k.kw - 1) + 1 + randomInt(0, 6);
    k.bias = trial % 2;
    checkConv(k);
  }
}

TEST(PortableConvolution, Transposed) {
  checkConv({1, 4, 5, 5, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, true, 1, 1});
  checkConv({2, 4, 4, 3, 6, 2, 3, 1, 2, 0, 1, 1, 1, 2, false, true, 0, 1});
}

TEST(PortableConvolution, RejectsInconsistentShapes) {
  OwnedTensor x = randomFloat({1, 3, 8, 8}), weight = randomFloat({4, 2, 3, 3});
  OwnedTensor out(ScalarType::Float32, {1, 4, 6, 6});
  Attributes attributes;
  attributes.ints("stride", {1, 1})
      .ints("padding", {0, 0})
      .ints("dilation", {1, 1});
  EXPECT_EQ(runKernel("edge.convolution", {&x.view, &weight.view}, {&out.view},
                      attributes),
            Error::InvalidShape);
}

std::vector<double> referenceMatmul(const float *a, const float *b, int64_t m,
                                    int64_t k, int64_t n) {
  std::vector<double> out(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        out[i * n + j] += double(a[i * k + p]) * b[p * n + j];
  return out;
}

TEST(PortableMatmul, MmBmmAddmm) {
  for (int trial = 0; trial < 10; ++trial) {
    int64_t m = randomInt(1, 9), k = randomInt(1, 17), n = randomInt(1, 9),
            batch = randomInt(1, 3);
    OwnedTensor a = randomFloat({m, k}), b = randomFloat({k, n});
    OwnedTensor mm(ScalarType::Float32, {m, n});
    ASSERT_EQ(runKernel("edge.mm", {&a.view, &b.view}, {&mm.view}), Error::Ok);
    expectClose(mm, referenceMatmul(a.f(), b.f(), m, k, n));

    OwnedTensor bias = randomFloat({n}), addmm(ScalarType::Float32, {m, n});
    Attributes scale;
    scale.d("beta", 0.5).d("alpha", 2.0);
    ASSERT_EQ(runKernel("edge.addmm", {&bias.view, &a.view, &b.view},
                        {&addmm.view}, scale),
              Error::Ok);
    std::vector<double> expected = referenceMatmul(a.f(), b.f(), m, k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        expected[i * n + j] = 2.0 * expected[i * n + j] + 0.5 * bias.f()[j];
    expectClose(addmm, expected);

    OwnedTensor ba = randomFloat({batch, m, k}),
                bb = randomFloat({batch, k, n});
    OwnedTensor bmm(ScalarType::Float32, {batch, m, n});
    ASSERT_EQ(runKernel("edge.bmm", {&ba.view, &bb.view}, {&bmm.view}),
              Error::Ok);
    std::vector<double> all;
    for (int64_t i = 0; i < batch; ++i) {
      std::vector<double> part =
          referenceMatmul(ba.f() + i * m * k, bb.f() + i * k * n, m, k, n);
      all.insert(all.end(), part.begin(), part.end());
    }
    expectClose(bmm, all);
  }
}

TEST(PortableMatmul, LinearBatchedWithBias) {
  OwnedTensor x = randomFloat({2, 3, 13}), weight = randomFloat({5, 13});
  OwnedTensor bias = randomFloat({5}), out(ScalarType::Float32, {2, 3, 5});
  ASSERT_EQ(runKernel("edge.linear", {&x.view, &weight.view, &bias.view},
                      {&out.view}),
            Error::Ok);
  std::vector<double> expected(30, 0.0);
  for (int r = 0; r < 6; ++r)
    for (int j = 0; j < 5; ++j) {
      double sum = bias.f()[j];
      for (int p = 0; p < 13; ++p)
        sum += double(x.f()[r * 13 + p]) * weight.f()[j * 13 + p];
      expected[r * 5 + j] = sum;
    }
  expectClose(out, expected);
}

} // namespace

TEST(PortableMatmul, MmAndBmmInFloat64) {
  // Values whose float32 products would round: the sums are exact in double.
  OwnedTensor a(ScalarType::Float64, {2, 2, 3}),
      b(ScalarType::Float64, {2, 3, 2}), out(ScalarType::Float64, {2, 2, 2});
  double *pa = a.view.data<double>(), *pb = b.view.data<double>();
  for (int i = 0; i < 12; ++i) {
    pa[i] = 1.0 + i * 1e-9;
    pb[i] = 3.0 - i * 1e-9;
  }
  ASSERT_EQ(runKernel("edge.bmm", {&a.view, &b.view}, {&out.view}), Error::Ok);
  for (int batch = 0; batch < 2; ++batch)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double sum = 0;
        for (int k = 0; k < 3; ++k)
          sum += pa[(batch * 2 + i) * 3 + k] * pb[(batch * 3 + k) * 2 + j];
        EXPECT_DOUBLE_EQ(out.view.data<double>()[(batch * 2 + i) * 2 + j], sum);
      }
  OwnedTensor m(ScalarType::Float64, {2, 3}), n(ScalarType::Float64, {3, 2}),
      mOut(ScalarType::Float64, {2, 2});
  std::memcpy(m.view.data<double>(), pa, 6 * sizeof(double));
  std::memcpy(n.view.data<double>(), pb, 6 * sizeof(double));
  ASSERT_EQ(runKernel("edge.mm", {&m.view, &n.view}, {&mOut.view}), Error::Ok);
  EXPECT_DOUBLE_EQ(mOut.view.data<double>()[0],
                   pa[0] * pb[0] + pa[1] * pb[2] + pa[2] * pb[4]);
  // Mixed float64 and float32 operands are refused.
  OwnedTensor f = randomFloat({3, 2});
  EXPECT_EQ(runKernel("edge.mm", {&m.view, &f.view}, {&mOut.view}),
            Error::InvalidType);
}

TEST(PortableConvolution, Float64MatchesFloat32OnIntegers) {
  // ONNX's integer convolutions run in float64: integer-valued data gives
  // the exact sums both ways when small.
  OwnedTensor x(ScalarType::Float32, {1, 2, 5, 5}),
      w(ScalarType::Float32, {3, 2, 3, 3}),
      out(ScalarType::Float32, {1, 3, 3, 3});
  OwnedTensor x64(ScalarType::Float64, {1, 2, 5, 5}),
      w64(ScalarType::Float64, {3, 2, 3, 3}),
      out64(ScalarType::Float64, {1, 3, 3, 3});
  for (int64_t i = 0; i < x.numel(); ++i)
    x64.view.data<double>()[i] = x.f()[i] =
        static_cast<float>(randomInt(-128, 127));
  for (int64_t i = 0; i < w.numel(); ++i)
    w64.view.data<double>()[i] = w.f()[i] =
        static_cast<float>(randomInt(-128, 127));
  Attributes attributes;
  attributes.ints("stride", {1, 1})
      .ints("padding", {0, 0})
      .ints("dilation", {1, 1});
  ASSERT_EQ(runKernel("edge.convolution", {&x.view, &w.view}, {&out.view},
                      attributes),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.convolution", {&x64.view, &w64.view}, {&out64.view},
                      attributes),
            Error::Ok);
  for (int64_t i = 0; i < out.numel(); ++i)
    EXPECT_EQ(out64.view.data<double>()[i], out.f()[i]) << i;
  // One float64 operand among float32 ones is refused.
  EXPECT_EQ(runKernel("edge.convolution", {&x64.view, &w.view}, {&out64.view},
                      attributes),
            Error::InvalidType);
}

TEST(PortableLinalg, DeterminantAgainstCofactors) {
  // Batches of 3x3 matrices (one singular, one needing a row swap) against
  // the cofactor expansion, in float32 and float64.
  float values[3][9] = {{2, -1, 0, 1, 3, 4, 0, 5, -2},
                        {1, 2, 3, 2, 4, 6, 7, 8, 9},  // rows 0 and 1 dependent
                        {0, 1, 2, 3, 0, 1, 4, 5, 0}}; // zero leading pivot
  OwnedTensor a(ScalarType::Float32, {3, 3, 3}), det(ScalarType::Float32, {3}),
      lu(ScalarType::Float32, {3, 3, 3}), pivots(ScalarType::Int32, {3, 3});
  std::memcpy(a.f(), values, sizeof(values));
  ASSERT_EQ(runKernel("edge.linalg_det", {&a.view},
                      {&det.view, &lu.view, &pivots.view}),
            Error::Ok);
  for (int m = 0; m < 3; ++m) {
    const float *v = values[m];
    double expected = v[0] * (v[4] * v[8] - v[5] * v[7]) -
                      v[1] * (v[3] * v[8] - v[5] * v[6]) +
                      v[2] * (v[3] * v[7] - v[4] * v[6]);
    EXPECT_NEAR(det.f()[m], expected, 1e-4) << m;
  }
  // Matrix 2 takes row 3 (the largest of column 0) first: 1-based pivots.
  EXPECT_EQ(pivots.view.data<int32_t>()[6], 3);
  OwnedTensor a64(ScalarType::Float64, {2, 2}), det64(ScalarType::Float64, {}),
      lu64(ScalarType::Float64, {2, 2}), pivots64(ScalarType::Int32, {2});
  double pair[] = {1e-3, 2, 3, 4};
  std::memcpy(a64.view.data<double>(), pair, sizeof(pair));
  ASSERT_EQ(runKernel("edge.linalg_det", {&a64.view},
                      {&det64.view, &lu64.view, &pivots64.view}),
            Error::Ok);
  EXPECT_NEAR(det64.view.data<double>()[0], 1e-3 * 4 - 2 * 3, 1e-12);
  OwnedTensor wide(ScalarType::Float32, {2, 3});
  EXPECT_EQ(runKernel("edge.linalg_det", {&wide.view},
                      {&det.view, &lu.view, &pivots.view}),
            Error::InvalidShape);
}

namespace {

/// grouped_mm's reference: row s times the matrix of the group whose range
/// holds it; rows past the last count stay zero.
std::vector<double> groupedReference(const OwnedTensor &input,
                                     const OwnedTensor &weight,
                                     const std::vector<int64_t> &ends) {
  int64_t rows = input.view.size(0), k = input.view.size(1),
          n = weight.view.size(2);
  std::vector<double> expected(rows * n, 0.0);
  int64_t start = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    int64_t stop = std::max(start, std::min<int64_t>(ends[g], rows));
    for (int64_t s = start; s < stop; ++s)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p)
          expected[s * n + j] += double(input.view.data<float>()[s * k + p]) *
                                 weight.view.data<float>()[(g * k + p) * n + j];
    start = stop;
  }
  return expected;
}

} // namespace

// Mixture-of-experts rows sorted by expert: an empty group, a ragged one,
// rows past the last count (zero), counts past the rows (cut), int32 and
// int64 counts.
TEST(PortableMatmul, GroupedMmRowsPerGroup) {
  const std::vector<std::vector<int64_t>> cases = {
      {2, 2, 5, 6}, {0, 3, 3, 7}, {1, 4, 9, 12}};
  for (ScalarType countType : {ScalarType::Int32, ScalarType::Int64})
    for (const std::vector<int64_t> &ends : cases) {
      OwnedTensor input = randomFloat({7, 5}), weight = randomFloat({4, 5, 3});
      OwnedTensor offs(countType, {4}), out(ScalarType::Float32, {7, 3});
      for (int g = 0; g < 4; ++g) {
        if (countType == ScalarType::Int32)
          offs.view.data<int32_t>()[g] = static_cast<int32_t>(ends[g]);
        else
          offs.view.data<int64_t>()[g] = ends[g];
      }
      ASSERT_EQ(runKernel("edge.grouped_mm",
                          {&input.view, &weight.view, &offs.view}, {&out.view}),
                Error::Ok);
      expectClose(out, groupedReference(input, weight, ends), 1e-5, 1e-6);
    }
}

TEST(PortableMatmul, GroupedMmRejectsFloatCountsAndMismatchedShapes) {
  OwnedTensor input = randomFloat({7, 5}), weight = randomFloat({4, 5, 3});
  OwnedTensor floatCounts = randomFloat({4}), out(ScalarType::Float32, {7, 3});
  EXPECT_EQ(runKernel("edge.grouped_mm",
                      {&input.view, &weight.view, &floatCounts.view},
                      {&out.view}),
            Error::InvalidType);
  OwnedTensor threeCounts(ScalarType::Int64, {3});
  EXPECT_EQ(runKernel("edge.grouped_mm",
                      {&input.view, &weight.view, &threeCounts.view},
                      {&out.view}),
            Error::InvalidShape);
}
