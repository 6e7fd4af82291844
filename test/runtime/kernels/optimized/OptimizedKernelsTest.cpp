// The optimized kernels against their portable twins: the GEMM with every
// micro-kernel this CPU runs, at shapes around the tile and block edges;
// linear at every input rank, mm, bmm, addmm's broadcasts (float sums in
// another order: relative error within 1e-5 of the output's scale); gelu
// and the exp-based activations (sigmoid, silu, gelu's tanh form) within
// torch's float32 tolerance, infinities and NaN as the portable kernels give
// them; permute bytewise; layer_norm and softmax
// (with masked and NaN rows) against the portable arithmetic; upsampling
// bytewise. Convolutions: ConvolutionKernelsTest.cpp.
#include "OptimizedTestSupport.h"

#include "runtime/kernels/optimized/Gemm.h"
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/Transpose.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace etch::runtime::testing {
namespace {

using optimized::gemmAccumulateWith;
using optimized::transposeBatched;
using optimized::transposeBatchedWith;

struct GemmCase {
  int64_t m, n, k;
  bool transposed;
};

void checkGemm(const char *isa, const GemmCase &g) {
  OwnedTensor a = randomFloat({g.m, g.k});
  OwnedTensor b =
      g.transposed ? randomFloat({g.n, g.k}) : randomFloat({g.k, g.n});
  OwnedTensor c = randomFloat({g.m, g.n});
  std::vector<double> expected(c.f(), c.f() + c.numel());
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j)
      for (int64_t p = 0; p < g.k; ++p)
        expected[i * g.n + j] +=
            double(a.f()[i * g.k + p]) *
            (g.transposed ? b.f()[j * g.k + p] : b.f()[p * g.n + j]);
  if (!gemmAccumulateWith(isa, {g.m, g.n, g.k}, {a.f(), g.k},
                          {b.f(), g.transposed ? g.k : g.n}, g.transposed,
                          c.f(), g.n))
    GTEST_SKIP() << "this CPU has no " << isa;
  EXPECT_LT(relativeError(c.f(), expected), 1e-5)
      << isa << " m=" << g.m << " n=" << g.n << " k=" << g.k;
}

class GemmIsaTest : public ::testing::TestWithParam<const char *> {};

TEST_P(GemmIsaTest, MatchesADoubleReferenceAtEveryEdge) {
  // Tiles are up to 8 x 32 and K blocks 256: sizes below, at and past them.
  for (GemmCase g : {GemmCase{1, 1, 1, false},
                     {3, 5, 7, true},
                     {6, 16, 16, false},
                     {8, 32, 256, true},
                     {9, 33, 257, false},
                     {17, 70, 300, true},
                     {64, 100, 513, false},
                     {1, 1000, 96, true},
                     {200, 3, 40, false}})
    checkGemm(GetParam(), g);
}

INSTANTIATE_TEST_SUITE_P(Optimized, GemmIsaTest,
                         ::testing::Values("avx512", "avx2", "scalar"));

TEST(OptimizedKernels, LinearAtEveryInputRank) {
  OwnedTensor weight = randomFloat({24, 40});
  OwnedTensor bias = randomFloat({24});
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{40}, {3, 40}, {2, 5, 40}, {1, 7, 7, 40}}) {
    OwnedTensor x = randomFloat(shape);
    std::vector<int64_t> out = shape;
    out.back() = 24;
    checkAgainstPortable("edge.linear", {&x.view, &weight.view, &bias.view},
                         out);
    checkAgainstPortable("edge.linear", {&x.view, &weight.view}, out);
  }
}

TEST(OptimizedKernels, MmAndBmm) {
  OwnedTensor a = randomFloat({13, 37}), b = randomFloat({37, 21});
  checkAgainstPortable("edge.mm", {&a.view, &b.view}, {13, 21});
  OwnedTensor x = randomFloat({3, 9, 50}), y = randomFloat({3, 50, 33});
  checkAgainstPortable("edge.bmm", {&x.view, &y.view}, {3, 9, 33});
}

