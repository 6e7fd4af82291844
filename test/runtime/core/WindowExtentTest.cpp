// tapsInside against a scan of every tap: the convolution kernels' one rule
// for which taps of a window land inside the tensor.
#include "runtime/core/WindowExtent.h"

#include <gtest/gtest.h>

namespace etch::runtime {
namespace {

TEST(WindowExtent, TapsInsideAreExactlyTheTapsThatLandInside) {
  for (int64_t extent : {1, 2, 5, 9})
    for (int64_t kernel : {1, 2, 3, 7})
      for (int64_t stride : {1, 2, 3})
        for (int64_t dilation : {1, 2, 4})
          for (int64_t padding : {0, 1, 3, 8})
            for (int64_t position = 0; position < 12; ++position) {
              TapRange taps = tapsInside(position, stride, padding, dilation,
                                         kernel, extent);
              SCOPED_TRACE(testing::Message()
                           << "extent " << extent << " kernel " << kernel
                           << " stride " << stride << " dilation " << dilation
                           << " padding " << padding << " position "
                           << position);
              ASSERT_LE(0, taps.first);
              ASSERT_LE(taps.first, taps.end);
              ASSERT_LE(taps.end, kernel);
              for (int64_t k = 0; k < kernel; ++k) {
                int64_t at = position * stride - padding + k * dilation;
                bool inside = at >= 0 && at < extent;
                EXPECT_EQ(inside, k >= taps.first && k < taps.end)
                    << "tap " << k;
              }
            }
}

} // namespace
} // namespace etch::runtime
