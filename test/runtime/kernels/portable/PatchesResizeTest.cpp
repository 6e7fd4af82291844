// im2col/col2im (F.unfold/F.fold) and bicubic resizing: against a direct
// reference over random windows, against values torch 1.13 printed for a
// fixed input, col2im as im2col's adjoint, float64, and the load errors.
#include "KernelTestSupport.h"

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

/// x[i] = ((7 i) mod 11 - 5) / 4, shape [1, 2, 3, 4]: the input the torch
/// values below were printed for.
OwnedTensor fixedImage() {
  OwnedTensor x(ScalarType::Float32, {1, 2, 3, 4});
  for (int i = 0; i < 24; ++i)
    x.f()[i] = ((i * 7) % 11 - 5) / 4.0f;
  return x;
}

struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  Attributes attributes() const {
    Attributes a;
    a.ints("kernel_size", {kh, kw})
        .ints("dilation", {dh, dw})
        .ints("padding", {ph, pw})
        .ints("stride", {sh, sw});
    return a;
  }
  int64_t blocks(int64_t extent, int dim) const {
    int64_t k = dim ? kw : kh, d = dim ? dw : dh, p = dim ? pw : ph,
            s = dim ? sw : sh;
    return (extent + 2 * p - d * (k - 1) - 1) / s + 1;
  }
};

/// im2col by its definition: column l of row (c, i, j) is tap (i, j) of
/// channel c of window l, zero in the padding.
std::vector<double> unfoldReference(const OwnedTensor &x, const Window &w) {
  int64_t n = x.view.size(0), c = x.view.size(1), h = x.view.size(2),
          wd = x.view.size(3);
  int64_t bh = w.blocks(h, 0), bw = w.blocks(wd, 1);
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < w.kh; ++i)
        for (int64_t j = 0; j < w.kw; ++j)
          for (int64_t by = 0; by < bh; ++by)
            for (int64_t bx = 0; bx < bw; ++bx) {
              int64_t y = by * w.sh - w.ph + i * w.dh,
                      xx = bx * w.sw - w.pw + j * w.dw;
              bool inside = y >= 0 && y < h && xx >= 0 && xx < wd;
              out.push_back(
                  inside
                      ? x.view.data<float>()[((b * c + ch) * h + y) * wd + xx]
                      : 0.0);
            }
  return out;
}

double dot(const OwnedTensor &a, const OwnedTensor &b) {
  double sum = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    sum += double(a.view.data<float>()[i]) * b.view.data<float>()[i];
  return sum;
}

TEST(PortablePatches, Im2colAgainstReferenceAndCol2imIsItsAdjoint) {
  for (int trial = 0; trial < 40; ++trial) {
    Window w{randomInt(1, 3),
             randomInt(1, 3),
             randomInt(1, 2),
             randomInt(1, 2),
             0,
             0,
             randomInt(1, 3),
             randomInt(1, 3)};
    w.ph = randomInt(0, 2);
    w.pw = randomInt(0, 2);
    int64_t h = w.dh * (w.kh - 1) + 1 + randomInt(0, 5),
            wd = w.dw * (w.kw - 1) + 1 + randomInt(0, 5);
    OwnedTensor x = randomFloat({2, 3, h, wd});
    int64_t rows = 3 * w.kh * w.kw, blocks = w.blocks(h, 0) * w.blocks(wd, 1);
    OwnedTensor columns(ScalarType::Float32, {2, rows, blocks});
    Attributes a = w.attributes();
    ASSERT_EQ(runKernel("edge.im2col", {&x.view}, {&columns.view}, a),
              Error::Ok);
    expectClose(columns, unfoldReference(x, w), 0, 0);

    // <im2col(x), c> = <x, col2im(c)> for every c: col2im adds each tap
    // back where im2col read it.
    OwnedTensor c = randomFloat({2, rows, blocks});
    OwnedTensor folded(ScalarType::Float32, {2, 3, h, wd});
    Attributes f = w.attributes();
    f.ints("output_size", {h, wd});
    ASSERT_EQ(runKernel("edge.col2im", {&c.view}, {&folded.view}, f),
              Error::Ok);
    EXPECT_NEAR(dot(columns, c), dot(x, folded), 1e-4) << "trial " << trial;
  }
}

