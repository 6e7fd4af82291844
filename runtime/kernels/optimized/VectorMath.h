// Elementwise math written branch-free (selects, no calls) so the compiler
// vectorizes loops over it; the kernels that use it build those loops for
// AVX-512, AVX2 and the baseline (IsaClones.h).
#pragma once

#include <cstdint>
#include <cstring>

namespace etch::runtime::optimized {

/// Cephes' expf: log2(e), ln 2 in two parts (the range reduction r = x -
/// n ln 2 stays exact), and the degree-5 polynomial in r (highest power
/// first) that e^r = p(r) r^2 + r + 1 takes. The intrinsic kernels
/// (Silu.cpp) use these too.
inline constexpr float kExpLog2e = 1.44269504f;
inline constexpr float kExpLn2High = 0.693359375f, kExpLn2Low = -2.12194440e-4f;
inline constexpr float kExpPoly[] = {1.9875691500e-4f, 1.3981999507e-3f,
                                     8.3334519073e-3f, 4.1665795894e-2f,
                                     1.6666665459e-1f, 5.0000001201e-1f};

/// e^x within ~1 ulp: Cephes' expf (x = n ln 2 + r, a degree-6 polynomial
/// in r, 2^n put in the exponent). 0 below -87.34 (under FLT_MIN), +inf
/// above 88.72, NaN stays NaN.
__attribute__((always_inline)) inline float expVectorizable(float input) {
  constexpr float kLow = -87.33654f, kHigh = 88.37626f;
  float x = input > kLow ? input : kLow;
  x = x < kHigh ? x : kHigh;
  // n = round(x / ln 2) by the 1.5 * 2^23 trick; r = x - n ln 2 in two parts.
  float n = (x * kExpLog2e + 12582912.0f) - 12582912.0f;
  float r = x - n * kExpLn2High - n * kExpLn2Low;
  float p = kExpPoly[0];
  for (int i = 1; i < 6; ++i)
    p = p * r + kExpPoly[i];
  p = p * r * r + r + 1.0f;
  int32_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  // Multiply, not shift: n may be negative (shifting it is undefined).
  bits += static_cast<int32_t>(n) * (1 << 23);
  std::memcpy(&p, &bits, sizeof p);
  p = input < kLow ? 0.0f : p;
  p = input > 88.72283f ? __builtin_inff() : p;
  return input != input ? input : p;
}

} // namespace etch::runtime::optimized