TEST(OptimizedKernels, Float64ProductsRunThePortableLoops) {
  // The registry's mm and bmm hand float64 to the portable kernels.
  OwnedTensor a(ScalarType::Float64, {2, 3, 4}),
      b(ScalarType::Float64, {2, 4, 5});
  for (int64_t i = 0; i < a.numel(); ++i)
    a.view.data<double>()[i] = 0.5 * i - 3;
  for (int64_t i = 0; i < b.numel(); ++i)
    b.view.data<double>()[i] = 1.0 / (i + 1);
  OwnedTensor fast(ScalarType::Float64, {2, 3, 5}),
      reference(ScalarType::Float64, {2, 3, 5});
  ASSERT_EQ(runRegisteredKernel("edge.bmm", {&a.view, &b.view}, {&fast.view}),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.bmm", {&a.view, &b.view}, {&reference.view}),
            Error::Ok);
  for (int64_t i = 0; i < fast.numel(); ++i)
    EXPECT_EQ(fast.view.data<double>()[i], reference.view.data<double>()[i]);
  OwnedTensor m(ScalarType::Float64, {3, 4}), n(ScalarType::Float64, {4, 5}),
      mFast(ScalarType::Float64, {3, 5}),
      mReference(ScalarType::Float64, {3, 5});
  std::copy(a.view.data<double>(), a.view.data<double>() + 12,
            m.view.data<double>());
  std::copy(b.view.data<double>(), b.view.data<double>() + 20,
            n.view.data<double>());
  ASSERT_EQ(runRegisteredKernel("edge.mm", {&m.view, &n.view}, {&mFast.view}),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.mm", {&m.view, &n.view}, {&mReference.view}),
            Error::Ok);
  for (int64_t i = 0; i < mFast.numel(); ++i)
    EXPECT_EQ(mFast.view.data<double>()[i], mReference.view.data<double>()[i]);
}

TEST(OptimizedKernels, AddmmBroadcastsSelfAndScales) {
  OwnedTensor a = randomFloat({10, 20}), b = randomFloat({20, 30});
  for (std::vector<int64_t> selfShape :
       {std::vector<int64_t>{}, {30}, {1, 30}, {10, 1}, {10, 30}}) {
    OwnedTensor self = randomFloat(selfShape);
    checkAgainstPortable("edge.addmm", {&self.view, &a.view, &b.view},
                         {10, 30});
    Attributes scaled;
    scaled.d("beta", 0.5).d("alpha", 2.0);
    checkAgainstPortable("edge.addmm", {&self.view, &a.view, &b.view}, {10, 30},
                         scaled);
  }
}

TEST(OptimizedKernels, GeluWithinTorchsFloatTolerance) {
  // Lengths around the vector widths; values over erf's whole range.
  for (int64_t n : {1, 7, 8, 15, 16, 17, 1000}) {
    OwnedTensor x = randomFloat({n}, -6.0f, 6.0f);
    x.f()[0] = 0.0f;
    if (n > 2) {
      x.f()[1] = 40.0f;
      x.f()[2] = -40.0f;
    }
    OwnedTensor fast(ScalarType::Float32, {n}),
        reference(ScalarType::Float32, {n});
    ASSERT_EQ(runRegisteredKernel("edge.gelu", {&x.view}, {&fast.view}),
              Error::Ok);
    ASSERT_EQ(runKernel("edge.gelu", {&x.view}, {&reference.view}), Error::Ok);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(fast.f()[i], reference.f()[i],
                  1e-6 + 1.3e-6 * std::fabs(reference.f()[i]))
          << "gelu(" << x.f()[i] << ")";
  }
}

TEST(OptimizedKernels, SiluAtEveryLengthAroundItsSteps) {
  // Whole steps of 4 vectors (32 floats on AVX2, 64 on AVX-512), then what
  // is left through masked loads and stores: nothing read or written past
  // the end (a guard follows the output).
  for (int64_t n = 1; n <= 140; ++n) {
    OwnedTensor x = randomFloat({n}, -12.0f, 12.0f);
    OwnedTensor fast(ScalarType::Float32, {n + 1}),
        reference(ScalarType::Float32, {n});
    fast.f()[n] = -7.0f;
    TensorView head = fast.view;
    ASSERT_TRUE(head.resize(&n, 1));
    ASSERT_EQ(runRegisteredKernel("edge.silu", {&x.view}, {&head}), Error::Ok);
    ASSERT_EQ(runKernel("edge.silu", {&x.view}, {&reference.view}), Error::Ok);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(fast.f()[i], reference.f()[i],
                  1e-6 + 1.3e-6 * std::fabs(reference.f()[i]))
          << "silu(" << x.f()[i] << ") of " << n;
    ASSERT_EQ(fast.f()[n], -7.0f) << "written past " << n << " floats";
  }
}

