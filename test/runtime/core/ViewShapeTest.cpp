// The view rules both sides share (runtime/core/ViewShape.h): Python
// slicing's bounds, a step past the extent, the ways a dim list is not a
// permutation, and the dims squeeze drops and unsqueeze adds.
#include "runtime/core/ViewShape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

using namespace etch::runtime;

namespace {

int64_t sliceLength(int64_t extent, int64_t start, int64_t end, int64_t step) {
  return pythonSlice(extent, start, end, step).length;
}

TEST(ViewShape, SliceBoundsCountFromTheEndThenClamp) {
  EXPECT_EQ(sliceLength(10, 0, INT64_MAX, 1), 10);
  EXPECT_EQ(sliceLength(10, -7, INT64_MAX, 2), 4); // 3, 5, 7, 9
  EXPECT_EQ(sliceLength(10, 2, -3, 1), 5);         // 2 .. 6
  EXPECT_EQ(sliceLength(10, -20, 20, 3), 4);       // clamped to 0 .. 10
  EXPECT_EQ(sliceLength(10, 8, 2, 1), 0);          // empty
  EXPECT_EQ(sliceLength(0, 0, INT64_MAX, 1), 0);
  SliceRange range = pythonSlice(10, -3, INT64_MAX, 1);
  EXPECT_EQ(range.start, 7);
  EXPECT_EQ(range.length, 3);
}

TEST(ViewShape, AStepPastTheExtentTakesOneElement) {
  SliceRange range = pythonSlice(8, 1, INT64_MAX, INT64_MAX);
  EXPECT_EQ(range.start, 1);
  EXPECT_EQ(range.length, 1);
  EXPECT_EQ(range.step, 8); // clamped: step * stride stays in range
  EXPECT_EQ(sliceLength(0, 0, INT64_MAX, INT64_MAX), 0);
  EXPECT_EQ(sliceLength(8, INT64_MIN, INT64_MAX, 3), 3);
}

TEST(ViewShape, PermutationReadsEachDimOnce) {
  std::vector<int64_t> dims = {2, 0, -2}, source(3);
  bool named[3];
  size_t at;
  EXPECT_EQ(
      permutationOf(dims.data(), dims.size(), 3, named, source.data(), at),
      PermutationError::None);
  EXPECT_EQ(source, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(permutationOf(nullptr, 0, 0, named, source.data(), at),
            PermutationError::None);
}

TEST(ViewShape, PermutationErrorsSayWhere) {
  std::vector<int64_t> source(3);
  bool named[3];
  size_t at;
  std::vector<int64_t> shortList = {1, 0};
  EXPECT_EQ(permutationOf(shortList.data(), 2, 3, named, source.data(), at),
            PermutationError::Count);
  std::vector<int64_t> outside = {0, 3, 1};
  EXPECT_EQ(permutationOf(outside.data(), 3, 3, named, source.data(), at),
            PermutationError::OutOfRange);
  EXPECT_EQ(at, 1u);
  std::vector<int64_t> repeated = {0, 1, -3};
  EXPECT_EQ(permutationOf(repeated.data(), 3, 3, named, source.data(), at),
            PermutationError::Repeated);
  EXPECT_EQ(at, 2u);
}

TEST(ViewShape, TranspositionSwapsTwoDims) {
  std::vector<int64_t> source(3);
  EXPECT_TRUE(transpositionOf(3, 0, -1, source.data()));
  EXPECT_EQ(source, (std::vector<int64_t>{2, 1, 0}));
  EXPECT_FALSE(transpositionOf(3, 0, 3, source.data()));
  // Rank 0 takes dims 0 and -1 (ATen) and has nothing to swap.
  EXPECT_TRUE(transpositionOf(0, 0, -1, source.data()));
  EXPECT_FALSE(transpositionOf(0, 1, 0, source.data()));
}

std::vector<int64_t> squeezed(std::vector<int64_t> sizes,
                              std::optional<std::vector<int64_t>> dims) {
  bool named[8];
  std::vector<int64_t> out(sizes.size());
  size_t at;
  int64_t rank = squeezedShape(
      sizes.data(), sizes.size(), dims ? dims->data() : nullptr,
      dims ? dims->size() : 0, dims.has_value(), named, out.data(), at);
  EXPECT_GE(rank, 0);
  out.resize(std::max<int64_t>(rank, 0));
  return out;
}

TEST(ViewShape, SqueezeDropsNamedOrEverySizeOneDim) {
  EXPECT_EQ(squeezed({1, 3, 1}, std::nullopt), (std::vector<int64_t>{3}));
  EXPECT_EQ(squeezed({1, 3, 1}, std::vector<int64_t>{0}),
            (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(squeezed({1, 3, 1}, std::vector<int64_t>{-1, 1}),
            (std::vector<int64_t>{1, 3}));
  // An empty list drops nothing (ATen's squeeze.dims), unlike no list.
  EXPECT_EQ(squeezed({1, 3, 1}, std::vector<int64_t>{}),
            (std::vector<int64_t>{1, 3, 1}));
  // A rank-0 tensor takes dims 0 and -1 and stays rank 0.
  EXPECT_EQ(squeezed({}, std::vector<int64_t>{0, -1}), std::vector<int64_t>{});
  bool named[3];
  int64_t out[3];
  size_t at;
  int64_t sizes[] = {1, 3, 1}, dims[] = {0, 3};
  EXPECT_EQ(squeezedShape(sizes, 3, dims, 2, true, named, out, at), -1);
  EXPECT_EQ(at, 1u);
  int64_t scalarDims[] = {1};
  EXPECT_EQ(squeezedShape(nullptr, 0, scalarDims, 1, true, named, out, at), -1);
}

TEST(ViewShape, UnsqueezeAddsADimInTheOutputsRank) {
  int64_t sizes[] = {2, 3}, out[3];
  EXPECT_EQ(unsqueezedShape(sizes, 2, -1, out), 3);
  EXPECT_EQ(std::vector<int64_t>(out, out + 3),
            (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(unsqueezedShape(sizes, 2, 1, out), 3);
  EXPECT_EQ(std::vector<int64_t>(out, out + 3),
            (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(unsqueezedShape(sizes, 2, 3, out), -1);
  EXPECT_EQ(unsqueezedShape(sizes, 2, -4, out), -1);
  EXPECT_EQ(unsqueezedShape(nullptr, 0, 0, out), 1);
  EXPECT_EQ(out[0], 1);
}

TEST(ViewShape, ViewSizeListHasOneInferredExtentAtMost) {
  int64_t known, inferred;
  bool unknown;
  int64_t size[] = {3, -1, 2};
  ASSERT_EQ(readViewSize(size, 3, false, known, inferred, unknown),
            ViewSizeError::None);
  EXPECT_EQ(known, 6);
  EXPECT_EQ(inferred, 1);
  EXPECT_EQ(inferredViewExtent(24, known), 4);
  EXPECT_EQ(inferredViewExtent(25, known), -1);
  EXPECT_EQ(inferredViewExtent(0, 0), -1); // a zero entry infers nothing
  int64_t two[] = {-1, -1};
  EXPECT_EQ(readViewSize(two, 2, false, known, inferred, unknown),
            ViewSizeError::TwoInferred);
  int64_t negative[] = {2, -3};
  EXPECT_EQ(readViewSize(negative, 2, true, known, inferred, unknown),
            ViewSizeError::Negative);
  int64_t huge[] = {INT64_MAX, 2};
  EXPECT_EQ(readViewSize(huge, 2, false, known, inferred, unknown),
            ViewSizeError::Overflow);
  // The compiler's run-time sizes; the runtime's lists have none.
  int64_t dynamic[] = {kUnknownSize, 4};
  ASSERT_EQ(readViewSize(dynamic, 2, true, known, inferred, unknown),
            ViewSizeError::None);
  EXPECT_TRUE(unknown);
  EXPECT_EQ(known, 4);
  EXPECT_EQ(readViewSize(dynamic, 2, false, known, inferred, unknown),
            ViewSizeError::Negative);
}

} // namespace
