// topk and sort against std::stable_sort of (value, position) pairs, over
// every dim of a 3-D tensor, with ties and NaN; bad k and types.
#include "KernelTestSupport.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

/// Reference: the first \p keep positions of one lane, best first.
std::vector<int64_t> referenceLane(const std::vector<double> &lane,
                                   int64_t keep, bool largestFirst) {
  std::vector<int64_t> order(lane.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank = [&](int64_t i) { // NaN as the largest value
    return std::isnan(lane[i]) ? std::numeric_limits<double>::infinity()
                               : lane[i];
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    bool nanA = std::isnan(lane[a]), nanB = std::isnan(lane[b]);
    if (nanA != nanB)
      return largestFirst ? nanA : nanB;
    if (nanA)
      return false;
    return largestFirst ? rank(a) > rank(b) : rank(a) < rank(b);
  });
  order.resize(keep);
  return order;
}

/// Runs \p op on \p x along every dim and checks both outputs.
void checkAlongEveryDim(const OwnedTensor &x, const char *op, int64_t keep,
                        bool largestFirst) {
  const std::vector<int64_t> shape(x.view.sizes(),
                                   x.view.sizes() + x.view.rank());
  for (int64_t dim = 0; dim < x.view.rank(); ++dim) {
    SCOPED_TRACE(std::string(op) + " dim " + std::to_string(dim));
    int64_t k = keep < 0 ? shape[dim] : keep;
    std::vector<int64_t> outShape = shape;
    outShape[dim] = k;
    OwnedTensor values(ScalarType::Float32, outShape),
        indices(ScalarType::Int64, outShape);
    Attributes attributes;
    attributes.i("dim", dim - x.view.rank()); // negative dims too
    if (keep >= 0)
      attributes.i("k", k).b("largest", largestFirst);
    else
      attributes.b("descending", largestFirst);
    ASSERT_EQ(runKernel(op, {const_cast<TensorView *>(&x.view)},
                        {&values.view, &indices.view}, attributes),
              Error::Ok);
    int64_t inner = 1, outer = 1;
    for (int64_t d = 0; d < dim; ++d)
      outer *= shape[d];
    for (int64_t d = dim + 1; d < x.view.rank(); ++d)
      inner *= shape[d];
    const float *in = x.view.data<float>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<double> lane;
        for (int64_t j = 0; j < shape[dim]; ++j)
          lane.push_back(in[(o * shape[dim] + j) * inner + i]);
        std::vector<int64_t> expected = referenceLane(lane, k, largestFirst);
        for (int64_t j = 0; j < k; ++j) {
          int64_t at = (o * k + j) * inner + i;
          EXPECT_EQ(indices.i64()[at], expected[j])
              << o << "," << i << "," << j;
          float got = values.f()[at], want = float(lane[expected[j]]);
          EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)));
        }
      }
  }
}

OwnedTensor withTiesAndNaN() {
  // Few distinct values, so many ties; two NaNs.
  OwnedTensor x(ScalarType::Float32, {3, 7, 5});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.f()[i] = static_cast<float>(randomInt(-3, 3));
  x.f()[4] = x.f()[40] = std::numeric_limits<float>::quiet_NaN();
  return x;
}

TEST(PortableSorting, TopkLargestAndSmallest) {
  OwnedTensor x = withTiesAndNaN();
  for (int64_t k : {0, 1, 3})
    for (bool largest : {true, false})
      checkAlongEveryDim(x, "edge.topk", k, largest);
  OwnedTensor smooth = randomFloat({4, 9, 6});
  checkAlongEveryDim(smooth, "edge.topk", 4, true);
}

TEST(PortableSorting, SortAscendingAndDescending) {
  OwnedTensor x = withTiesAndNaN();
  checkAlongEveryDim(x, "edge.sort", -1, false);
  checkAlongEveryDim(x, "edge.sort", -1, true);
}

TEST(PortableSorting, IntegerTopk) {
  OwnedTensor x(ScalarType::Int64, {6}), values(ScalarType::Int64, {3}),
      indices(ScalarType::Int64, {3});
  int64_t data[] = {5, -2, 9, 5, INT64_MIN, 9};
  std::memcpy(x.i64(), data, sizeof(data));
  Attributes attributes;
  attributes.i("k", 3);
  ASSERT_EQ(runKernel("edge.topk", {&x.view}, {&values.view, &indices.view},
                      attributes),
            Error::Ok);
  int64_t wantValues[] = {9, 9, 5}, wantIndices[] = {2, 5, 0};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(values.i64()[i], wantValues[i]);
    EXPECT_EQ(indices.i64()[i], wantIndices[i]);
  }
}

