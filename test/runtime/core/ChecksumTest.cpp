// The weights checksum is part of two file formats (programs name external
// weights by it): its values must never change.
#include "runtime/core/Checksum.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace etch::runtime {
namespace {

TEST(Checksum, ValuesAreFixedByTheFileFormat) {
  EXPECT_EQ(checksum64("", 0), checksum64(nullptr, 0));
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  // Recorded once; a change here breaks every weights file written before.
  EXPECT_EQ(checksum64(bytes.data(), bytes.size()), 0xf926c8baa53c72ffull);
  EXPECT_EQ(checksum64("etch", 4), 0x5526e709e9381218ull);
}

TEST(Checksum, EveryByteAndTheLengthCount) {
  std::vector<uint8_t> bytes(97, 0);
  uint64_t zeros = checksum64(bytes.data(), bytes.size());
  EXPECT_NE(zeros, checksum64(bytes.data(), bytes.size() - 1));
  for (size_t i : {size_t(0), size_t(31), size_t(32), size_t(95), size_t(96)}) {
    bytes[i] = 1;
    EXPECT_NE(checksum64(bytes.data(), bytes.size()), zeros) << "byte " << i;
    bytes[i] = 0;
  }
}

TEST(Checksum, AnyAlignment) {
  std::vector<uint8_t> storage(200);
  for (size_t i = 0; i < storage.size(); ++i)
    storage[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> copy(storage.begin() + 1, storage.begin() + 1 + 150);
  EXPECT_EQ(checksum64(storage.data() + 1, 150),
            checksum64(copy.data(), copy.size()));
}

} // namespace
} // namespace etch::runtime
