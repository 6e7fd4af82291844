// IEEE 754 binary16 <-> binary32, as the float16 storage of GPU delegates
// needs them on both sides: the compiler packs constants, the runtime
// converts delegate inputs and outputs (and the portable kernels read and
// write float16 and bfloat16 through them). Round to nearest, ties to even;
// subnormals, infinities and NaN (quieted, sign kept) are exact.
#pragma once

#include <cstdint>
#include <cstring>

namespace etch::runtime {

inline uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // inf, or NaN with its top payload bits
    return sign | 0x7c00u |
           (magnitude > 0x7f800000u ? 0x0200u | ((magnitude >> 13) & 0x3ffu)
                                    : 0u);
  if (magnitude >= 0x477ff000u) // rounds to 65520 or more: infinity
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) { // below 2^-14: a subnormal half (or 0)
    if (magnitude < 0x33000000u) // at most 2^-25: rounds to 0
      return sign;
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exponent; // 14..24: to units of 2^-24
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u)))
      ++half;
    return sign | static_cast<uint16_t>(half);
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits (a
  // carry into the exponent is the right result).
  uint32_t rebased = magnitude - (112u << 23);
  uint32_t half = rebased >> 13;
  uint32_t rest = rebased & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

inline float halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else { // subnormal: normalize
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((113u - shift) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// bfloat16 is float32's top half: rounded to nearest, ties to even (as
/// torch), NaN kept a NaN.
inline uint16_t floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float bfloat16ToFloat(uint16_t value) {
  uint32_t bits = static_cast<uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

} // namespace etch::runtime