TEST(PortableSorting, UniqueSortedAndInFirstOccurrenceOrder) {
  // Planned for every element distinct; the run keeps what it found.
  OwnedTensor x(ScalarType::Int64, {2, 4});
  int64_t data[] = {5, -1, 5, 3, -1, 5, 7, 3};
  std::memcpy(x.i64(), data, sizeof(data));
  struct Case {
    bool sorted;
    std::vector<int64_t> values, first, inverse, counts;
  } cases[] = {
      {true,
       {-1, 3, 5, 7},
       {1, 3, 0, 6},
       {2, 0, 2, 1, 0, 2, 3, 1},
       {2, 2, 3, 1}},
      {false,
       {5, -1, 3, 7},
       {0, 1, 3, 6},
       {0, 1, 0, 2, 1, 0, 3, 2},
       {3, 2, 2, 1}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.sorted ? "sorted" : "first occurrence");
    OwnedTensor values(ScalarType::Int64, {8}), first(ScalarType::Int64, {8}),
        inverse(ScalarType::Int64, {8}), counts(ScalarType::Int64, {8});
    Attributes attributes;
    attributes.b("sorted", c.sorted);
    ASSERT_EQ(
        runKernel("edge.unique", {&x.view},
                  {&values.view, &first.view, &inverse.view, &counts.view},
                  attributes),
        Error::Ok);
    auto contents = [](OwnedTensor &t) {
      return std::vector<int64_t>(t.i64(), t.i64() + t.numel());
    };
    EXPECT_EQ(contents(values), c.values);
    EXPECT_EQ(contents(first), c.first);
    EXPECT_EQ(contents(inverse), c.inverse);
    EXPECT_EQ(contents(counts), c.counts);
  }
  OwnedTensor small(ScalarType::Int64, {7}), rest(ScalarType::Int64, {8});
  EXPECT_EQ(runKernel("edge.unique", {&x.view},
                      {&small.view, &rest.view, &rest.view, &rest.view}),
            Error::InvalidShape);
}

