// What each shader of the library takes, shared by the compiler (which
// writes dispatches) and the runtime (which verifies them): the number of
// storage buffers it binds and of push-constant words it reads, in the
// order shaders/*.comp declare them. The blob's magic and version too.
#pragma once

#include "targets/vulkan/schema/vulkan_blob_generated.h"

#include <cstdint>

namespace etch::vulkan {

inline constexpr char kBlobMagic[4] = {'E', 'V', 'L', 'K'};
inline constexpr uint32_t kBlobVersion = 1;

/// Arena offsets of bound regions are multiples of this (it covers every
/// device's minStorageBufferOffsetAlignment; the runtime checks its own).
inline constexpr uint64_t kRegionAlignment = 256;
/// Copy and Binary index up to this many dims.
inline constexpr int kMaxRank = 6;
/// Output channels each Conv2d invocation computes (conv2d.comp's BLOCK).
inline constexpr int64_t kConvBlock = 4;
/// Workgroups per dispatch dimension every Vulkan device accepts.
inline constexpr uint32_t kMaxGroups = 65535;

/// Bytes of one float tensor element in the arena.
inline constexpr uint64_t elementBytes(FloatStorage storage) {
  return storage == FloatStorage::F16 ? 2 : 4;
}

struct ShaderInterface {
  uint32_t bindings;  // storage buffers 0..bindings-1
  uint32_t pushWords; // 32-bit push-constant words
};

/// Indexed by Shader.
inline constexpr ShaderInterface kShaderInterfaces[] = {
    {2, 3 * kMaxRank + 2}, // Copy: dims, src strides, dst strides, offsets
    {3, 3 * kMaxRank + 2}, // Binary: dims, a strides, b strides, op, alpha
    {2, 4},                // Unary: count, activation, alpha, beta
    {4, 15},               // Gemm: see gemm.comp
    {4, 20},               // Conv2d: see conv2d.comp
    {2, 15},               // Pool2d: see pool2d.comp
    {2, 4},                // Softmax: outer, D, inner, log
    {4, 5},                // LayerNorm: rows, D, eps, has weight, has bias
    {2, 4},                // Reduce: outer, R, inner, mode
    {5, 14},               // Attention: see attention.comp
};
static_assert(sizeof(kShaderInterfaces) / sizeof(kShaderInterfaces[0]) ==
                  static_cast<size_t>(Shader::MAX) + 1,
              "one interface per shader");

inline const ShaderInterface &shaderInterface(Shader shader) {
  return kShaderInterfaces[static_cast<size_t>(shader)];
}

} // namespace etch::vulkan