TEST(OptimizedKernels, ExpActivationsWithinTorchsFloatTolerance) {
  OwnedTensor x = randomFloat({1003}, -20.0f, 20.0f);
  float special[] = {0.0f,   -0.0f, 100.0f,   -100.0f,   88.5f,
                     -88.5f, 1e-4f, INFINITY, -INFINITY, NAN};
  std::memcpy(x.f(), special, sizeof special);
  Attributes tanhForm;
  tanhForm.s("approximate", "tanh");
  for (const char *op : {"edge.sigmoid", "edge.silu", "edge.gelu"}) {
    Attributes attributes =
        std::strcmp(op, "edge.gelu") == 0 ? tanhForm : Attributes();
    OwnedTensor fast(ScalarType::Float32, {1003});
    OwnedTensor reference(ScalarType::Float32, {1003});
    ASSERT_EQ(runRegisteredKernel(op, {&x.view}, {&fast.view}, attributes),
              Error::Ok);
    ASSERT_EQ(runKernel(op, {&x.view}, {&reference.view}, attributes),
              Error::Ok);
    for (int64_t i = 0; i < 1003; ++i) {
      float want = reference.f()[i], got = fast.f()[i];
      if (std::isnan(want) || std::isinf(want)) {
        EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want)
            << op << "(" << x.f()[i] << ") = " << got << ", want " << want;
        continue;
      }
      ASSERT_NEAR(got, want, 1e-6 + 1.3e-6 * std::fabs(want))
          << op << "(" << x.f()[i] << ")";
    }
  }
}

/// \p op on a float tensor of \p shape: the registry's and the portable
/// kernel's outputs are bitwise equal.
void checkExactly(const char *op, std::vector<int64_t> shape,
                  std::vector<int64_t> outShape, const Attributes &attributes,
                  ScalarType type = ScalarType::Float32) {
  OwnedTensor x(type, shape);
  for (size_t i = 0; i < x.storage.size(); ++i)
    x.storage[i] = static_cast<uint8_t>(randomInt(0, 255));
  OwnedTensor fast(type, outShape), reference(type, outShape);
  ASSERT_EQ(runRegisteredKernel(op, {&x.view}, {&fast.view}, attributes),
            Error::Ok);
  ASSERT_EQ(runKernel(op, {&x.view}, {&reference.view}, attributes), Error::Ok);
  EXPECT_EQ(
      std::memcmp(fast.view.data(), reference.view.data(), fast.view.nbytes()),
      0)
      << op;
}

TEST(OptimizedKernels, PermuteMovesTheSameBytes) {
  struct Case {
    std::vector<int64_t> shape, dims, out;
  };
  for (const Case &c : std::vector<Case>{
           {{1, 5, 7, 9}, {0, 2, 3, 1}, {1, 7, 9, 5}}, // NCHW -> NHWC
           {{2, 7, 9, 5}, {0, 3, 1, 2}, {2, 5, 7, 9}}, // NHWC -> NCHW
           {{33, 17}, {1, 0}, {17, 33}},               // 2-D, tile edges
           {{2, 3, 4, 5}, {0, 2, 1, 3}, {2, 4, 3, 5}}, // inner run stays
           {{3, 1, 4, 1, 6}, {4, 1, 0, 3, 2}, {6, 1, 3, 1, 4}},
           {{4, 6}, {0, 1}, {4, 6}}}) { // identity
    Attributes dims;
    dims.ints("dims", c.dims);
    checkExactly("edge.permute", c.shape, c.out, dims);
  }
  Attributes dims;
  dims.ints("dims", {1, 0});
  checkExactly("edge.permute", {9, 20}, {20, 9}, dims, ScalarType::Int64);
  Attributes swap;
  swap.i("dim0", -1).i("dim1", -2);
  checkExactly("edge.transpose", {3, 10, 18}, {3, 18, 10}, swap);
}

class TransposeIsaTest : public ::testing::TestWithParam<const char *> {};

