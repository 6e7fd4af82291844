//===- ArenaPlan.cpp - First-fit reuse of a Vulkan delegate's arena -------===//
#include "ArenaPlan.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace etch::vulkan {
namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// Free blocks of the reusable part of the arena, by offset, merged.
class FreeList {
public:
  uint64_t take(uint64_t bytes, uint64_t &end) {
    for (auto it = blocks.begin(); it != blocks.end(); ++it)
      if (it->second >= bytes) {
        uint64_t offset = it->first, size = it->second;
        blocks.erase(it);
        if (size > bytes)
          blocks[offset + bytes] = size - bytes;
        return offset;
      }
    // Grow: a free block at the end is extended rather than skipped.
    if (!blocks.empty()) {
      auto last = std::prev(blocks.end());
      if (last->first + last->second == end) {
        uint64_t offset = last->first;
        end = offset + bytes;
        blocks.erase(last);
        return offset;
      }
    }
    uint64_t offset = end;
    end += bytes;
    return offset;
  }
  void give(uint64_t offset, uint64_t bytes) {
    auto [it, inserted] = blocks.emplace(offset, bytes);
    auto next = std::next(it);
    if (next != blocks.end() && offset + bytes == next->first) {
      it->second += next->second;
      blocks.erase(next);
    }
    if (it != blocks.begin()) {
      auto previous = std::prev(it);
      if (previous->first + previous->second == it->first) {
        previous->second += it->second;
        blocks.erase(it);
      }
    }
  }

private:
  std::map<uint64_t, uint64_t> blocks;
};

} // namespace

uint64_t planArena(std::vector<PlannedBuffer> &buffers, int dispatchCount,
                   uint64_t alignment) {
  uint64_t end = 0;
  for (PlannedBuffer &buffer : buffers)
    if (buffer.pinned) {
      buffer.offset = end;
      end += alignUp(buffer.bytes, alignment);
    }
  FreeList free;
  for (int dispatch = 0; dispatch < dispatchCount; ++dispatch) {
    for (PlannedBuffer &buffer : buffers)
      if (!buffer.pinned && buffer.firstWrite == dispatch)
        buffer.offset = free.take(alignUp(buffer.bytes, alignment), end);
    for (PlannedBuffer &buffer : buffers)
      if (!buffer.pinned && std::max(buffer.lastUse, buffer.firstWrite) ==
                                dispatch)
        free.give(buffer.offset, alignUp(buffer.bytes, alignment));
  }
  return std::max<uint64_t>(end, alignment);
}

} // namespace etch::vulkan
