#include "runtime/core/MemoryPlanner.h"

#include <gtest/gtest.h>

#include <random>

using etch::runtime::MemoryPlanner;
using etch::runtime::PlannedBuffer;

namespace {

bool overlaps(const PlannedBuffer &a, const PlannedBuffer &b) {
  bool alive = a.first <= b.last && b.first <= a.last;
  bool memory = a.offset < b.offset + b.size && b.offset < a.offset + a.size;
  return alive && memory;
}

TEST(MemoryPlanner, ChainReusesMemory) {
  std::vector<PlannedBuffer> buffers = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}};
  uint64_t arena = MemoryPlanner(64).plan(buffers);
  EXPECT_EQ(buffers[0].offset, buffers[2].offset);
  EXPECT_EQ(arena, 228u); // 100 at 0, 100 at 128
  EXPECT_EQ(MemoryPlanner::lowerBound(buffers), 200u);
}

TEST(MemoryPlanner, RandomLifetimesNeverOverlapAndAreAligned) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<PlannedBuffer> buffers(rng() % 40 + 1);
    for (PlannedBuffer &buffer : buffers) {
      buffer.size = rng() % 5000 + 1;
      buffer.first = rng() % 50;
      buffer.last = buffer.first + rng() % 10;
    }
    uint64_t arena = MemoryPlanner(64).plan(buffers);
    uint64_t bound = MemoryPlanner::lowerBound(buffers);
    EXPECT_GE(arena, bound);
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(buffers[i].offset % 64, 0u);
      EXPECT_LE(buffers[i].offset + buffers[i].size, arena);
      for (size_t j = i + 1; j < buffers.size(); ++j)
        EXPECT_FALSE(overlaps(buffers[i], buffers[j])) << i << " " << j;
    }
  }
}

} // namespace
