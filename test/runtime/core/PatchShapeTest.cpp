// The im2col/col2im shape rule the Edge dialect and the portable kernels
// share: taps, windows per dim and in all, and what makes them 0.
#include "runtime/core/PatchShape.h"

#include <gtest/gtest.h>

namespace etch::runtime {
namespace {

TEST(PatchShape, CountsTapsAndWindowsAsATen) {
  // F.unfold(x [.., 5, 7], kernel (2, 3), dilation (2, 1), padding (1, 0),
  // stride (1, 2)) has 6 taps and 5 x 3 windows.
  PatchWindow window{{2, 3}, {2, 1}, {1, 0}, {1, 2}};
  EXPECT_EQ(patchTaps(window), 6);
  EXPECT_EQ(patchBlocksAlong(window, 0, 5), 5);
  EXPECT_EQ(patchBlocksAlong(window, 1, 7), 3);
  EXPECT_EQ(patchBlocks(window, 5, 7), 15);
}

TEST(PatchShape, ZeroWhereNoWindowFitsOrAParameterIsOutOfRange) {
  PatchWindow window{{4, 1}, {1, 1}, {0, 0}, {1, 1}};
  EXPECT_EQ(patchBlocks(window, 3, 3), 0); // 4 rows of taps, 3 of image
  window.padding[0] = 1;
  EXPECT_EQ(patchBlocks(window, 3, 3), 6);
  window.stride[1] = 0;
  EXPECT_EQ(patchBlocks(window, 3, 3), 0);
  window.stride[1] = 1;
  window.padding[1] = -1;
  EXPECT_EQ(patchBlocks(window, 3, 3), 0);
  PatchWindow huge{{INT64_MAX / 2, 3}, {1, 1}, {0, 0}, {1, 1}};
  EXPECT_EQ(patchTaps(huge), 0);
  PatchWindow empty{{0, 3}, {1, 1}, {0, 0}, {1, 1}};
  EXPECT_EQ(patchTaps(empty), 0);
  // Windows of one tap over a 2^32 x 2^32 image: 2^64 of them overflow.
  PatchWindow single{{1, 1}, {1, 1}, {0, 0}, {1, 1}};
  EXPECT_EQ(patchBlocks(single, int64_t(1) << 32, int64_t(1) << 32), 0);
}

} // namespace
} // namespace etch::runtime
