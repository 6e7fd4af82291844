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

Spirv shaderSpirv(Shader shader);

} // namespace etch::vulkan
