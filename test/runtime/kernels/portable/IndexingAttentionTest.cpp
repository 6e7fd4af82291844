// Numeric tests of the indexing, logical, truth-reduction, cumsum and
// attention kernels against plain double references.
#include "KernelTestSupport.h"

#include <limits>

namespace etch::runtime::testing {
namespace {

uint8_t *boolData(OwnedTensor &t) { return t.view.data<uint8_t>(); }

OwnedTensor ints(std::vector<int64_t> sizes, std::vector<int64_t> values) {
  OwnedTensor t(ScalarType::Int64, std::move(sizes));
  std::memcpy(t.i64(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

TEST(PortableIndexing, GatherAlongEachDim) {
  OwnedTensor x = randomFloat({3, 4});
  OwnedTensor index = ints({3, 2}, {3, 0, 1, 1, -1, 2});
  OwnedTensor out(ScalarType::Float32, {3, 2});
  ASSERT_EQ(runKernel("edge.gather", {&x.view, &index.view}, {&out.view},
                      Attributes().i("dim", 1)),
            Error::Ok);
  int64_t picks[] = {3, 0, 1, 1, 3, 2};
  std::vector<double> expected;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c)
      expected.push_back(x.f()[r * 4 + picks[r * 2 + c]]);
  expectClose(out, expected, 0, 0);
  // dim 0, and an out-of-range index gives 0 without reading outside.
  OwnedTensor rows = ints({1, 4}, {2, 0, 7, 1});
  OwnedTensor out0(ScalarType::Float32, {1, 4});
  ASSERT_EQ(runKernel("edge.gather", {&x.view, &rows.view}, {&out0.view},
                      Attributes().i("dim", 0)),
            Error::Ok);
  expectClose(out0, {x.f()[2 * 4 + 0], x.f()[0 * 4 + 1], 0.0, x.f()[1 * 4 + 3]},
              0, 0);
  // An index larger than self outside dim is a load error.
  OwnedTensor wide = ints({3, 5}, std::vector<int64_t>(15, 0));
  OwnedTensor out1(ScalarType::Float32, {3, 5});
  EXPECT_EQ(runKernel("edge.gather", {&x.view, &wide.view}, {&out1.view},
                      Attributes().i("dim", 0)),
            Error::InvalidShape);
}

TEST(PortableIndexing, IndexSelectMiddleDim) {
  OwnedTensor x = randomFloat({2, 3, 4});
  OwnedTensor index = ints({4}, {2, 0, -1, 5});
  OwnedTensor out(ScalarType::Float32, {2, 4, 4});
  ASSERT_EQ(runKernel("edge.index_select", {&x.view, &index.view}, {&out.view},
                      Attributes().i("dim", 1)),
            Error::Ok);
  std::vector<double> expected;
  int64_t picks[] = {2, 0, 2, -1};
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 4; ++c)
        expected.push_back(picks[k] < 0 ? 0.0
                                        : x.f()[(a * 3 + picks[k]) * 4 + c]);
  expectClose(out, expected, 0, 0);
}

TEST(PortableIndexing, AdvancedIndexAdjacentAndSplit) {
  OwnedTensor x = randomFloat({3, 4, 5});
  // Adjacent dims 1, 2 with indices broadcasting [2,1] x [3] -> [2,3]:
  // result [3, 2, 3].
  OwnedTensor i1 = ints({2, 1}, {0, 3}), i2 = ints({3}, {4, 1, -1});
  OwnedTensor out(ScalarType::Float32, {3, 2, 3});
  ASSERT_EQ(runKernel("edge.index", {&x.view, &i1.view, &i2.view}, {&out.view},
                      Attributes().ints("indexed_dims", {1, 2})),
            Error::Ok);
  std::vector<double> expected;
  int64_t cols[] = {4, 1, 4};
  for (int a = 0; a < 3; ++a)
    for (int p = 0; p < 2; ++p)
      for (int q = 0; q < 3; ++q)
        expected.push_back(x.f()[(a * 4 + (p ? 3 : 0)) * 5 + cols[q]]);
  expectClose(out, expected, 0, 0);
  // Split dims 0 and 2: the broadcast shape [2] comes first, then dim 1.
  OwnedTensor j0 = ints({2}, {2, 0}), j2 = ints({2}, {1, 3});
  OwnedTensor split(ScalarType::Float32, {2, 4});
  ASSERT_EQ(runKernel("edge.index", {&x.view, &j0.view, &j2.view},
                      {&split.view},
                      Attributes().ints("indexed_dims", {0, 2})),
            Error::Ok);
  std::vector<double> expectedSplit;
  for (int k = 0; k < 2; ++k)
    for (int b = 0; b < 4; ++b)
      expectedSplit.push_back(
          x.f()[((k ? 0 : 2) * 4 + b) * 5 + (k ? 3 : 1)]);
  expectClose(split, expectedSplit, 0, 0);
}

TEST(PortableIndexing, ScatterEveryReduceAlongEachDim) {
  // Reference: the same loop in double, with duplicate, negative and
  // out-of-range indices (which write nothing).
  const char *reduces[] = {"none", "add", "multiply", "amax", "amin"};
  for (int64_t dim = 0; dim < 3; ++dim)
    for (const char *reduce : reduces) {
      SCOPED_TRACE(std::string(reduce) + " dim " + std::to_string(dim));
      OwnedTensor self = randomFloat({3, 4, 5}), src = randomFloat({3, 4, 5});
      std::vector<int64_t> indexShape = {2, 3, 4};
      OwnedTensor index(ScalarType::Int64, indexShape),
          out(ScalarType::Float32, {3, 4, 5});
      int64_t extent = self.view.size(dim);
      for (int64_t i = 0; i < index.numel(); ++i)
        index.i64()[i] = randomInt(-extent - 1, extent); // some out of range
      Attributes attributes;
      attributes.i("dim", dim).s("reduce", reduce);
      ASSERT_EQ(runKernel("edge.scatter", {&self.view, &index.view, &src.view},
                          {&out.view}, attributes),
                Error::Ok);
      std::vector<double> expected(self.f(), self.f() + self.numel());
      for (int64_t i = 0; i < index.numel(); ++i) {
        int64_t p[3] = {i / 12, i / 4 % 3, i % 4};
        int64_t target =
            index.i64()[i] < 0 ? index.i64()[i] + extent : index.i64()[i];
        if (target < 0 || target >= extent)
          continue;
        int64_t q[3] = {p[0], p[1], p[2]};
        q[dim] = target;
        double &slot = expected[(q[0] * 4 + q[1]) * 5 + q[2]];
        double value = src.f()[(p[0] * 4 + p[1]) * 5 + p[2]];
        std::string r = reduce;
        slot = r == "none"       ? value
               : r == "add"      ? float(slot + value)
               : r == "multiply" ? float(slot * value)
               : r == "amax"     ? std::max(slot, value)
                                 : std::min(slot, value);
      }
      expectClose(out, expected, 1e-6, 1e-6);
    }
  OwnedTensor self = randomFloat({2, 2}), src = randomFloat({2, 2}),
              index(ScalarType::Int64, {2, 3}),
              out(ScalarType::Float32, {2, 2});
  Attributes attributes;
  attributes.i("dim", 0);
  EXPECT_EQ(runKernel("edge.scatter", {&self.view, &index.view, &src.view},
                      {&out.view}, attributes),
            Error::InvalidShape);
  attributes.s("reduce", "mean");
  OwnedTensor smallIndex(ScalarType::Int64, {1, 1});
  EXPECT_EQ(runKernel("edge.scatter", {&self.view, &smallIndex.view, &src.view},
                      {&out.view}, attributes),
            Error::InvalidProgram);
}

TEST(PortableIndexing, GridSamplerModesAndPadding) {
  // A 5x5 ramp, value = 10 y + x, sampled at pixel centres (align_corners:
  // -1 and 1 are the corner pixels), between them and outside.
  OwnedTensor input(ScalarType::Float32, {1, 1, 5, 5});
  for (int64_t i = 0; i < 25; ++i)
    input.f()[i] = float(10 * (i / 5) + i % 5);
  auto normalized = [](double pixel, int64_t size) {
    return float(2 * pixel / (size - 1) - 1);
  };
  struct Case {
    double x, y;       // pixel coordinates
    int mode, padding; // interpolation_mode, padding_mode
    double expected;
  } cases[] = {
      {2, 1, 0, 0, 12},       {2, 1, 1, 0, 12}, {2, 1, 2, 0, 12},
      {1.5, 0.5, 0, 0, 6.5},  // bilinear of a ramp is the ramp
      {1.4, 0.6, 1, 0, 11},   // nearest: (1, 1)
      {1.5, 1.5, 2, 1, 16.5}, // bicubic reproduces a linear ramp inside
      {7, 1, 0, 0, 0},        // zeros outside
      {7, 1, 0, 1, 14},       // border: x clipped to 4
      {5, 1, 0, 2, 13},       // reflection: x = 5 reflects to 3
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.x) + "," + std::to_string(c.y) + " mode " +
                 std::to_string(c.mode) + " padding " +
                 std::to_string(c.padding));
    OwnedTensor grid(ScalarType::Float32, {1, 1, 1, 2}),
        out(ScalarType::Float32, {1, 1, 1, 1});
    grid.f()[0] = normalized(c.x, 5);
    grid.f()[1] = normalized(c.y, 5);
    Attributes attributes;
    attributes.i("interpolation_mode", c.mode)
        .i("padding_mode", c.padding)
        .b("align_corners", true);
    ASSERT_EQ(runKernel("edge.grid_sampler_2d", {&input.view, &grid.view},
                        {&out.view}, attributes),
              Error::Ok);
    EXPECT_NEAR(out.f()[0], c.expected, 1e-4);
  }
  OwnedTensor badGrid(ScalarType::Float32, {1, 1, 1, 3}),
      out(ScalarType::Float32, {1, 1, 1, 1});
  EXPECT_EQ(runKernel("edge.grid_sampler_2d", {&input.view, &badGrid.view},
                      {&out.view}),
            Error::InvalidShape);
}

TEST(PortableIndexing, NonzeroSetsItsRowCount) {
  // Planned for every element; the run keeps the rows it found, row-major,
  // NaN counting as nonzero.
  OwnedTensor x = randomFloat({3, 4, 2}), out(ScalarType::Int64, {24, 3});
  for (int64_t i = 0; i < x.numel(); i += 3)
    x.f()[i] = 0.0f;
  x.f()[1] = std::nanf("");
  ASSERT_EQ(runKernel("edge.nonzero", {&x.view}, {&out.view}), Error::Ok);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.f()[i] != 0.0f)
      expected.insert(expected.end(), {i / 8, i / 2 % 4, i % 2});
  ASSERT_EQ(out.view.size(0) * 3, static_cast<int64_t>(expected.size()));
  EXPECT_EQ(out.view.size(1), 3);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(out.i64()[i], expected[i]) << i;

