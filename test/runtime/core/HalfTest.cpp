#include "runtime/core/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace etch::runtime {
namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

// Every half survives half -> float -> half, and its float value is the
// one the format defines.
TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    uint16_t half = static_cast<uint16_t>(bits);
    float value = halfToFloat(half);
    uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    float sign = (bits & 0x8000u) ? -1.0f : 1.0f;
    if (exponent == 0x1f) {
      EXPECT_TRUE(mantissa ? std::isnan(value) : std::isinf(value)) << bits;
      if (!mantissa)
        EXPECT_EQ(half, floatToHalf(value));
      else
        EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(value))));
      continue;
    }
    float expected =
        exponent ? sign * std::ldexp(1.0f + mantissa / 1024.0f, exponent - 15)
                 : sign * std::ldexp(mantissa / 1024.0f, -14);
    EXPECT_EQ(value, expected) << bits;
    EXPECT_EQ(half, floatToHalf(value)) << bits;
  }
}

// Values between two halves go to the nearer, ties to the even one; the
// same rule at the subnormal end, at overflow and at underflow.
TEST(HalfTest, RoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00u); // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02u);
  EXPECT_EQ(floatToHalf(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)),
            0x3c01u);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bffu);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bffu);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00u); // tie with 2^16: even is inf
  EXPECT_EQ(floatToHalf(-1e9f), 0xfc00u);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001u);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000u); // tie: even is 0
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002u); // 1.5 ulp: even
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000u);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400u); // into normal
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7c00u);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(fromBits(0x7f800001u)))));
}

#ifdef __FLT16_MAX__
// Against the compiler's own _Float16 conversion over a sweep of floats
// (every 4099th bit pattern: all exponents, many mantissas).
TEST(HalfTest, MatchesTheCompilersFloat16) {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099) {
    float value = fromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    _Float16 reference = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &reference, 2);
    ASSERT_EQ(floatToHalf(value), expected) << value;
  }
}
#endif

} // namespace
} // namespace etch::runtime
