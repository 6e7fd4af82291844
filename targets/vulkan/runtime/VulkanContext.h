// The process's Vulkan device, shared by every Vulkan delegate: instance,
// the chosen physical device, one compute queue, the validation messenger
// when ETCH_VULKAN_VALIDATION=1, and the shader modules of the library.
#pragma once

#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include "runtime/core/Error.h"

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace etch::vulkan {

struct Context {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkQueue queue = VK_NULL_HANDLE;
  std::mutex queueMutex; // vkQueueSubmit needs the queue to itself
  bool timestamps = false; // the queue writes timestamps
  VkShaderModule modules[static_cast<size_t>(Shader::MAX) + 1] = {};
  /// Shared by every delegate's pipelines: drivers that cache (NVIDIA's)
  /// compile a (shader, workgroup size) once per process.
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  /// Validation-layer warnings and errors so far (each also logged).
  std::atomic<uint32_t> validationMessages{0};

  /// The shared context, created by the first caller; each successful call
  /// is paired with release(). Logs why when there is no usable device.
  static runtime::Error acquire(Context *&context);
  static void release();

  /// A memory type with all of \p flags among \p allowed, or -1.
  int memoryType(uint32_t allowed, VkMemoryPropertyFlags flags) const;
};

} // namespace etch::vulkan