  // Nothing nonzero: no rows. The plan's bound is checked at load.
  OwnedTensor zeros(ScalarType::Float32, {2, 2}),
      none(ScalarType::Int64, {4, 2});
  ASSERT_EQ(runKernel("edge.nonzero", {&zeros.view}, {&none.view}), Error::Ok);
  EXPECT_EQ(none.view.size(0), 0);
  OwnedTensor small(ScalarType::Int64, {3, 2});
  EXPECT_EQ(runKernel("edge.nonzero", {&zeros.view}, {&small.view}),
            Error::InvalidShape);
}

TEST(PortableIndexing, TriangleKeepsDiagonalBand) {
  OwnedTensor x = randomFloat({2, 3, 4});
  OwnedTensor upper(ScalarType::Float32, {2, 3, 4}),
      lower(ScalarType::Float32, {2, 3, 4});
  ASSERT_EQ(runKernel("edge.triu", {&x.view}, {&upper.view},
                      Attributes().i("diagonal", 1)),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.tril", {&x.view}, {&lower.view},
                      Attributes().i("diagonal", -1)),
            Error::Ok);
  std::vector<double> up, low;
  for (int m = 0; m < 2; ++m)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        double v = x.f()[(m * 3 + r) * 4 + c];
        up.push_back(c - r >= 1 ? v : 0.0);
        low.push_back(c - r <= -1 ? v : 0.0);
      }
  expectClose(upper, up, 0, 0);
  expectClose(lower, low, 0, 0);
}