// Every path moves exactly the bytes of the naive loop, at sizes below, at
// and past the 8 x 8 register blocks and 16 x 16 tiles (ragged edges).
TEST_P(TransposeIsaTest, MatchesTheNaiveLoop) {
  const char *isa = GetParam();
  int ran = 0;
  for (size_t bytes : {1, 2, 4, 8})
    for (auto [batch, rows, cols] :
         std::vector<std::array<int64_t, 3>>{{1, 1, 1},
                                             {1, 8, 8},
                                             {2, 16, 16},
                                             {1, 96, 3136},
                                             {3, 17, 9},
                                             {1, 5, 41},
                                             {2, 40, 23}}) {
      size_t count = size_t(batch * rows * cols) * bytes;
      std::vector<uint8_t> in(count), out(count, 0xAB), expected(count);
      for (size_t i = 0; i < count; ++i)
        in[i] = uint8_t(i * 131 + i / 7);
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            std::memcpy(&expected[((b * cols + c) * rows + r) * bytes],
                        &in[((b * rows + r) * cols + c) * bytes], bytes);
      if (!transposeBatchedWith(isa, in.data(), out.data(), batch, rows, cols,
                                bytes))
        continue; // this path lacks the CPU feature or the element size
      ++ran;
      EXPECT_EQ(out, expected) << isa << " " << bytes << "-byte " << batch
                               << "x" << rows << "x" << cols;
    }
  if (ran == 0)
    GTEST_SKIP() << "this CPU has no " << isa;
  // The dispatching entry point takes every size.
  std::vector<uint32_t> in(6 * 10), out(60);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint32_t(i);
  ASSERT_TRUE(transposeBatched(in.data(), out.data(), 1, 6, 10, 4));
  EXPECT_EQ(out[1], 10u);
  EXPECT_FALSE(transposeBatched(in.data(), out.data(), 1, 6, 10, 3));
}

INSTANTIATE_TEST_SUITE_P(Optimized, TransposeIsaTest,
                         ::testing::Values("avx2", "scalar"));

TEST(OptimizedKernels, SliceMovesTheSameBytes) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim, start, end, step;
    std::vector<int64_t> out;
  };
  for (const Case &c : std::vector<Case>{
           {{1, 116, 7, 7}, 1, 0, 58, 1, {1, 58, 7, 7}}, // channel split
           {{1, 116, 7, 7}, 1, 58, 116, 1, {1, 58, 7, 7}},
           {{2, 3, 10}, -1, -4, 100, 1, {2, 3, 4}}, // negative, clamped
           {{5, 6}, 0, 1, 4, 1, {3, 6}},            // outermost dim
           {{4, 9, 3}, 1, 2, 9, 3, {4, 3, 3}},      // step 3: portable
           {{3, 4}, 1, 3, 1, 1, {3, 0}}}) {         // empty
    Attributes attributes;
    attributes.i("dim", c.dim)
        .i("start", c.start)
        .i("end", c.end)
        .i("step", c.step);
    checkExactly("edge.slice", c.shape, c.out, attributes);
    checkExactly("edge.slice", c.shape, c.out, attributes, ScalarType::Int64);
    checkExactly("edge.slice", c.shape, c.out, attributes, ScalarType::Int8);
  }
}

// A slice the memory plan put at its own bytes in the input (a contiguous
// run): both kernels leave it as it is (a copy onto itself would be a
// memcpy over overlapping bytes); a slice elsewhere is still copied.
TEST(OptimizedKernels, SliceAlreadyInPlaceIsNotCopied) {
  OwnedTensor x = randomFloat({1, 4, 16});
  std::vector<float> before(x.f(), x.f() + 64);
  Attributes attributes;
  attributes.i("dim", 1).i("start", 2).i("end", 4);
  int64_t sizes[] = {1, 2, 16};
  TensorView inPlace;
  inPlace.reset(ScalarType::Float32, sizes, 3);
  inPlace.setData(x.f() + 32);
  OwnedTensor copied(ScalarType::Float32, {1, 2, 16});
  for (auto run : {runKernel, runRegisteredKernel}) {
    ASSERT_EQ(run("edge.slice", {&x.view}, {&inPlace}, attributes), Error::Ok);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), x.f()));
    ASSERT_EQ(run("edge.slice", {&x.view}, {&copied.view}, attributes),
              Error::Ok);
    EXPECT_TRUE(std::equal(before.begin() + 32, before.end(), copied.f()));
  }
}

