// The broadcast rule both sides share (runtime/core/BroadcastShape.h):
// right alignment, ones that yield, conflicts, extents known only at run
// time (the compiler's), and results written over an input.
#include "runtime/core/BroadcastShape.h"

#include <gtest/gtest.h>

#include <vector>

using namespace etch::runtime;

namespace {

constexpr int64_t kU = kUnknownExtent;

/// The broadcast of \p a and \p b, or {-2} when they conflict.
std::vector<int64_t> broadcast(std::vector<int64_t> a, std::vector<int64_t> b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  int64_t rank =
      broadcastShape(a.data(), a.size(), b.data(), b.size(), out.data());
  if (rank < 0)
    return {-2};
  out.resize(rank);
  return out;
}

TEST(BroadcastShape, RightAlignedOnesYield) {
  EXPECT_EQ(broadcast({2, 3, 4}, {4}), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(broadcast({3, 1}, {1, 5}), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(broadcast({1}, {2, 1, 6}), (std::vector<int64_t>{2, 1, 6}));
  EXPECT_EQ(broadcast({}, {2, 3}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(broadcast({0, 1}, {1, 7}), (std::vector<int64_t>{0, 7}));
}

TEST(BroadcastShape, ConflictsAreRefused) {
  EXPECT_EQ(broadcast({2, 3}, {4}), (std::vector<int64_t>{-2}));
  EXPECT_EQ(broadcast({0}, {5}), (std::vector<int64_t>{-2}));
}

TEST(BroadcastShape, UnknownExtentsTrustTheProgram) {
  EXPECT_EQ(broadcast({kU, 3}, {4, 1}), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(broadcast({kU}, {1}), (std::vector<int64_t>{kU}));
  EXPECT_EQ(broadcast({1}, {kU}), (std::vector<int64_t>{kU}));
  EXPECT_EQ(broadcast({kU}, {kU}), (std::vector<int64_t>{kU}));
  EXPECT_EQ(broadcast({kU}, {0}), (std::vector<int64_t>{kU}));
}

TEST(BroadcastShape, OutputMayBeEitherInput) {
  int64_t a[4] = {3, 1};
  const int64_t b[4] = {2, 1, 5};
  ASSERT_EQ(broadcastShape(a, 2, b, 3, a), 3);
  EXPECT_EQ((std::vector<int64_t>(a, a + 3)), (std::vector<int64_t>{2, 3, 5}));
  int64_t c[4] = {7, 1, 1};
  const int64_t d[1] = {4};
  ASSERT_EQ(broadcastShape(d, 1, c, 3, c), 3);
  EXPECT_EQ((std::vector<int64_t>(c, c + 3)), (std::vector<int64_t>{7, 1, 4}));
}

} // namespace
