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
  /// storageBuffer16BitAccess: blobs with float16 storage can run.
  bool storage16 = false;
  /// By FloatStorage, then Shader; the float16 ones only with storage16.
  VkShaderModule modules[static_cast<size_t>(FloatStorage::MAX) + 1]
                        [static_cast<size_t>(Shader::MAX) + 1] = {};
  /// Shared by every delegate's pipelines: drivers that cache (NVIDIA's)
  /// compile a (shader, workgroup size) once per process.
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  /// Validation-layer warnings and errors so far (each also logged).
  std::atomic<uint32_t> validationMessages{0};

  /// The shared context, created by the first caller and kept for the
  /// life of the process: a later program load reuses the device, shader
  /// modules and pipeline cache, and the driver is never unloaded while
  /// the process runs (lavapipe 22.3.6 leaks a block at each unload).
  /// Logs why when there is no usable device; a later call tries again.
  static runtime::Error acquire(Context *&context);

  /// A memory type with all of \p flags among \p allowed, or -1.
  int memoryType(uint32_t allowed, VkMemoryPropertyFlags flags) const;
};

} // namespace etch::vulkan