TEST(PortableIndexing, CumsumFloatAndBool) {
  OwnedTensor x = randomFloat({2, 3});
  OwnedTensor out(ScalarType::Float32, {2, 3});
  ASSERT_EQ(runKernel("edge.cumsum", {&x.view}, {&out.view},
                      Attributes().i("dim", 0)),
            Error::Ok);
  std::vector<double> expected;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      expected.push_back(r ? x.f()[c] + x.f()[3 + c] : x.f()[c]);
  expectClose(out, expected);
  OwnedTensor mask(ScalarType::Bool, {5});
  uint8_t bits[] = {1, 0, 1, 1, 0};
  std::memcpy(boolData(mask), bits, 5);
  OwnedTensor counts(ScalarType::Int64, {5});
  ASSERT_EQ(runKernel("edge.cumsum", {&mask.view}, {&counts.view},
                      Attributes().i("dim", -1)),
            Error::Ok);
  int64_t expectedCounts[] = {1, 1, 2, 3, 3};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(counts.i64()[i], expectedCounts[i]);
  // Integers sum in int64: a bool input with a bool output is refused.
  OwnedTensor wrong(ScalarType::Bool, {5});
  EXPECT_EQ(runKernel("edge.cumsum", {&mask.view}, {&wrong.view},
                      Attributes().i("dim", 0)),
            Error::InvalidType);
}

