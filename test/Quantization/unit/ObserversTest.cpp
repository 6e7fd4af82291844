// The observers' ranges and the int8 parameters derived from them, on
// distributions whose answers are known.
#include "lib/Quantization/Observers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace etch::quantization {
namespace {

TEST(QuantizationParams, CoverTheRangeAndKeepZeroExact) {
  AffineParams relu = asymmetricInt8(0.0f, 2.55f);
  EXPECT_NEAR(relu.scale, 0.01, 1e-9);
  EXPECT_EQ(relu.zeroPoint, -128);
  AffineParams symmetric = asymmetricInt8(-1.0f, 1.0f);
  EXPECT_NEAR(symmetric.scale, 2.0 / 255, 1e-9);
  EXPECT_EQ(symmetric.zeroPoint, 0); // -128 + 127.5 rounds to even
  // A range away from zero is widened to include it.
  AffineParams positive = asymmetricInt8(1.0f, 2.0f);
  EXPECT_NEAR(positive.scale, 2.0 / 255, 1e-9);
  EXPECT_EQ(positive.zeroPoint, -128);
  // A value that is always zero still gets a valid scale.
  EXPECT_GT(asymmetricInt8(0.0f, 0.0f).scale, 0.0);
}

std::vector<float> gaussianWithOutliers() {
  std::mt19937 generator(7);
  std::normal_distribution<float> normal;
  std::vector<float> values(200000);
  for (float &value : values)
    value = normal(generator);
  values[0] = 40.0f; // one outlier stretches min/max
  return values;
}

TEST(QuantizationObservers, MinMaxKeepsOutliersTheOthersClip) {
  std::vector<float> values = gaussianWithOutliers();
  ValueStats stats;
  stats.addRange(values.data(), values.size());
  stats.addHistogram(values.data(), values.size());
  auto [lo, hi] = stats.range(Observer::MinMax);
  EXPECT_FLOAT_EQ(hi, 40.0f);
  EXPECT_LT(lo, -3.5f);
  auto [plo, phi] = stats.range(Observer::Percentile);
  EXPECT_LT(phi, 6.0f); // 99.99% of a standard normal lies within ~3.9
  EXPECT_GT(phi, 3.0f);
  EXPECT_LT(plo, -3.0f);
  auto [mlo, mhi] = stats.range(Observer::Mse);
  EXPECT_LT(mhi, 40.0f);
  EXPECT_GT(mhi, 2.0f);
  EXPECT_LT(mlo, -2.0f);
}

TEST(QuantizationObservers, NonFiniteValuesAreIgnored) {
  std::vector<float> values = {1.0f, -2.0f, INFINITY, NAN, 0.5f};
  ValueStats stats;
  stats.addRange(values.data(), values.size());
  auto [lo, hi] = stats.range(Observer::MinMax);
  EXPECT_FLOAT_EQ(lo, -2.0f);
  EXPECT_FLOAT_EQ(hi, 1.0f);
  ValueStats unseen;
  EXPECT_FALSE(unseen.seen());
  EXPECT_EQ(unseen.range(Observer::Mse), std::make_pair(0.0f, 0.0f));
}

} // namespace
} // namespace etch::quantization