TEST(PortablePatches, MatchTorchOnAFixedImage) {
  OwnedTensor x = fixedImage();
  Window w{2, 3, 2, 1, 1, 0, 1, 2};
  OwnedTensor columns(ScalarType::Float32, {1, 12, 3});
  ASSERT_EQ(
      runKernel("edge.im2col", {&x.view}, {&columns.view}, w.attributes()),
      Error::Ok);
  expectClose(columns, {0,     -1.25, 0.25,  0,     0.5,   -0.75, 0, -0.5,  1,
                        0.25,  -1,    0,     -0.75, 0.75,  0,     1, -0.25, 0,
                        0,     0.5,   -0.75, 0,     -0.5,  1,     0, 1.25,  0,
                        -0.75, 0.75,  0,     1,     -0.25, 0,     0, -1.25, 0},
              0, 0);
  OwnedTensor folded(ScalarType::Float32, {1, 2, 3, 4});
  Attributes f = w.attributes();
  f.ints("output_size", {3, 4});
  ASSERT_EQ(runKernel("edge.col2im", {&columns.view}, {&folded.view}, f),
            Error::Ok);
  expectClose(folded,
              {-1.25, 0.5,  -0.5, 0, 0.5,  -1.5, 2, 0, -1,   0.75,  -0.25, 0,
               0.5,   -0.5, 1.25, 0, -1.5, 2,    0, 0, 0.75, -0.25, -1.25, 0},
              0, 0);
}

TEST(PortablePatches, UnbatchedAndFloat64) {
  OwnedTensor x(ScalarType::Float64, {2, 3, 4});
  for (int i = 0; i < 24; ++i)
    x.view.data<double>()[i] = 0.1 * i;
  Window w{2, 2, 1, 1, 0, 0, 1, 1};
  OwnedTensor columns(ScalarType::Float64, {8, 6});
  ASSERT_EQ(
      runKernel("edge.im2col", {&x.view}, {&columns.view}, w.attributes()),
      Error::Ok);
  // Row (c=1, i=1, j=0), column (by=0, bx=2): x[1, 1, 2].
  EXPECT_DOUBLE_EQ(columns.view.data<double>()[6 * 6 + 2], 0.1 * 18);
  OwnedTensor image(ScalarType::Float64, {2, 3, 4});
  Attributes f = w.attributes();
  f.ints("output_size", {3, 4});
  ASSERT_EQ(runKernel("edge.col2im", {&columns.view}, {&image.view}, f),
            Error::Ok);
  // An inner pixel is in four 2x2 windows, a corner in one.
  EXPECT_DOUBLE_EQ(image.view.data<double>()[1 * 4 + 1], 4 * 0.1 * 5);
  EXPECT_DOUBLE_EQ(image.view.data<double>()[0], 0.0);
  EXPECT_DOUBLE_EQ(image.view.data<double>()[12 + 11], 0.1 * 23);
}

