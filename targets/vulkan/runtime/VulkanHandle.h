//===- VulkanHandle.h - One Vulkan delegate's device objects ---*- C++ -*-===//
//
// What init builds for a delegate (VulkanBuilder.cpp) and execute runs
// (VulkanBackend.cpp): its arena and staging buffers, pipelines, descriptor
// sets and the recorded command buffer.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGETS_VULKAN_RUNTIME_VULKANHANDLE_H
#define ETCH_TARGETS_VULKAN_RUNTIME_VULKANHANDLE_H

#include "VulkanContext.h"

#include "targets/vulkan/schema/ShaderInterface.h"
#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include "runtime/backend/BlobFraming.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"
#include "runtime/platform/Platform.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace etch::vulkan {

using runtime::Error;
using runtime::Result;
using runtime::Span;
using runtime::TensorView;

/// A wedged device: a submit that has not finished after this is an error.
/// Generous, because lavapipe runs a large network on a slow CPU for
/// minutes (convnext_tiny on a 2-core AVX2 machine: over 2).
constexpr uint64_t kFenceTimeoutSeconds = 600;

inline Error fail(const char *what) {
  ET_LOG(Error, "vulkan: %s", what);
  return Error::DelegateInvalidBlob;
}

inline Error failInit(const char *what) {
  ET_LOG(Error, "vulkan: %s", what);
  return Error::DelegateInitFailed;
}

inline bool envSet(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t *mapped = nullptr;
  uint64_t size = 0;
  void destroy(VkDevice device) {
    if (buffer)
      vkDestroyBuffer(device, buffer, nullptr);
    if (memory)
      vkFreeMemory(device, memory, nullptr);
    *this = Buffer();
  }
};

/// A delegate input or output: its bytes in the arena, and where the host
/// reads or writes them (the mapped arena or the staging buffer), which
/// hold them as the arena stores them.
struct HostRegion {
  uint64_t arenaOffset;
  uint64_t hostOffset;
  uint64_t arenaBytes; // the region: whole words
  uint64_t viewBytes;  // of the runtime's tensor
  bool half;           // float32 outside, float16 in the arena
};

struct Handle {
  Context *context = nullptr;
  Buffer arena, staging;
  uint8_t *host = nullptr; // mapped arena, or mapped staging buffer
  std::vector<HostRegion> inputs, outputs;
  VkDescriptorSetLayout setLayouts[static_cast<size_t>(Shader::MAX) + 1] = {};
  VkPipelineLayout pipelineLayouts[static_cast<size_t>(Shader::MAX) + 1] = {};
  std::vector<VkPipeline> pipelines;      // per dispatch (shared when equal)
  std::vector<VkPipeline> ownedPipelines; // each distinct one once
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  /// Timestamps: delegate profiling (et-run --profile) or
  /// ETCH_VULKAN_PROFILE.
  VkQueryPool queries = VK_NULL_HANDLE;
  std::vector<Shader> shaders;         // per dispatch, for the profile
  std::vector<uint64_t> dispatchNanos; // summed over executes
  std::vector<uint64_t> stamps;        // read back after each execute
  uint64_t executes = 0;
  bool wedged = false; // a submit never finished: the fence is still in use

  ~Handle() {
    if (!context)
      return;
    VkDevice device = context->device;
    // Nothing may be destroyed while the device still uses it: a submit
    // that never finishes leaks the delegate's objects instead.
    if (wedged &&
        vkWaitForFences(device, 1, &fence, VK_TRUE,
                        kFenceTimeoutSeconds * 1000000000ull) != VK_SUCCESS)
      return;
    if (queries)
      vkDestroyQueryPool(device, queries, nullptr);
    if (fence)
      vkDestroyFence(device, fence, nullptr);
    if (commandPool)
      vkDestroyCommandPool(device, commandPool, nullptr);
    if (descriptorPool)
      vkDestroyDescriptorPool(device, descriptorPool, nullptr);
    for (VkPipeline pipeline : ownedPipelines)
      vkDestroyPipeline(device, pipeline, nullptr);
    for (size_t i = 0; i <= static_cast<size_t>(Shader::MAX); ++i) {
      if (pipelineLayouts[i])
        vkDestroyPipelineLayout(device, pipelineLayouts[i], nullptr);
      if (setLayouts[i])
        vkDestroyDescriptorSetLayout(device, setLayouts[i], nullptr);
    }
    staging.destroy(device);
    arena.destroy(device);
  }
};

/// Submits \p handle's command buffer and waits for its fence. A submit
/// that does not finish leaves the fence in use: it is not reset, and the
/// handle refuses further submits (destroy waits for the device first).
Error submitAndWait(Handle &handle);

/// Fills \p handle (its context acquired) from the verified \p blob for a
/// delegate call with \p inputs and \p outputs under \p options (memory
/// limit, profiling): checks every dispatch, allocates and uploads the
/// arena, creates the pipelines and records the command buffer
/// (VulkanBuilder.cpp).
Error buildHandle(const Blob &blob, const runtime::FramedBlob &framed,
                  Handle &handle, Span<TensorView *> inputs,
                  Span<TensorView *> outputs,
                  const runtime::LoadOptions &options);

} // namespace etch::vulkan

#endif