TEST(OptimizedKernels, LayerNormMatchesTheDoubleSums) {
  for (int64_t inner : {1, 15, 16, 64, 197, 768}) {
    OwnedTensor x = randomFloat({3, inner}, -4.0f, 6.0f);
    OwnedTensor weight = randomFloat({inner}), bias = randomFloat({inner});
    Attributes attributes;
    attributes.ints("normalized_shape", {inner}).d("eps", 1e-5);
    checkAgainstPortable("edge.layer_norm", {&x.view, &weight.view, &bias.view},
                         {3, inner}, attributes);
    checkAgainstPortable("edge.layer_norm", {&x.view, nullptr, nullptr},
                         {3, inner}, attributes);
  }
}

TEST(OptimizedKernels, ActivationsAndLayerNormSplitAcrossThreads) {
  // Runs of values (activations, 16K per task at least) and rows (layer
  // norm) on 3 threads, ragged last tasks: every byte as on one thread.
  PoolThreads threads(1);
  Attributes tanhForm, layerNorm;
  tanhForm.s("approximate", "tanh");
  layerNorm.ints("normalized_shape", {15}).d("eps", 1e-5);
  OwnedTensor x = randomFloat({50001}, -8.0f, 8.0f);
  OwnedTensor rows = randomFloat({3335, 15}, -4.0f, 6.0f);
  OwnedTensor weight = randomFloat({15}), bias = randomFloat({15});
  struct Case {
    const char *op;
    std::vector<TensorView *> inputs;
    const Attributes *attributes;
  };
  Attributes none;
  for (const Case &c : {Case{"edge.gelu", {&x.view}, &none},
                        Case{"edge.gelu", {&x.view}, &tanhForm},
                        Case{"edge.sigmoid", {&x.view}, &none},
                        Case{"edge.layer_norm",
                             {&rows.view, &weight.view, &bias.view},
                             &layerNorm}}) {
    const TensorView &in = *c.inputs[0];
    std::vector<int64_t> shape(in.sizes(), in.sizes() + in.rank());
    OwnedTensor one(ScalarType::Float32, shape),
        three(ScalarType::Float32, shape);
    threads.set(1);
    ASSERT_EQ(runRegisteredKernel(c.op, c.inputs, {&one.view}, *c.attributes),
              Error::Ok);
    threads.set(3);
    ASSERT_EQ(runRegisteredKernel(c.op, c.inputs, {&three.view}, *c.attributes),
              Error::Ok);
    EXPECT_EQ(std::memcmp(one.f(), three.f(), one.view.nbytes()), 0) << c.op;
  }
}

TEST(OptimizedKernels, SoftmaxOverTheLastDimAndElsewhere) {
  for (const char *op : {"edge.softmax", "edge.log_softmax"}) {
    for (int64_t n : {1, 5, 16, 17, 100, 1000}) {
      OwnedTensor x = randomFloat({3, n}, -30.0f, 30.0f);
      Attributes last;
      last.i("dim", -1);
      checkAgainstPortable(op, {&x.view}, {3, n}, last);
    }
    // Not the last dim: the portable kernel.
    OwnedTensor x = randomFloat({4, 6, 5});
    Attributes middle;
    middle.i("dim", 1);
    checkAgainstPortable(op, {&x.view}, {4, 6, 5}, middle);
  }
  // Masked (-inf) positions are exactly 0; a row of -inf or with a NaN is
  // NaN, as torch gives.
  OwnedTensor x(ScalarType::Float32, {3, 4});
  float values[] = {1,         -INFINITY, 2,         -INFINITY, //
                    -INFINITY, -INFINITY, -INFINITY, -INFINITY, //
                    0,         NAN,       1,         2};
  std::memcpy(x.f(), values, sizeof values);
  OwnedTensor y(ScalarType::Float32, {3, 4});
  Attributes last;
  last.i("dim", -1);
  ASSERT_EQ(runRegisteredKernel("edge.softmax", {&x.view}, {&y.view}, last),
            Error::Ok);
  EXPECT_EQ(y.f()[1], 0.0f);
  EXPECT_EQ(y.f()[3], 0.0f);
  EXPECT_NEAR(y.f()[0] + y.f()[2], 1.0f, 1e-6);
  for (int k = 4; k < 12; ++k)
    EXPECT_TRUE(std::isnan(y.f()[k])) << k;
}