TEST(PortablePatches, LoadErrors) {
  OwnedTensor x = randomFloat({1, 2, 3, 4});
  OwnedTensor columns(ScalarType::Float32, {1, 8, 6});
  Window tooLarge{4, 2, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(runKernel("edge.im2col", {&x.view}, {&columns.view},
                      tooLarge.attributes()),
            Error::InvalidProgram);
  Window zeroStride{2, 2, 1, 1, 0, 0, 0, 1};
  EXPECT_EQ(runKernel("edge.im2col", {&x.view}, {&columns.view},
                      zeroStride.attributes()),
            Error::InvalidProgram);
  Window fits{2, 2, 1, 1, 0, 0, 1, 1};
  OwnedTensor wrongColumns(ScalarType::Float32, {1, 8, 5});
  EXPECT_EQ(runKernel("edge.im2col", {&x.view}, {&wrongColumns.view},
                      fits.attributes()),
            Error::InvalidShape);
  // col2im: 7 rows are no whole number of 2x2 windows' channels.
  OwnedTensor ragged = randomFloat({1, 7, 6});
  OwnedTensor image(ScalarType::Float32, {1, 2, 3, 4});
  Attributes f = fits.attributes();
  f.ints("output_size", {3, 4});
  EXPECT_EQ(runKernel("edge.col2im", {&ragged.view}, {&image.view}, f),
            Error::InvalidShape);
  OwnedTensor ints(ScalarType::Int32, {1, 2, 3, 4});
  EXPECT_EQ(runKernel("edge.im2col", {&ints.view}, {&columns.view},
                      fits.attributes()),
            Error::InvalidType);
}

TEST(PortableResize, BicubicMatchesTorch) {
  OwnedTensor x = fixedImage();
  struct Case {
    int64_t oh, ow;
    bool alignCorners;
    double scaleH, scaleW; // 0: not given
    std::vector<double> expected;
  };
  std::vector<Case> cases = {
      {2,
       3,
       false,
       0,
       0,
       {-0.713482, 0.01486203, 0.8441378, -0.5113335, 0.425476, -0.8582141,
        0.1042729, 0.5238038, 0.09102125, 0.3450262, -0.59433, -0.06456704}},
      {5,
       7,
       true,
       0,
       0,
       {-1.25,      -0.28125,    0.5,        0,          -0.5,
        0.28125,    1.25,        -0.3828125, -0.3835449, -0.265625,
        0.02661133, 0.3671875,   0.6140137,  0.7421875,  0.25,
        -0.4140625, -0.75,       0.125,      1,          0.6640625,
        0,          -0.234375,   -0.2351074, -0.1171875, 0.328125,
        0.515625,   -0.05395508, -0.7421875, -1,         -0.03125,
        0.75,       0.5078125,   -0.25,      -0.84375,   -1.25,
        0.5,        -0.1640625,  -0.5,       0.375,      1.25,
        0.9140625,  0.25,        -0.265625,  0.015625,   0.3671875,
        0.7319336,  0.7421875,   0.1484375,  -0.515625,  -0.75,
        0.21875,    1,           0.7578125,  0,          -0.59375,
        -1,         -0.1171875,  0.3171387,  0.515625,   -0.08911133,
        -0.7421875, -0.6726074,  -0.3671875, 0.75,       0.34375,
        -0.25,      -1.007812,   -1.25,      -0.46875,   0.5}},
      {4,
       8,
       false,
       1.5,
       2.0,
       {-1.589956,  -0.8860916, 0.2885844,   0.4676921,  -0.4893935,
        -0.3102858, 0.8643902,  1.568255,    -0.3951721, -0.3785095,
        -0.3589172, -0.1230774, 0.188385,    0.5188904,  0.6794739,
        0.7817383,  0.2898297,  -0.04645806, -0.6201228, -0.3275508,
        0.6906331,  0.838285,   0.04878204,  -0.4185504, -0.9324694,
        -0.4787091, 0.2755795,  0.5614377,   0.2382405,  -0.3407469,
        -0.8745263, -1.202807,  0.7391528,   0.2579448,  -0.5593094,
        -0.2751296, 0.969859,   1.341692,    0.6549853,  0.2530383,
        -0.3323669, -0.135437,  0.1842651,   0.5631104,  0.8121338,
        0.4967651,  -0.2174683, -0.6482849,  -0.8113504, -0.238531,
        0.7203063,  0.859566,   0.1126248,   -0.5556943, -0.7996339,
        -0.9570719, 0.5718284,  0.4235286,   0.1922708,  -0.388395,
        -1.017471,  -0.8957415, -0.08087938, 0.4059652}},
  };
  for (const Case &c : cases) {
    OwnedTensor out(ScalarType::Float32, {1, 2, c.oh, c.ow});
    Attributes a;
    a.ints("output_size", {c.oh, c.ow}).b("align_corners", c.alignCorners);
    if (c.scaleH)
      a.d("scales_h", c.scaleH).d("scales_w", c.scaleW);
    ASSERT_EQ(runKernel("edge.upsample_bicubic2d", {&x.view}, {&out.view}, a),
              Error::Ok);
    expectClose(out, c.expected, 1e-5, 2e-6);
  }
}

TEST(PortableResize, BicubicToTheSameSizeCopies) {
  OwnedTensor x = randomFloat({2, 3, 5, 6});
  OwnedTensor out(ScalarType::Float32, {2, 3, 5, 6});
  Attributes a;
  a.ints("output_size", {5, 6}).b("align_corners", false);
  ASSERT_EQ(runKernel("edge.upsample_bicubic2d", {&x.view}, {&out.view}, a),
            Error::Ok);
  EXPECT_EQ(std::memcmp(out.f(), x.f(), x.view.nbytes()), 0);
}

} // namespace