TEST(PortableSorting, UniqueConsecutiveMergesRunsOnly) {
  // unique_consecutive: 1 comes back after 3 as a new entry; NaNs never
  // merge (as torch's NaN != NaN).
  OwnedTensor x(ScalarType::Float32, {10}), values(ScalarType::Float32, {10}),
      first(ScalarType::Int64, {10}), inverse(ScalarType::Int64, {10}),
      counts(ScalarType::Int64, {10});
  float nan = std::numeric_limits<float>::quiet_NaN();
  float data[] = {1, 1, 2, 2, 2, 3, 1, 1, nan, nan};
  std::copy(data, data + 10, x.f());
  Attributes attributes;
  attributes.b("sorted", false).b("consecutive", true);
  ASSERT_EQ(runKernel("edge.unique", {&x.view},
                      {&values.view, &first.view, &inverse.view, &counts.view},
                      attributes),
            Error::Ok);
  ASSERT_EQ(values.view.size(0), 6);
  EXPECT_EQ(std::vector<float>(values.f(), values.f() + 4),
            (std::vector<float>{1, 2, 3, 1}));
  EXPECT_TRUE(std::isnan(values.f()[4]) && std::isnan(values.f()[5]));
  EXPECT_EQ(std::vector<int64_t>(first.i64(), first.i64() + 6),
            (std::vector<int64_t>{0, 2, 5, 6, 8, 9}));
  EXPECT_EQ(std::vector<int64_t>(inverse.i64(), inverse.i64() + 10),
            (std::vector<int64_t>{0, 0, 1, 1, 1, 2, 3, 3, 4, 5}));
  EXPECT_EQ(std::vector<int64_t>(counts.i64(), counts.i64() + 6),
            (std::vector<int64_t>{2, 3, 1, 2, 1, 1}));

  // Rows {1,2} {1,2} {0,5} {1,2} along dim 0: the last row is a new run.
  OwnedTensor rows(ScalarType::Int64, {4, 2}),
      rowValues(ScalarType::Int64, {4, 2}), rowFirst(ScalarType::Int64, {4}),
      rowInverse(ScalarType::Int64, {4}), rowCounts(ScalarType::Int64, {4});
  int64_t table[] = {1, 2, 1, 2, 0, 5, 1, 2};
  std::copy(table, table + 8, rows.i64());
  Attributes byRow;
  byRow.i("dim", 0).b("sorted", false).b("consecutive", true);
  ASSERT_EQ(runKernel("edge.unique_dim", {&rows.view},
                      {&rowValues.view, &rowFirst.view, &rowInverse.view,
                       &rowCounts.view},
                      byRow),
            Error::Ok);
  ASSERT_EQ(rowValues.view.size(0), 3);
  EXPECT_EQ(std::vector<int64_t>(rowValues.i64(), rowValues.i64() + 6),
            (std::vector<int64_t>{1, 2, 0, 5, 1, 2}));
  EXPECT_EQ(std::vector<int64_t>(rowInverse.i64(), rowInverse.i64() + 4),
            (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(std::vector<int64_t>(rowCounts.i64(), rowCounts.i64() + 3),
            (std::vector<int64_t>{2, 1, 1}));
}

TEST(PortableSorting, RejectsBadKAndTypes) {
  OwnedTensor x = randomFloat({2, 4}), values(ScalarType::Float32, {2, 5}),
              indices(ScalarType::Int64, {2, 5});
  Attributes tooMany;
  tooMany.i("k", 5);
  EXPECT_EQ(
      runKernel("edge.topk", {&x.view}, {&values.view, &indices.view}, tooMany),
      Error::InvalidShape);
  OwnedTensor flags(ScalarType::Bool, {4}), flagValues(ScalarType::Bool, {4}),
      flagIndices(ScalarType::Int64, {4});
  EXPECT_EQ(runKernel("edge.sort", {&flags.view},
                      {&flagValues.view, &flagIndices.view}),
            Error::NotSupported);
  OwnedTensor wrongIndices(ScalarType::Int32, {2, 4}),
      sortedValues(ScalarType::Float32, {2, 4});
  EXPECT_EQ(runKernel("edge.sort", {&x.view},
                      {&sortedValues.view, &wrongIndices.view}),
            Error::InvalidType);
}

} // namespace

TEST(PortableSorting, UniqueRowsSortedAndInFirstOccurrenceOrder) {
  // Rows {2,1} {0,5} {2,1} {0,3} {0,5} along dim 0.
  for (bool sorted : {true, false}) {
    OwnedTensor x(ScalarType::Int64, {5, 2}), values(ScalarType::Int64, {5, 2}),
        first(ScalarType::Int64, {5}), inverse(ScalarType::Int64, {5}),
        counts(ScalarType::Int64, {5});
    int64_t rows[] = {2, 1, 0, 5, 2, 1, 0, 3, 0, 5};
    std::copy(rows, rows + 10, x.i64());
    Attributes attributes;
    attributes.i("dim", 0).b("sorted", sorted);
    ASSERT_EQ(
        runKernel("edge.unique_dim", {&x.view},
                  {&values.view, &first.view, &inverse.view, &counts.view},
                  attributes),
        Error::Ok);
    ASSERT_EQ(values.view.size(0), 3);
    ASSERT_EQ(first.view.size(0), 3);
    std::vector<int64_t> gotValues(values.i64(), values.i64() + 6),
        gotFirst(first.i64(), first.i64() + 3),
        gotInverse(inverse.i64(), inverse.i64() + 5),
        gotCounts(counts.i64(), counts.i64() + 3);
    if (sorted) {
      EXPECT_EQ(gotValues, (std::vector<int64_t>{0, 3, 0, 5, 2, 1}));
      EXPECT_EQ(gotFirst, (std::vector<int64_t>{3, 1, 0}));
      EXPECT_EQ(gotInverse, (std::vector<int64_t>{2, 1, 2, 0, 1}));
      EXPECT_EQ(gotCounts, (std::vector<int64_t>{1, 2, 2}));
    } else {
      EXPECT_EQ(gotValues, (std::vector<int64_t>{2, 1, 0, 5, 0, 3}));
      EXPECT_EQ(gotFirst, (std::vector<int64_t>{0, 1, 3}));
      EXPECT_EQ(gotInverse, (std::vector<int64_t>{0, 1, 0, 2, 1}));
      EXPECT_EQ(gotCounts, (std::vector<int64_t>{2, 2, 1}));
    }
  }
  // Columns of a [2, 3] float tensor: dim 1 compares down each column.
  OwnedTensor y(ScalarType::Float32, {2, 3}),
      yValues(ScalarType::Float32, {2, 3}), yFirst(ScalarType::Int64, {3}),
      yInverse(ScalarType::Int64, {3}), yCounts(ScalarType::Int64, {3});
  float columns[] = {1, 0, 1, 4, 9, 4}; // columns {1,4} {0,9} {1,4}
  std::copy(columns, columns + 6, y.f());
  Attributes byColumn;
  byColumn.i("dim", -1);
  ASSERT_EQ(
      runKernel("edge.unique_dim", {&y.view},
                {&yValues.view, &yFirst.view, &yInverse.view, &yCounts.view},
                byColumn),
      Error::Ok);
  ASSERT_EQ(yValues.view.size(1), 2);
  float expected[] = {0, 1, 9, 4};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(yValues.f()[i], expected[i]) << i;
}
