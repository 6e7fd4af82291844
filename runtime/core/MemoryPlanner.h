// Places buffers with known sizes and lifetimes [first, last] (inclusive
// step indices) in one arena so that buffers alive at the same time never
// overlap. Greedy by size: the largest buffer is placed first at the lowest
// aligned offset that fits between the already-placed buffers whose
// lifetimes intersect its own. The one definition: the compiler's memory
// plan (lib/Transforms/MemoryPlan.cpp) and delegates that keep values of
// their own (the XNNPACK delegate's values between runtimes) use it.
#pragma once

#include <cstdint>
#include <vector>

namespace etch::runtime {

struct PlannedBuffer {
  uint64_t size = 0;
  int64_t first = 0, last = 0; // lifetime, inclusive
  uint64_t offset = 0;         // filled by plan()
};

/// Where every planned tensor starts: a multiple of this many bytes. The
/// runtime binds caller memory in place of an input only at this alignment.
inline constexpr uint64_t kTensorAlignment = 64;

class MemoryPlanner {
public:
  explicit MemoryPlanner(uint64_t alignment = kTensorAlignment)
      : alignment(alignment) {}
  /// Assigns every buffer's offset; returns the arena size.
  uint64_t plan(std::vector<PlannedBuffer> &buffers) const;
  /// The most bytes alive at any one instruction: no placement can do better.
  static uint64_t lowerBound(const std::vector<PlannedBuffer> &buffers);

private:
  uint64_t alignment;
};

} // namespace etch::runtime