/// Polls \p done for up to a second (threads sleep on their own time).
template <typename Fn> static bool eventually(Fn done) {
  for (int i = 0; i < 1000 && !done(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

TEST(ThreadPool, WorkersSleepAfterSpinningOrAtRestAndWakeForTheNextJob) {
  PoolThreads threads(3);
  optimized::ThreadPool &pool = PoolThreads::pool();
  std::vector<std::atomic<int>> hits(4096);
  auto cover = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      hits[i].fetch_add(1);
  };
  // Idle workers spin for the spin time, then sleep.
  pool.setSpinNanoseconds(1'000'000);
  pool.parallelFor(4096, 1, cover);
  EXPECT_TRUE(eventually([&] { return pool.sleepingWorkers() == 2; }));
  // A job wakes them; with a spin far beyond this test, rest() alone sends
  // them back to sleep.
  pool.setSpinNanoseconds(uint64_t(600) * 1'000'000'000);
  pool.parallelFor(4096, 1, cover);
  pool.rest();
  EXPECT_TRUE(eventually([&] { return pool.sleepingWorkers() == 2; }));
  pool.parallelFor(4096, 1, cover);
  for (const std::atomic<int> &hit : hits)
    ASSERT_EQ(hit.load(), 3);
  pool.setSpinNanoseconds(optimized::ThreadPool::kDefaultSpinNanoseconds);
  pool.rest();
}

TEST(OptimizedKernels, UpsampleMatchesPortableBytewise) {
  // Integer and fractional ratios, downsampling, a recorded scale, aligned
  // corners, and rows wider than the 256-column tile.
  struct Case {
    std::vector<int64_t> shape;
    int64_t oh, ow;
    double scaleH; // 0: none recorded
    bool alignCorners;
  };
  for (const Case &c : std::vector<Case>{{{1, 3, 5, 7}, 10, 14, 0, false},
                                         {{2, 2, 5, 7}, 8, 11, 0, true},
                                         {{1, 4, 8, 8}, 3, 5, 0, false},
                                         {{1, 2, 4, 6}, 10, 6, 2.5, false},
                                         {{1, 2, 3, 150}, 3, 301, 0, true},
                                         {{1, 1, 1, 1}, 4, 300, 0, false}}) {
    OwnedTensor x = randomFloat(c.shape);
    for (const char *op :
         {"edge.upsample_nearest2d", "edge.upsample_bilinear2d"}) {
      Attributes attributes;
      attributes.ints("output_size", {c.oh, c.ow});
      if (c.scaleH > 0)
        attributes.d("scales_h", c.scaleH);
      if (std::strcmp(op, "edge.upsample_bilinear2d") == 0)
        attributes.b("align_corners", c.alignCorners);
      std::vector<int64_t> out = {c.shape[0], c.shape[1], c.oh, c.ow};
      OwnedTensor fast(ScalarType::Float32, out),
          reference(ScalarType::Float32, out);
      ASSERT_EQ(runRegisteredKernel(op, {&x.view}, {&fast.view}, attributes),
                Error::Ok);
      ASSERT_EQ(runKernel(op, {&x.view}, {&reference.view}, attributes),
                Error::Ok);
      EXPECT_EQ(std::memcmp(fast.f(), reference.f(), fast.view.nbytes()), 0)
          << op << " to " << c.oh << "x" << c.ow;
    }
  }
  EXPECT_EQ(findKernel("edge.upsample_bilinear2d")->run,
            optimized::runUpsampleBilinear2d);
}

TEST(OptimizedKernels, RegistryPrefersThemAndKeepsEveryPortableOp) {
  EXPECT_EQ(registeredKernels().size(), portable::portableKernels().size());
  EXPECT_EQ(findKernel("edge.linear")->run, optimized::runLinear);
  EXPECT_EQ(findKernel("edge.linear")->validate,
            portable::findPortableKernel("edge.linear")->validate);
}

} // namespace
} // namespace etch::runtime::testing
