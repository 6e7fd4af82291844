// The SPIR-V of targets/vulkan/shaders, compiled by glslc at build time.
#pragma once

#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include <cstddef>
#include <cstdint>

namespace etch::vulkan {

struct Spirv {
  const uint32_t *words;
  size_t size; // bytes
};

/// \p shader compiled for float tensors stored as \p storage.
Spirv shaderSpirv(Shader shader, FloatStorage storage);

} // namespace etch::vulkan
