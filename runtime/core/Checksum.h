// The checksum of weights (external weights files, the segments a program
// expects in them): one definition for the compiler that writes them and the
// runtime that checks them. Four 64-bit lanes with xxHash64's round and
// avalanche, reading 8-byte little-endian words; not xxHash64 itself (the
// lanes start and merge differently), so do not compare with its values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etch::runtime {

namespace checksum_detail {
inline constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
inline constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;

inline uint64_t rotateLeft(uint64_t value, int bits) {
  return (value << bits) | (value >> (64 - bits));
}
inline uint64_t round(uint64_t lane, uint64_t word) {
  return rotateLeft(lane + word * kPrime2, 31) * kPrime1;
}
inline uint64_t load64(const uint8_t *at) {
  uint64_t word;
  std::memcpy(&word, at, sizeof(word));
  return word;
}
} // namespace checksum_detail

/// The checksum of \p size bytes at \p data (any alignment).
inline uint64_t checksum64(const void *data, size_t size) {
  using namespace checksum_detail;
  const uint8_t *at = static_cast<const uint8_t *>(data);
  uint64_t lanes[4] = {kPrime1, kPrime2, kPrime3, kPrime1 ^ kPrime3};
  size_t whole = size / 32 * 32;
  for (size_t i = 0; i < whole; i += 32)
    for (int lane = 0; lane < 4; ++lane)
      lanes[lane] = round(lanes[lane], load64(at + i + 8 * lane));
  uint64_t hash = static_cast<uint64_t>(size) * kPrime3;
  for (int lane = 0; lane < 4; ++lane)
    hash = rotateLeft(hash ^ round(0, lanes[lane]), 27) * kPrime1 + kPrime3;
  for (size_t i = whole; i < size; ++i)
    hash = rotateLeft(hash ^ (at[i] * kPrime3), 11) * kPrime1;
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  return hash ^ (hash >> 32);
}

} // namespace etch::runtime
