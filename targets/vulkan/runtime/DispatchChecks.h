// Verifies a dispatch of a blob before anything is recorded: its shader,
// bindings, push constants, workgroup counts and sizes against the shader's
// interface and the device's limits, and every element a shader can touch
// (from its push constants) against the regions it binds.
#pragma once

#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include <cstdint>
#include <string>

namespace etch::vulkan {

struct DeviceLimits {
  uint64_t arenaSize;
  uint64_t offsetAlignment; // minStorageBufferOffsetAlignment
  uint64_t maxRange;        // maxStorageBufferRange
  uint32_t maxPushBytes;
  uint32_t maxGroups[3];
  uint32_t maxLocalSize[3];
  uint32_t maxInvocations;
  uint32_t sharedMemoryBytes;
};

/// Empty when \p region lies in the arena, aligned, within a binding's
/// range; otherwise what is wrong.
std::string checkRegion(const Region *region, const DeviceLimits &limits);

/// Empty when \p dispatch is safe to record, its float tensors stored as
/// \p storage says; otherwise what is wrong.
std::string checkDispatch(const Dispatch &dispatch, const DeviceLimits &limits,
                          FloatStorage storage);

} // namespace etch::vulkan
