//===- VulkanContext.cpp - Instance, device choice, queue, validation -----===//
#include "VulkanContext.h"

#include "ShaderLibrary.h"

#include "runtime/platform/Platform.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace etch::vulkan {
namespace {

using runtime::Error;

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::mutex sharedMutex;
Context *shared = nullptr; // created on first use, kept until exit

/// Validation messages count against the delegate; the loader's general
/// ones (a missing driver manifest, say) are only logged.
VKAPI_ATTR VkBool32 VKAPI_CALL
onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                    VkDebugUtilsMessageTypeFlagsEXT type,
                    const VkDebugUtilsMessengerCallbackDataEXT *data,
                    void *user) {
  if (!(type & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT)) {
    ET_LOG(Info, "vulkan loader: %s", data->pMessage);
    return VK_FALSE;
  }
  static_cast<Context *>(user)->validationMessages++;
  ET_LOG(Error, "vulkan validation: %s", data->pMessage);
  return VK_FALSE;
}

bool validationRequested() {
  const char *value = std::getenv("ETCH_VULKAN_VALIDATION");
  return value && std::strcmp(value, "0") != 0 && *value;
}

bool hasLayer(const char *name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties &layer : layers)
    if (std::strcmp(layer.layerName, name) == 0)
      return true;
  return false;
}

Error createInstance(Context &context) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "etch";
  app.pEngineName = "etch";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  bool validate = validationRequested();
  const char *extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messengerInfo.pfnUserCallback = onValidationMessage;
  messengerInfo.pUserData = &context;
  if (validate) {
    if (!hasLayer(kValidationLayer)) {
      ET_LOG(Error, "vulkan: ETCH_VULKAN_VALIDATION is set but %s is not "
                    "installed (Debian: vulkan-validationlayers)",
             kValidationLayer);
      return Error::DelegateInitFailed;
    }
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &kValidationLayer;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
    info.pNext = &messengerInfo; // also covers instance creation itself
  }
  VkResult result = vkCreateInstance(&info, nullptr, &context.instance);
  if (result != VK_SUCCESS) {
    ET_LOG(Error, "vulkan: no Vulkan 1.1 instance (VkResult %d); is a "
                  "driver installed (Debian: mesa-vulkan-drivers)?",
           static_cast<int>(result));
    return Error::DelegateInitFailed;
  }
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(context.instance,
                              "vkCreateDebugUtilsMessengerEXT"));
    if (!create || create(context.instance, &messengerInfo, nullptr,
                          &context.messenger) != VK_SUCCESS) {
      ET_LOG(Error, "vulkan: cannot create the validation messenger");
      return Error::DelegateInitFailed;
    }
  }
  return Error::Ok;
}

/// Discrete GPUs first, then integrated, virtual, CPU (lavapipe).
int deviceRank(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
  default: return 0;
  }
}

int computeQueueFamily(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      return static_cast<int>(i);
  return -1;
}

bool containsIgnoringCase(const char *text, const char *part) {
  for (; *text; ++text) {
    size_t i = 0;
    while (part[i] && text[i] &&
           std::tolower(static_cast<unsigned char>(text[i])) ==
               std::tolower(static_cast<unsigned char>(part[i])))
      ++i;
    if (!part[i])
      return true;
  }
  return false;
}

/// ETCH_VULKAN_DEVICE picks by index or by a part of the device's name;
/// otherwise the best-ranked device with a compute queue.
Error chooseDevice(Context &context) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(context.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(context.instance, &count, devices.data());
  const char *wanted = std::getenv("ETCH_VULKAN_DEVICE");
  bool byIndex = wanted && *wanted &&
                 std::strspn(wanted, "0123456789") == std::strlen(wanted);
  int best = -1, bestRank = -1;
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(devices[i], &properties);
    if (properties.apiVersion < VK_API_VERSION_1_1 ||
        computeQueueFamily(devices[i]) < 0)
      continue;
    bool named = wanted && *wanted &&
                 (byIndex ? std::strtoul(wanted, nullptr, 10) == i
                          : containsIgnoringCase(properties.deviceName, wanted));
    int rank = named ? 100 : deviceRank(properties.deviceType);
    if ((!wanted || !*wanted || named) && rank > bestRank) {
      best = static_cast<int>(i);
      bestRank = rank;
    }
  }
  if (best < 0) {
    ET_LOG(Error, wanted && *wanted
                      ? "vulkan: no Vulkan 1.1 compute device matches "
                        "ETCH_VULKAN_DEVICE=%s"
                      : "vulkan: no Vulkan 1.1 device with a compute queue%s",
           wanted ? wanted : "");
    return Error::DelegateInitFailed;
  }
  context.physical = devices[best];
  vkGetPhysicalDeviceProperties(context.physical, &context.properties);
  vkGetPhysicalDeviceMemoryProperties(context.physical, &context.memory);
  context.queueFamily = computeQueueFamily(context.physical);
  return Error::Ok;
}