TEST(PortableLogical, BinaryNotAndTruthReductions) {
  OwnedTensor a(ScalarType::Bool, {2, 3}), b = randomFloat({3});
  uint8_t bits[] = {1, 0, 1, 0, 0, 1};
  std::memcpy(boolData(a), bits, 6);
  b.f()[1] = 0; // a false float
  OwnedTensor both(ScalarType::Bool, {2, 3}), either(ScalarType::Bool, {2, 3}),
      differ(ScalarType::Bool, {2, 3}), negated(ScalarType::Bool, {3});
  ASSERT_EQ(runKernel("edge.logical_and", {&a.view, &b.view}, {&both.view}),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.logical_or", {&a.view, &b.view}, {&either.view}),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.logical_xor", {&a.view, &b.view}, {&differ.view}),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.logical_not", {&b.view}, {&negated.view}),
            Error::Ok);
  for (int i = 0; i < 6; ++i) {
    bool x = bits[i], y = b.f()[i % 3] != 0;
    EXPECT_EQ(boolData(both)[i], x && y) << i;
    EXPECT_EQ(boolData(either)[i], x || y) << i;
    EXPECT_EQ(boolData(differ)[i], x != y) << i;
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(boolData(negated)[i], b.f()[i] == 0) << i;
  OwnedTensor any(ScalarType::Bool, {3}), all(ScalarType::Bool, {2});
  ASSERT_EQ(runKernel("edge.any", {&a.view}, {&any.view},
                      Attributes().ints("dim", {0})),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.all", {&a.view}, {&all.view},
                      Attributes().ints("dim", {1})),
            Error::Ok);
  EXPECT_EQ(boolData(any)[0], 1);
  EXPECT_EQ(boolData(any)[1], 0);
  EXPECT_EQ(boolData(any)[2], 1);
  EXPECT_EQ(boolData(all)[0], 0);
  EXPECT_EQ(boolData(all)[1], 0);
}

/// softmax(q k^T * scale + mask) v with an explicit score matrix.
std::vector<double> attentionReference(const OwnedTensor &q,
                                       const OwnedTensor &k,
                                       const OwnedTensor &v, int64_t batch,
                                       int64_t heads, int64_t kvHeads,
                                       int64_t L, int64_t S, int64_t E,
                                       int64_t Ev, bool causal,
                                       const uint8_t *keep, double scale) {
  std::vector<double> out;
  const float *qd = q.view.data<float>(), *kd = k.view.data<float>(),
              *vd = v.view.data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      int64_t kh = h / (heads / kvHeads);
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> scores(S);
        double maximum = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < S; ++j) {
          bool allowed = (!causal || j <= i) && (!keep || keep[i * S + j]);
          double s = 0;
          for (int64_t e = 0; e < E; ++e)
            s += double(qd[((b * heads + h) * L + i) * E + e]) *
                 kd[((b * kvHeads + kh) * S + j) * E + e];
          scores[j] = allowed ? s * scale
                              : -std::numeric_limits<double>::infinity();
          maximum = std::max(maximum, scores[j]);
        }
        double total = 0;
        for (double &s : scores)
          total += s = std::isinf(s) ? 0 : std::exp(s - maximum);
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j)
            acc += scores[j] * vd[((b * kvHeads + kh) * S + j) * Ev + e];
          out.push_back(total > 0 ? acc / total : 0.0);
        }
      }
    }
  return out;
}

