//===- ArenaPlan.cpp - A Vulkan delegate's arena by the shared planner ----===//
#include "ArenaPlan.h"

#include "runtime/core/MemoryPlanner.h"

#include <algorithm>

namespace etch::vulkan {

uint64_t planArena(std::vector<PlannedBuffer> &buffers, int dispatchCount,
                   uint64_t alignment) {
  // Pinned buffers live through every dispatch (and the uploads before the
  // first); the others from their first write to their last reader.
  std::vector<runtime::PlannedBuffer> planned;
  planned.reserve(buffers.size());
  for (const PlannedBuffer &buffer : buffers) {
    runtime::PlannedBuffer lifetime;
    lifetime.size = buffer.bytes;
    lifetime.first = buffer.pinned ? -1 : buffer.firstWrite;
    lifetime.last = buffer.pinned ? dispatchCount
                                  : std::max(buffer.lastUse, buffer.firstWrite);
    planned.push_back(lifetime);
  }
  uint64_t size = runtime::MemoryPlanner(alignment).plan(planned);
  for (size_t i = 0; i < buffers.size(); ++i)
    buffers[i].offset = planned[i].offset;
  return std::max<uint64_t>(size, alignment);
}

} // namespace etch::vulkan
