// The reduction rule both sides share (runtime/core/ReductionShape.h):
// which dims fold, what is left with and without keepdim, and the two ways
// a dim list is wrong.
#include "runtime/core/ReductionShape.h"

#include <gtest/gtest.h>

#include <vector>

using namespace etch::runtime;

namespace {

std::vector<int64_t> shapeAfter(std::vector<int64_t> sizes,
                                std::vector<int64_t> dims, bool keepdim) {
  bool reduced[8];
  size_t at = 0;
  EXPECT_EQ(
      markReducedDims(dims.data(), dims.size(), sizes.size(), reduced, at),
      ReducedDimsError::None);
  std::vector<int64_t> out(sizes.size());
  out.resize(
      reducedShape(sizes.data(), sizes.size(), reduced, keepdim, out.data()));
  return out;
}

TEST(ReductionShape, NamedDimsFold) {
  EXPECT_EQ(shapeAfter({2, 3, 4}, {1}, false), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(shapeAfter({2, 3, 4}, {1}, true), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(shapeAfter({2, 3, 4}, {-1, 0}, false), (std::vector<int64_t>{3}));
  EXPECT_EQ(shapeAfter({2, 3, 4}, {-1, 0}, true),
            (std::vector<int64_t>{1, 3, 1}));
}

TEST(ReductionShape, NoDimsFoldsEveryDim) {
  EXPECT_EQ(shapeAfter({2, 3}, {}, false), std::vector<int64_t>{});
  EXPECT_EQ(shapeAfter({2, 3}, {}, true), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(shapeAfter({}, {}, true), std::vector<int64_t>{});
}

TEST(ReductionShape, BadDimLists) {
  bool reduced[8];
  size_t at = 0;
  int64_t outside[] = {0, 3};
  EXPECT_EQ(markReducedDims(outside, 2, 3, reduced, at),
            ReducedDimsError::OutOfRange);
  EXPECT_EQ(at, 1u);
  int64_t below[] = {-4};
  EXPECT_EQ(markReducedDims(below, 1, 3, reduced, at),
            ReducedDimsError::OutOfRange);
  EXPECT_EQ(at, 0u);
  int64_t twice[] = {2, 1, -1};
  EXPECT_EQ(markReducedDims(twice, 3, 3, reduced, at),
            ReducedDimsError::Repeated);
  EXPECT_EQ(at, 2u);
}

TEST(ReductionShape, NormalizedDim) {
  EXPECT_EQ(normalizedDim(-1, 4), 3);
  EXPECT_EQ(normalizedDim(3, 4), 3);
  EXPECT_EQ(normalizedDim(4, 4), -1);
  EXPECT_EQ(normalizedDim(-5, 4), -1);
  EXPECT_EQ(normalizedDim(0, 0), -1);
}

} // namespace
