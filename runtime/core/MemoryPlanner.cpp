#include "runtime/core/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace etch::runtime {

uint64_t MemoryPlanner::plan(std::vector<PlannedBuffer> &buffers) const {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return buffers[a].first < buffers[b].first;
  });
  auto alignUp = [&](uint64_t value) {
    return (value + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> placed;
  uint64_t arena = 0;
  for (size_t index : order) {
    PlannedBuffer &buffer = buffers[index];
    // Intervals taken by placed buffers whose lifetimes intersect, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t other : placed) {
      const PlannedBuffer &o = buffers[other];
      if (o.first <= buffer.last && buffer.first <= o.last)
        taken.emplace_back(o.offset, o.offset + o.size);
    }
    std::sort(taken.begin(), taken.end());
    uint64_t candidate = 0;
    for (const auto &[begin, end] : taken) {
      if (candidate + buffer.size <= begin)
        break; // fits in the gap before this interval
      candidate = std::max(candidate, alignUp(end));
    }
    buffer.offset = candidate;
    arena = std::max(arena, candidate + buffer.size);
    placed.push_back(index);
  }
  return arena;
}

uint64_t MemoryPlanner::lowerBound(const std::vector<PlannedBuffer> &buffers) {
  // Sweep lifetime events: +size at first, -size after last.
  std::map<int64_t, int64_t> delta;
  for (const PlannedBuffer &buffer : buffers) {
    delta[buffer.first] += static_cast<int64_t>(buffer.size);
    delta[buffer.last + 1] -= static_cast<int64_t>(buffer.size);
  }
  int64_t live = 0, peak = 0;
  for (const auto &[time, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

} // namespace etch::runtime