/// robustBufferAccess where offered: a shader indexing past its bound
/// region reads zeros instead of the rest of the arena. 16-bit storage
/// buffers where offered (float16 storage).
Error createDevice(Context &context) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = context.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkPhysicalDevice16BitStorageFeatures storage16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 offered{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  offered.pNext = &storage16;
  vkGetPhysicalDeviceFeatures2(context.physical, &offered);
  context.storage16 = storage16.storageBuffer16BitAccess == VK_TRUE;
  VkPhysicalDevice16BitStorageFeatures enabled16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  enabled16.storageBuffer16BitAccess = storage16.storageBuffer16BitAccess;
  VkPhysicalDeviceFeatures enabled{};
  enabled.robustBufferAccess = offered.features.robustBufferAccess;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enabled16;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.pEnabledFeatures = &enabled;
  if (vkCreateDevice(context.physical, &info, nullptr, &context.device) !=
      VK_SUCCESS) {
    ET_LOG(Error, "vulkan: cannot create a device on %s",
           context.properties.deviceName);
    return Error::DelegateInitFailed;
  }
  vkGetDeviceQueue(context.device, context.queueFamily, 0, &context.queue);
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical, &count,
                                           families.data());
  context.timestamps = families[context.queueFamily].timestampValidBits > 0;
  return Error::Ok;
}

Error createShaderModules(Context &context) {
  VkPipelineCacheCreateInfo cacheInfo{
      VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (vkCreatePipelineCache(context.device, &cacheInfo, nullptr,
                            &context.pipelineCache) != VK_SUCCESS) {
    ET_LOG(Error, "vulkan: cannot create a pipeline cache");
    return Error::DelegateInitFailed;
  }
  for (size_t s = 0; s <= static_cast<size_t>(FloatStorage::MAX); ++s) {
    auto storage = static_cast<FloatStorage>(s);
    if (storage == FloatStorage::F16 && !context.storage16)
      continue;
    for (size_t i = 0; i <= static_cast<size_t>(Shader::MAX); ++i) {
      Spirv spirv = shaderSpirv(static_cast<Shader>(i), storage);
      VkShaderModuleCreateInfo info{
          VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      info.codeSize = spirv.size;
      info.pCode = spirv.words;
      if (vkCreateShaderModule(context.device, &info, nullptr,
                               &context.modules[s][i]) != VK_SUCCESS) {
        ET_LOG(Error, "vulkan: cannot create shader module %s (%s storage)",
               EnumNameShader(static_cast<Shader>(i)),
               EnumNameFloatStorage(storage));
        return Error::DelegateInitFailed;
      }
    }
  }
  return Error::Ok;
}

void destroy(Context *context) {
  if (context->device) {
    for (auto &library : context->modules)
      for (VkShaderModule module : library)
        if (module)
          vkDestroyShaderModule(context->device, module, nullptr);
    if (context->pipelineCache)
      vkDestroyPipelineCache(context->device, context->pipelineCache, nullptr);
    vkDestroyDevice(context->device, nullptr);
  }
  if (context->messenger) {
    auto destroyMessenger =
        reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(context->instance,
                                  "vkDestroyDebugUtilsMessengerEXT"));
    if (destroyMessenger)
      destroyMessenger(context->instance, context->messenger, nullptr);
  }
  if (context->instance)
    vkDestroyInstance(context->instance, nullptr);
  delete context;
}

} // namespace

Error Context::acquire(Context *&context) {
  std::lock_guard<std::mutex> lock(sharedMutex);
  if (!shared) {
    auto *created = new (std::nothrow) Context;
    if (!created)
      return Error::MemoryAllocationFailed;
    Error error = createInstance(*created);
    if (error == Error::Ok)
      error = chooseDevice(*created);
    if (error == Error::Ok)
      error = createDevice(*created);
    if (error == Error::Ok)
      error = createShaderModules(*created);
    if (error != Error::Ok) {
      destroy(created);
      return error;
    }
    shared = created;
  }
  context = shared;
  return Error::Ok;
}

int Context::memoryType(uint32_t allowed, VkMemoryPropertyFlags flags) const {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) &&
        (memory.memoryTypes[i].propertyFlags & flags) == flags)
      return static_cast<int>(i);
  return -1;
}

} // namespace etch::vulkan
