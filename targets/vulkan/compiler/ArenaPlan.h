//===- ArenaPlan.h - Offsets of a Vulkan delegate's buffers ----*- C++ -*-===//
//
// Every value of a Vulkan delegate lives in one device buffer. Constants,
// inputs and outputs keep their bytes for the delegate's whole life;
// intermediates live from their first write to their last reader, and
// values whose lifetimes do not meet share bytes: runtime::MemoryPlanner
// places them, as it does a program's arenas.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGETS_VULKAN_COMPILER_ARENAPLAN_H
#define ETCH_TARGETS_VULKAN_COMPILER_ARENAPLAN_H

#include <cstdint>
#include <vector>

namespace etch::vulkan {

struct PlannedBuffer {
  uint64_t bytes = 0;
  bool pinned = false; // constant, input or output: never reused
  int firstWrite = -1; // dispatch index; -1: before the first (pinned)
  int lastUse = -1;    // dispatch index
  uint64_t offset = 0; // set by planArena
};

/// Sets every buffer's offset (aligned to \p alignment); returns the
/// arena's size.
uint64_t planArena(std::vector<PlannedBuffer> &buffers, int dispatchCount,
                   uint64_t alignment);

} // namespace etch::vulkan

#endif