TEST(PortableAttention, MaskCausalAndGroupedHeads) {
  // Bool mask broadcast over batch and heads, one row fully masked.
  OwnedTensor q = randomFloat({2, 2, 4, 8}), k = randomFloat({2, 2, 5, 8}),
              v = randomFloat({2, 2, 5, 6});
  OwnedTensor mask(ScalarType::Bool, {4, 5});
  for (int i = 0; i < 20; ++i)
    boolData(mask)[i] = (i * 7) % 3 != 0;
  for (int j = 0; j < 5; ++j)
    boolData(mask)[2 * 5 + j] = 0;
  OwnedTensor out(ScalarType::Float32, {2, 2, 4, 6});
  ASSERT_EQ(runKernel("edge.scaled_dot_product_attention",
                      {&q.view, &k.view, &v.view, &mask.view}, {&out.view}),
            Error::Ok);
  expectClose(out, attentionReference(q, k, v, 2, 2, 2, 4, 5, 8, 6, false,
                                      boolData(mask), 1 / std::sqrt(8.0)));
  // Causal with an explicit scale.
  OwnedTensor kc = randomFloat({2, 2, 4, 8}), vc = randomFloat({2, 2, 4, 8});
  OwnedTensor causal(ScalarType::Float32, {2, 2, 4, 8});
  ASSERT_EQ(runKernel("edge.scaled_dot_product_attention",
                      {&q.view, &kc.view, &vc.view}, {&causal.view},
                      Attributes().b("is_causal", true).d("scale", 0.3)),
            Error::Ok);
  expectClose(causal, attentionReference(q, kc, vc, 2, 2, 2, 4, 4, 8, 8, true,
                                         nullptr, 0.3));
  // Four query heads share two key/value heads.
  OwnedTensor gq = randomFloat({1, 4, 3, 8}), gk = randomFloat({1, 2, 3, 8}),
              gv = randomFloat({1, 2, 3, 8});
  OwnedTensor grouped(ScalarType::Float32, {1, 4, 3, 8});
  ASSERT_EQ(runKernel("edge.scaled_dot_product_attention",
                      {&gq.view, &gk.view, &gv.view}, {&grouped.view},
                      Attributes().b("enable_gqa", true)),
            Error::Ok);
  expectClose(grouped, attentionReference(gq, gk, gv, 1, 4, 2, 3, 3, 8, 8,
                                          false, nullptr, 1 / std::sqrt(8.0)));
  // Without enable_gqa the same shapes are a load error.
  EXPECT_EQ(runKernel("edge.scaled_dot_product_attention",
                      {&gq.view, &gk.view, &gv.view}, {&grouped.view}),
            Error::InvalidShape);
}

TEST(PortableAttention, FloatMaskIsAdded) {
  OwnedTensor q = randomFloat({1, 3, 4}), k = randomFloat({1, 5, 4}),
              v = randomFloat({1, 5, 2});
  OwnedTensor mask = randomFloat({1, 3, 5});
  mask.f()[0] = -std::numeric_limits<float>::infinity();
  OwnedTensor out(ScalarType::Float32, {1, 3, 2});
  ASSERT_EQ(runKernel("edge.scaled_dot_product_attention",
                      {&q.view, &k.view, &v.view, &mask.view}, {&out.view}),
            Error::Ok);
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i) {
    std::vector<double> scores(5);
    double maximum = -INFINITY;
    for (int j = 0; j < 5; ++j) {
      double s = 0;
      for (int e = 0; e < 4; ++e)
        s += double(q.f()[i * 4 + e]) * k.f()[j * 4 + e];
      scores[j] = s / 2.0 + mask.f()[i * 5 + j];
      maximum = std::max(maximum, scores[j]);
    }
    double total = 0;
    for (double &s : scores)
      total += s = std::exp(s - maximum);
    for (int e = 0; e < 2; ++e) {
      double acc = 0;
      for (int j = 0; j < 5; ++j)
        acc += scores[j] * v.f()[j * 2 + e];
      expected.push_back(acc / total);
    }
  }
  expectClose(out, expected);
}

} // namespace
} // namespace etch::runtime::testing
